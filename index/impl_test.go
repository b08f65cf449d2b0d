package index

import (
	"go/types"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"
)

// TestImplementsMatchesGoTypes checks the fingerprint-based implements
// edges against types.Implements over every (concrete named type,
// interface) and (interface, other interface) pair of each sample
// repository, the interfaces declared outside the repository that it
// references included. Generic types are compared as the indexer defines
// them: a generic type G instantiated with distinct arguments (G[A0, A1]),
// against every instantiation of a generic interface I whose
// unconstrained arguments are types found in G's method signatures and
// whose constrained ones are the arguments at the same position
// (implementsSome), by brute force rather than by the indexer's matching.
func TestImplementsMatchesGoTypes(t *testing.T) {
	repos := []string{"extiface", "iface", "embedding", "generics", "genimpl", "geninst", "calls", "tests", "internal/callcheck/testdata/sample.txtar"}
	for _, repo := range repos {
		t.Run(repo, func(t *testing.T) {
			t.Parallel()
			root := extractTxtar(t, repo)
			cfg := &packages.Config{
				Context: t.Context(),
				Mode: packages.NeedName | packages.NeedTypes | packages.NeedDeps | packages.NeedImports | packages.NeedFiles |
					packages.NeedSyntax | packages.NeedTypesInfo,
				Dir: root,
				Env: append(cfgEnv(), "GOWORK=off"),
			}
			pkgs, err := packages.Load(cfg, "./...")
			if err != nil {
				t.Fatal(err)
			}
			var sets []methodSet
			type named struct {
				id string
				t  *types.Named
			}
			var concrete, ifaces []named
			inRepo := map[string]bool{}
			for _, p := range pkgs {
				inRepo[p.PkgPath] = true
			}
			var exts []extIface
			extSeen := map[string]bool{}
			for _, p := range pkgs {
				if len(p.Errors) > 0 {
					t.Fatalf("%s: %v", p.PkgPath, p.Errors)
				}
				sets = append(sets, methodSets(p.Types)...)
				x := &goExtractor{fset: p.Fset, pkg: p.Types, info: p.TypesInfo, inRepo: func(s string) bool { return inRepo[s] }}
				var srcs []*srcFile
				for _, f := range p.Syntax {
					srcs = append(srcs, &srcFile{rel: p.Fset.Position(f.Pos()).Filename, ast: f})
				}
				x.extract(srcs)
				exts = append(exts, x.externals()...)
				for n := range x.exts {
					if id := string(symID(extQName(n))); !extSeen[id] {
						extSeen[id] = true
						ifaces = append(ifaces, named{id, n})
					}
				}
				scope := p.Types.Scope()
				for _, name := range scope.Names() {
					tn, ok := scope.Lookup(name).(*types.TypeName)
					if !ok || tn.IsAlias() {
						continue
					}
					n := tn.Type().(*types.Named)
					id := string(symID(p.PkgPath + "." + name))
					if it, ok := n.Underlying().(*types.Interface); ok {
						if it.NumMethods() > 0 && it.IsMethodSet() {
							ifaces = append(ifaces, named{id, n})
						}
						continue
					}
					concrete = append(concrete, named{id, n})
				}
			}
			var want, got []string
			for _, c := range concrete {
				for _, i := range ifaces {
					if implementsSome(t, types.NewPointer(instantiate(t, c.t)), i.t) {
						want = append(want, c.id+" -> "+i.id)
					}
				}
			}
			// Interfaces satisfying other interfaces.
			for _, a := range ifaces {
				for _, i := range ifaces {
					if a.id != i.id && implementsSome(t, instantiate(t, a.t), i.t) {
						want = append(want, a.id+" -> "+i.id)
					}
				}
			}
			_, _, extSets := externalNodes(exts)
			for _, e := range implementsEdges(append(sets, extSets...)) {
				got = append(got, string(e.From)+" -> "+string(e.To))
			}
			sort.Strings(want)
			sort.Strings(got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("implements (-types.Implements +fingerprints):\n%s", diff)
			}
			if repo == "extiface" && len(extSeen) < 5 {
				t.Errorf("only %d external interfaces: the sample exercises too little", len(extSeen))
			}
			if repo == "iface" && len(want) < 5 {
				t.Errorf("only %d implements pairs: the sample exercises too little", len(want))
			}
		})
	}
}

