package callcheck

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/implsearch"
)

// ImplReport compares the indexer's implements edges with go/types.
type ImplReport struct {
	Types, Interfaces int // named types and interfaces compared
	Tally                 // the indexer's pairs (Ours) against go/types' (Theirs)
}

func (r ImplReport) String() string {
	return fmt.Sprintf("implements: types=%d interfaces=%d ours=%d go/types=%d matched=%d precision=%.4f recall=%.4f\n",
		r.Types, r.Interfaces, r.Ours, r.Theirs, r.Matched, r.Precision, r.Recall)
}

// CompareImplements compares golang.ExtractImplements with go/types over
// every pair of a package-level named type and an interface: the
// packages' interfaces with methods and no type-set terms, and the
// interfaces declared outside them that the indexer gives a node. A
// concrete type T implements I when *T does (types.Implements); an
// interface when it does itself. Generic types are instantiated with
// distinct placeholder types, and a generic interface counts as implemented
// when one of its instantiations is, its unconstrained type parameters
// tried with every type occurring in the candidate's method signatures and
// its constrained ones with the candidate's type argument at the same
// position: the correspondence the indexer documents (golang.methodSets),
// found here by brute force (implsearch).
//
// With tests, go list compiles a package anew for each test that reaches
// it, and go/types tells the copies' types apart; the indexer, one node per
// package path, does not. Each pair is checked in the variants the
// candidate sees (and in its plain package), so what remains extra are
// pairs with no common view: a type declared only in one package's tests
// against an interface of a package compiled for another's (6 of 6,627 on
// GOROOT/src).
func CompareImplements(root string, pkgs []*packages.Package, keep int) ImplReport {
	edges, extNames := golang.ExtractImplements(root, pkgs)
	ours := map[string]bool{}
	for _, e := range edges {
		ours[string(e.From)+" -> "+string(e.To)] = true
	}
	cands, ifaces := implUniverse(pkgs, extNames)
	theirs := map[string]bool{}
	views := map[*packages.Package]map[string]*types.Package{}
	plain := plainPackages(pkgs)
	for _, c := range cands {
		typ := candidateType(c.t)
		have := methodNames(typ)
		if views[c.pkg] == nil {
			views[c.pkg] = view(c.pkg)
		}
		// The same declaration in the plain package, when c comes from a
		// test variant: interfaces of packages the variant does not import
		// were checked against the plain package's types.
		var alt types.Type
		if pp := plain[c.pkg.PkgPath]; pp != nil && pp.Types != c.pkg.Types {
			if n, ok := typeOf(pp.Types.Scope().Lookup(c.t.Obj().Name())).(*types.Named); ok {
				alt = candidateType(n)
				if views[pp] == nil {
					views[pp] = view(pp)
				}
			}
		}
		for _, i := range ifaces {
			if i.id == c.id || !hasAll(have, i.t) {
				continue
			}
			if implsearch.ImplementsSome(typ, seenFrom(views[c.pkg], i.t)) ||
				(alt != nil && implsearch.ImplementsSome(alt, seenFrom(views[plain[c.pkg.PkgPath]], i.t))) {
				theirs[c.id+" -> "+i.id] = true
			}
		}
	}
	return ImplReport{Types: len(cands), Interfaces: len(ifaces), Tally: tally(ours, theirs, keep)}
}

type namedType struct {
	id  string
	t   *types.Named
	pkg *packages.Package // where a candidate is declared
}

// candidateType is what a named type is checked as: *T instantiated with
// implsearch.PosArgs for a concrete type, the interface itself for an interface.
func candidateType(n *types.Named) types.Type {
	t := instantiatePos(n)
	if types.IsInterface(n) {
		return t
	}
	return types.NewPointer(t)
}

// plainPackages returns the loaded packages that are no test variants, by
// path.
func plainPackages(pkgs []*packages.Package) map[string]*packages.Package {
	out := map[string]*packages.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.ID == p.PkgPath && p.Types != nil {
			out[p.PkgPath] = p
		}
	})
	return out
}

