package golang

import (
	"go/token"
	"go/types"
	"slices"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// extIface is one interface declared outside the repository that a
// repository package references: what its nodes and its implements edges
// are computed from, so that it can be stored in the package's module node
// (attrExtIfaces) and the nodes rebuilt without loading the dependency.
type extIface struct {
	qname    string   // "io.Writer", "net/http.Handler", "error"
	lines    []string // method-set fingerprint (as methodSet.lines), sorted
	sigs     []string // every method "Name(params) results", sorted by name
	explicit []string // names of the methods it declares itself (its member nodes), sorted
}

// attrExtIfaces is the module-node attribute listing the external
// interfaces the package references, one per line:
// "qname\tline\x1fline…\tsig\x1fsig…\tname,name…".
const attrExtIfaces = "go.extifaces"

// externalIface returns the interface t names when it is one that gets an
// external node: a non-generic, package-level named interface with at least
// one method and no type-set terms, declared outside the repository, or the
// predeclared error. Aliases are followed.
func (x *extractor) externalIface(t types.Type) (*types.Named, bool) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || n.TypeParams().Len() > 0 || n.TypeArgs().Len() > 0 {
		return nil, false
	}
	obj := n.Obj()
	if obj.Pkg() == nil {
		if obj != types.Universe.Lookup("error") {
			return nil, false
		}
	} else if obj.Parent() != obj.Pkg().Scope() || x.inRepo(obj.Pkg().Path()) {
		return nil, false
	}
	it, ok := n.Underlying().(*types.Interface)
	if !ok || it.NumMethods() == 0 || !it.IsMethodSet() {
		return nil, false
	}
	return n, true
}

// extQName is the qname of an external named type: "io.Writer", "error".
func extQName(n *types.Named) string {
	if n.Obj().Pkg() == nil {
		return n.Obj().Name()
	}
	return n.Obj().Pkg().Path() + "." + n.Obj().Name()
}

// noteExternal records that the package references t, when t is an
// interface that gets an external node; it returns that node's id.
func (x *extractor) noteExternal(t types.Type) (graphdb.NodeID, bool) {
	n, ok := x.externalIface(t)
	if !ok {
		return "", false
	}
	if x.exts == nil {
		x.exts = map[*types.Named]bool{}
	}
	x.exts[n] = true
	return symID(extQName(n)), true
}

// externalMethod returns the node id of an external interface's method
// (`w.Write` with w an io.Writer gives go:io.Writer.Write) and records the
// interface as referenced; false for every other function.
func (x *extractor) externalMethod(fn *types.Func) (graphdb.NodeID, bool) {
	sig, _ := fn.Origin().Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return "", false
	}
	id, ok := x.noteExternal(sig.Recv().Type())
	if !ok {
		return "", false
	}
	return graphdb.NodeID(string(id) + "." + fn.Name()), true
}

// externals scans the package's uses for external interfaces and returns
// every external interface referenced, sorted by qname. Referenced means:
// named (a type name in Uses, embedding included), called (the receiver
// of a called interface method, see externalMethod), or a parameter or
// result type of an external function or method the package uses (sort.Sort
// takes a sort.Interface: the argument converts to it, unnamed).
func (x *extractor) externals() []extIface {
	for _, obj := range x.info.Uses {
		switch o := obj.(type) {
		case *types.TypeName:
			x.noteExternal(o.Type())
		case *types.Func:
			if o.Pkg() == nil || x.inRepo(o.Pkg().Path()) {
				continue
			}
			sig := o.Type().(*types.Signature)
			for _, tup := range []*types.Tuple{sig.Params(), sig.Results()} {
				for i := 0; i < tup.Len(); i++ {
					t := tup.At(i).Type()
					if sl, ok := t.(*types.Slice); ok && sig.Variadic() && tup == sig.Params() && i == tup.Len()-1 {
						t = sl.Elem()
					}
					x.noteExternal(t)
				}
			}
		}
	}
	out := make([]extIface, 0, len(x.exts))
	for n := range x.exts {
		out = append(out, describeExternal(n))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].qname < out[j].qname })
	return out
}

