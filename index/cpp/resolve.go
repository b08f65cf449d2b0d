//go:build cgo

package cpp

import (
	"path"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// resolveFile builds a parsed file's owner against the table: its nodes
// (the declarations the table made nodes of this file), containment,
// inherits, implements (an override → the virtual method it overrides),
// returns and param_of, imports (its includes) and the calls of its
// bodies; it stores the file's scope, surface and dependencies on its
// file node.
func resolveFile(f *sourceFile, tab *table, incs *includes, macros string) {
	if sc := tab.scopeOf(f.scope); sc != nil {
		f.scope = sc // resolve against the table's copy, whose ids are set
	}
	x := &extractor{src: f.data, f: f}
	l := tab.lookup(f.rel)
	f.byName = map[string]bool{}
	fid := frontend.FileID(f.rel)
	f.res.Rec = graphdb.FileRecord{Path: f.rel, Hash: frontend.ContentHash(f.orig), Language: "cpp", Size: int64(len(f.orig)), Errors: f.errs}
	if len(f.scope.NS) > 0 {
		f.res.Rec.Module = f.scope.NS[0]
	}
	f.res.Nodes = append(f.res.Nodes, graphdb.Node{ID: fid, Kind: graphdb.KindFile, Name: path.Base(f.rel), QName: f.rel, Loc: f.rel,
		Language: "cpp", File: f.rel, StartLine: 1, EndLine: max(frontend.CountLines(f.orig), 1), Test: isTest(f.rel), Testdata: frontend.IsTestdata(f.rel)})
	for _, ns := range f.scope.NS {
		f.res.Edges = append(f.res.Edges, graphdb.Edge{From: fid, To: nsID(ns), Kind: graphdb.EdgeParent, File: f.rel})
	}
	ids := frontend.IDCounts{}
	for _, d := range f.decls {
		emitDecl(x, l, tab, ids, d)
	}
	usings := f.scope.Usings
	for i := range f.bodies {
		b := &f.bodies[i]
		id := b.fd.id
		if id == "" {
			continue
		}
		w := &walker{x: x, l: l, f: f, b: b, from: id, usings: append(append([]string(nil), usings...), b.usings...)}
		if b.cls != "" {
			w.cls = b.fd.owner
			if w.cls == nil {
				w.cls = l.typeNamed(b.cls, b.ns, nil, w.usings)
			}
		}
		w.body()
	}
	for _, in := range f.incs {
		if to := incs.resolve(f.rel, in.path); to != "" && to != f.rel {
			f.res.Edges = append(f.res.Edges, graphdb.Edge{From: fid, To: frontend.FileID(to), Kind: graphdb.EdgeImports, File: f.rel, Line: in.line})
		}
	}
	js, surface := f.scope.encode()
	delete(l.deps, f.rel)
	n := &f.res.Nodes[0]
	n.Attrs = map[string]string{attrScope: js, attrSurface: surface, attrMacros: macros}
	if len(l.deps) > 0 {
		n.Attrs[attrDeps] = strings.Join(frontend.SortedKeys(l.deps), "\n")
	}
	if l.unres {
		n.Attrs[attrUnres] = "1"
	}
	if len(f.byName) > 0 {
		n.Attrs[attrByName] = strings.Join(frontend.SortedKeys(f.byName), "\n")
	}
}

// scopeOf returns the table's scope of the file sc was extracted from.
func (t *table) scopeOf(sc *fileScope) *fileScope { return t.scopes[sc.file] }

// emitDecl writes the node of one declaration site, when the table made
// it this file's, with its edges.
func emitDecl(x *extractor, l *lookup, tab *table, ids frontend.IDCounts, d declSite) {
	f := x.f
	fid := frontend.FileID(f.rel)
	switch {
	case d.fd == nil && d.field == "":
		td := d.td
		id := tab.typeID(td)
		if id == "" || ids[id] > 0 {
			return
		}
		ids.Unique(id)
		n := x.node(id, graphdb.KindType, td.Kind, lastName(td.Q), td.Q, td.NS, d)
		if td.Template {
			n.Attrs = map[string]string{"cpp.template": "1"}
		}
		f.res.Nodes = append(f.res.Nodes, n)
		f.edge(id, parentOf(tab, l, td, fid), graphdb.EdgeParent, 0)
		for _, b := range td.Bases {
			if bt := l.typeNamed(b, td.NS, l.outerOf(td), nil); bt != nil && bt != td {
				f.edge(id, tab.typeID(bt), graphdb.EdgeInherits, sitter.Line(d.n))
			}
		}
	case d.fd == nil:
		tid := tab.typeID(d.td)
		id := tid + graphdb.NodeID("::"+d.field)
		if tid == "" || ids[id] > 0 {
			return
		}
		ids.Unique(id)
		f.res.Nodes = append(f.res.Nodes, x.node(id, graphdb.KindMember, "field", d.field, join(d.td.Q, d.field), d.td.NS, d))
		f.edge(id, tid, graphdb.EdgeParent, 0)
	default:
		emitFunc(x, l, tab, ids, d)
	}
}

// parentOf is the node a type is declared in: its enclosing class or
// the file.
func parentOf(tab *table, l *lookup, td *typeDef, fid graphdb.NodeID) graphdb.NodeID {
	if o := l.outerOf(td); o != nil && o.scope == td.scope {
		return tab.typeID(o)
	}
	return fid
}

// emitFunc writes a function's or method's node when this declaration is
// the node of its id: a method declared in its class (whatever file
// defines it), a free function's first definition (or declaration when
// none defines it), a method defined out of line that its class does not
// declare.
func emitFunc(x *extractor, l *lookup, tab *table, ids frontend.IDCounts, d declSite) {
	f, fd := x.f, d.fd
	if fd.id == "" || tab.owner[fd.id] != fd || ids[fd.id] > 0 {
		if o := tab.owner[fd.id]; fd.id != "" && o != nil && o.scope != fd.scope {
			l.deps[o.scope.file] = true // the node lives there
		}
		return
	}
	ids.Unique(fd.id)
	kind, sub, parent := graphdb.KindFunction, "", frontend.FileID(f.rel)
	if cls := fd.owner; cls != nil {
		kind, sub, parent = graphdb.KindMember, "method", tab.typeID(cls)
		if fd.Ctor {
			sub = "constructor"
		}
	}
	n := x.node(fd.id, kind, sub, fd.Name, fd.Q, fd.NS, d)
	if fd.Template || virtual(fd) {
		n.Attrs = map[string]string{}
		if fd.Template {
			n.Attrs["cpp.template"] = "1"
		}
		if virtual(fd) {
			n.Attrs["cpp.virtual"] = "1"
		}
	}
	f.res.Nodes = append(f.res.Nodes, n)
	f.edge(fd.id, parent, graphdb.EdgeParent, 0)
	line := sitter.Line(d.n)
	w := &walker{x: x, l: l, f: f, b: &codeBody{ns: fd.NS}, cls: fd.owner, usings: f.scope.Usings}
	if t := w.typeRef(fd.Ret, fd.NS, fd.owner); t.td != nil {
		f.edge(fd.id, tab.typeID(t.td), graphdb.EdgeReturns, line)
	}
	for _, p := range fd.Params {
		if t := w.typeRef(p, fd.NS, fd.owner); t.td != nil {
			f.edge(tab.typeID(t.td), fd.id, graphdb.EdgeParamOf, line)
		}
	}
	if fd.owner != nil && !fd.Ctor && !strings.HasPrefix(fd.Name, "~") {
		for _, o := range overridden(l, fd) {
			f.edge(fd.id, o.id, graphdb.EdgeImplements, line)
		}
	}
}

// overridden returns the virtual methods of the nearest bases that fd
// overrides: the same name and number of parameters.
func overridden(l *lookup, fd *funcDef) []*funcDef {
	var out []*funcDef
	seen := map[*typeDef]bool{}
	for _, b := range l.bases(fd.owner, seen, 0) {
		for _, m := range l.own(b, fd.Name) {
			if virtual(m) && len(m.Params) == len(fd.Params) && m.id != fd.id {
				out = append(out, m)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return out
}

// virtual reports whether a method is declared virtual (override and
// final included), in its class when fd defines it out of line.
func virtual(fd *funcDef) bool { return fd.Virtual || fd.decl != nil && fd.decl.Virtual }

func (f *sourceFile) edge(from, to graphdb.NodeID, kind graphdb.EdgeKind, line int) {
	if from == "" || to == "" {
		return
	}
	e := graphdb.Edge{From: from, To: to, Kind: kind, File: f.rel, Line: line}
	f.res.Edges = append(f.res.Edges, e)
}