// view returns the packages p was type-checked against, by path: itself
// and its transitive imports. With tests, go list gives a package under
// test, and the packages importing it, variants of their own, each with
// its own types; go/types compares a candidate with an interface only in
// the variant the candidate sees, while the indexer (one node per path)
// compares by path.
func view(p *packages.Package) map[string]*types.Package {
	m := map[string]*types.Package{}
	var walk func(q *packages.Package)
	walk = func(q *packages.Package) {
		if q.Types == nil || m[q.PkgPath] != nil {
			return
		}
		m[q.PkgPath] = q.Types
		for _, imp := range q.Imports {
			walk(imp)
		}
	}
	walk(p)
	return m
}

// seenFrom returns the interface n as declared in the variant of its
// package that v holds, or n itself.
func seenFrom(v map[string]*types.Package, n *types.Named) *types.Named {
	if n.Obj().Pkg() == nil {
		return n
	}
	tp := v[n.Obj().Pkg().Path()]
	if tp == nil || tp == n.Obj().Pkg() {
		return n
	}
	if m, ok := typeOf(tp.Scope().Lookup(n.Obj().Name())).(*types.Named); ok && types.IsInterface(m) {
		return m
	}
	return n
}

// implUniverse returns the package-level named types of the packages the
// indexer extracts (aliases, constraints and empty interfaces skipped) and
// the interfaces among them, with those outside them named by extNames.
func implUniverse(pkgs []*packages.Package, extNames []string) (cands, ifaces []namedType) {
	// The external interfaces the indexer gives a node, found by name
	// among the loaded dependencies.
	byPath := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	for _, q := range extNames {
		var obj types.Object
		if k := strings.LastIndexByte(q, '.'); k < 0 {
			obj = types.Universe.Lookup(q)
		} else if tp := byPath[q[:k]]; tp != nil {
			obj = tp.Scope().Lookup(q[k+1:])
		}
		if n, ok := types.Unalias(typeOf(obj)).(*types.Named); ok && types.IsInterface(n) {
			ifaces = append(ifaces, namedType{id: "go:" + q, t: n})
		}
	}
	for _, p := range chosen(pkgs) {
		scope := p.Types.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			n, ok := tn.Type().(*types.Named)
			if !ok {
				continue
			}
			nt := namedType{"go:" + p.PkgPath + "." + name, n, p}
			if it, ok := n.Underlying().(*types.Interface); ok {
				if it.NumMethods() == 0 || !it.IsMethodSet() {
					continue // constraints and empty interfaces take part in no edge
				}
				ifaces = append(ifaces, nt)
			}
			cands = append(cands, nt)
		}
	}
	return cands, ifaces
}

func typeOf(obj types.Object) types.Type {
	if obj == nil {
		return nil
	}
	return obj.Type()
}

// methodNames is the set of method names of typ's method set.
func methodNames(typ types.Type) map[string]bool {
	ms := types.NewMethodSet(typ)
	out := make(map[string]bool, ms.Len())
	for i := 0; i < ms.Len(); i++ {
		out[ms.At(i).Obj().Name()] = true
	}
	return out
}

// hasAll reports whether have holds every method name of the interface:
// a necessary condition, checked first only to save types.Implements
// calls.
func hasAll(have map[string]bool, iface *types.Named) bool {
	it := iface.Underlying().(*types.Interface)
	for i := 0; i < it.NumMethods(); i++ {
		if !have[it.Method(i).Name()] {
			return false
		}
	}
	return true
}

// chosen returns the packages the indexer extracts, as golang.ExtractCalls
// chooses them: a test variant replaces its plain package, generated test
// mains are skipped.
func chosen(pkgs []*packages.Package) []*packages.Package {
	variant := map[string]bool{}
	for _, p := range pkgs {
		if p.ID == p.PkgPath+" ["+p.PkgPath+".test]" {
			variant[p.PkgPath] = true
		}
	}
	var out []*packages.Package
	for _, p := range pkgs {
		if (strings.HasSuffix(p.ID, ".test") && !strings.Contains(p.ID, " [")) || (p.ID == p.PkgPath && variant[p.PkgPath]) {
			continue
		}
		if p.Types != nil && p.TypesInfo != nil {
			out = append(out, p)
		}
	}
	return out
}

// instantiatePos returns n instantiated with implsearch.PosArgs, or n
// itself when go/types refuses.
func instantiatePos(n *types.Named) types.Type {
	t, err := implsearch.Instantiate(n)
	if err != nil {
		return n
	}
	return t
}