// TestMethodSetsRoundTrip checks that stored fingerprints decode to what
// was encoded.
func TestMethodSetsRoundTrip(t *testing.T) {
	in := []methodSet{
		{id: "go:p.T", lines: []string{"Get () (int)", "p.set (int)"}, ptr: "p.set"},
		{id: "go:p.V", lines: []string{"Get () (int)"}},
		{id: "go:p.G", iface: true, lines: []string{"Push ($0)", "Key () ($1)"}, free: "ac"},
		{id: "go:p.I", iface: true, lines: []string{"Get () (int)"}},
	}
	out := decodeMethodSets("p", encodeMethodSets("p", in))
	if diff := cmp.Diff(in, out, cmp.AllowUnexported(methodSet{})); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
	ext := []extIface{
		{qname: "io.Writer", lines: []string{"Write ([]byte) (int, error)"}, sigs: []string{"Write(p []byte) (n int, err error)"}, explicit: []string{"Write"}},
		{qname: "io.ReadWriter", lines: []string{"Read ([]byte) (int, error)", "Write ([]byte) (int, error)"}, sigs: []string{"Read(p []byte) (n int, err error)", "Write(p []byte) (n int, err error)"}},
	}
	if diff := cmp.Diff(ext, decodeExternals(encodeExternals(ext)), cmp.AllowUnexported(extIface{})); diff != "" {
		t.Errorf("external round trip (-in +out):\n%s", diff)
	}
}

func cfgEnv() []string { return os.Environ() }

// instantiate returns n itself when it is not generic, else n instantiated
// with the distinct types A0, A1… (no constraint check: the indexer's
// positional correspondence is what is compared).
func instantiate(t *testing.T, n *types.Named) types.Type {
	tps := n.TypeParams()
	if tps.Len() == 0 {
		return n
	}
	args := make([]types.Type, tps.Len())
	for i := range args {
		args[i] = posArgs[i]
	}
	inst, err := types.Instantiate(nil, n, args, false)
	if err != nil {
		t.Fatalf("instantiate %s: %v", n, err)
	}
	return inst
}

// implementsSome reports whether t implements iface, or, when iface is
// generic, one of its instantiations: each type parameter constrained by
// the empty interface ranges over every type occurring in t's method
// signatures (the only types that can make a method identical), each
// constrained one is posArgs at its position.
func implementsSome(t *testing.T, typ types.Type, iface *types.Named) bool {
	tps := iface.TypeParams()
	if tps.Len() == 0 {
		return types.Implements(typ, iface.Underlying().(*types.Interface))
	}
	comps := sigComponents(typ)
	choices := make([][]types.Type, tps.Len())
	for k := range choices {
		if it, ok := tps.At(k).Constraint().Underlying().(*types.Interface); ok && it.Empty() {
			choices[k] = comps
		} else {
			choices[k] = []types.Type{posArgs[k]}
		}
	}
	args := make([]types.Type, tps.Len())
	var try func(k int) bool
	try = func(k int) bool {
		if k == len(args) {
			inst, err := types.Instantiate(nil, iface, args, false)
			if err != nil {
				t.Fatalf("instantiate %s: %v", iface, err)
			}
			return types.Implements(typ, inst.Underlying().(*types.Interface))
		}
		for _, c := range choices[k] {
			args[k] = c
			if try(k + 1) {
				return true
			}
		}
		return false
	}
	return try(0)
}

// sigComponents returns, without duplicates, every type occurring in the
// method signatures of typ's method set: parameter and result types and
// the types they are built from.
func sigComponents(typ types.Type) []types.Type {
	var out []types.Type
	var walk func(t types.Type, depth int)
	walk = func(t types.Type, depth int) {
		if depth > 8 {
			return
		}
		for _, o := range out {
			if types.Identical(o, t) {
				return
			}
		}
		out = append(out, t)
		switch t := t.(type) {
		case *types.Pointer:
			walk(t.Elem(), depth+1)
		case *types.Slice:
			walk(t.Elem(), depth+1)
		case *types.Array:
			walk(t.Elem(), depth+1)
		case *types.Chan:
			walk(t.Elem(), depth+1)
		case *types.Map:
			walk(t.Key(), depth+1)
			walk(t.Elem(), depth+1)
		case *types.Signature:
			walkTuple(t.Params(), func(t types.Type) { walk(t, depth+1) })
			walkTuple(t.Results(), func(t types.Type) { walk(t, depth+1) })
		case *types.Named:
			for i := 0; i < t.TypeArgs().Len(); i++ {
				walk(t.TypeArgs().At(i), depth+1)
			}
		}
	}
	ms := types.NewMethodSet(typ)
	for i := 0; i < ms.Len(); i++ {
		sig := ms.At(i).Obj().Type().(*types.Signature)
		walkTuple(sig.Params(), func(t types.Type) { walk(t, 0) })
		walkTuple(sig.Results(), func(t types.Type) { walk(t, 0) })
	}
	return out
}

func walkTuple(tup *types.Tuple, f func(types.Type)) {
	for i := 0; i < tup.Len(); i++ {
		f(tup.At(i).Type())
	}
}

// posArgs are distinct named types standing for type arguments by position.
var posArgs = func() []types.Type {
	pkg := types.NewPackage("example.com/args", "args")
	var out []types.Type
	for i := range 8 {
		tn := types.NewTypeName(0, pkg, "A"+strconv.Itoa(i), nil)
		out = append(out, types.NewNamed(tn, types.Typ[types.Int], nil))
	}
	return out
}()