// describeExternal computes an external interface's fingerprint and the
// signatures its nodes show.
func describeExternal(n *types.Named) extIface {
	it := n.Underlying().(*types.Interface)
	e := extIface{qname: extQName(n)}
	qual := func(p *types.Package) string {
		if p == n.Obj().Pkg() {
			return ""
		}
		return p.Name()
	}
	for i := 0; i < it.NumMethods(); i++ {
		m := it.Method(i)
		e.lines = append(e.lines, methodLine(m))
		e.sigs = append(e.sigs, m.Name()+strings.TrimPrefix(types.TypeString(m.Type(), qual), "func"))
	}
	for i := 0; i < it.NumExplicitMethods(); i++ {
		e.explicit = append(e.explicit, it.ExplicitMethod(i).Name())
	}
	sort.Strings(e.lines)
	sort.Strings(e.sigs)
	sort.Strings(e.explicit)
	return e
}

// encodeExternals serialises a package's external interfaces for
// attrExtIfaces.
func encodeExternals(es []extIface) string {
	var b strings.Builder
	for _, e := range es {
		b.WriteString(e.qname + "\t" + strings.Join(e.lines, "\x1f") + "\t" + strings.Join(e.sigs, "\x1f") + "\t" + strings.Join(e.explicit, ",") + "\n")
	}
	return b.String()
}

// decodeExternals reverses encodeExternals.
func decodeExternals(s string) []extIface {
	var out []extIface
	for _, line := range strings.Split(s, "\n") {
		parts := strings.Split(line, "\t")
		if len(parts) != 4 {
			continue
		}
		e := extIface{qname: parts[0], lines: strings.Split(parts[1], "\x1f"), sigs: strings.Split(parts[2], "\x1f")}
		if parts[3] != "" {
			e.explicit = strings.Split(parts[3], ",")
		}
		out = append(out, e)
	}
	return out
}

// externalNodes returns the nodes of the external interfaces (each once,
// the first description in the given order winning), their member nodes
// with their parent edges, and the fingerprints that take part in the
// implements computation. Sorted by id.
func externalNodes(es []extIface) ([]graphdb.Node, []graphdb.Edge, []methodSet) {
	seen := map[string]bool{}
	var nodes []graphdb.Node
	var edges []graphdb.Edge
	var sets []methodSet
	for _, e := range es {
		if seen[e.qname] {
			continue
		}
		seen[e.qname] = true
		pkg, name := "builtin", e.qname
		if i := strings.LastIndexByte(e.qname, '.'); i >= 0 {
			pkg, name = e.qname[:i], e.qname[i+1:]
		}
		id := symID(e.qname)
		attrs := map[string]string{graphdb.AttrExternal: pkg}
		sig := "type " + name + " interface{ " + strings.Join(e.sigs, "; ") + " }"
		if len(sig) > 200 {
			sig = sig[:197] + "..."
		}
		nodes = append(nodes, graphdb.Node{
			ID: id, Kind: graphdb.KindType, SubKind: "interface", Name: name, QName: e.qname, Language: "go",
			Signature: sig, Exported: true, Attrs: attrs,
		})
		sets = append(sets, methodSet{id: id, iface: true, lines: e.lines})
		bySig := map[string]string{}
		var embedded []string // e.sigs is sorted by name
		for _, s := range e.sigs {
			if i := strings.IndexByte(s, '('); i > 0 {
				bySig[s[:i]] = s
				if !slices.Contains(e.explicit, s[:i]) {
					embedded = append(embedded, s[:i])
				}
			}
		}
		if len(embedded) > 0 {
			attrs[graphdb.AttrEmbeddedMethods] = strings.Join(embedded, ",")
		}
		for _, m := range e.explicit {
			mid := graphdb.NodeID(string(id) + "." + m)
			nodes = append(nodes, graphdb.Node{
				ID: mid, Kind: graphdb.KindMember, SubKind: "method", Name: m, QName: e.qname + "." + m, Language: "go",
				Signature: bySig[m], Exported: token.IsExported(m), Attrs: map[string]string{graphdb.AttrExternal: pkg},
			})
			edges = append(edges, graphdb.Edge{From: mid, To: id, Kind: graphdb.EdgeParent})
		}
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	return nodes, edges, sets
}

// allExternals lists the external interfaces of every package, packages in
// path order, so that when two packages see different declarations of one
// interface (modules depending on different versions) the choice is stable.
func (r *runState) allExternals() []extIface {
	pkgs := make([]string, 0, len(r.exts))
	for p := range r.exts {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var out []extIface
	for _, p := range pkgs {
		out = append(out, r.exts[p]...)
	}
	return out
}
