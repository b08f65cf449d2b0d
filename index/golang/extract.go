package golang

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// srcFile is one parsed file of a package being extracted.
type srcFile struct {
	rel       string
	ast       *ast.File
	hash      string
	size      int64
	lines     int
	test      bool
	generated bool
	testdata  bool
	errors    []string
}

// extractor turns one type-checked package into owners: one fileResult
// per file plus the package's pseudo-owner.
type extractor struct {
	fset   *token.FileSet
	pkg    *types.Package
	info   *types.Info
	inRepo func(pkgPath string) bool

	ids   frontend.IDCounts
	files []*frontend.FileResult
	cur   *frontend.FileResult
	sf    *srcFile
	calls []callSite            // every call edge with its nature, for the accuracy check
	exts  map[*types.Named]bool // external interfaces referenced (extern.go)
	// dotImports: the current file has an `import . "p"`, so unqualified
	// names may be functions of another package.
	dotImports bool
}

// callSite is one extracted call edge plus its nature: a reference (a
// method value or method expression that is not called at that site) or a
// call through an interface.
type callSite struct {
	edge  graphdb.Edge
	ref   bool
	iface bool // the callee is an interface method (dispatch)
}

// Node id scheme (see doc.go).
func pkgID(path string) graphdb.NodeID  { return graphdb.NodeID("go:pkg:" + path) }
func symID(qname string) graphdb.NodeID { return graphdb.NodeID("go:" + qname) }

// pkgOwner is the pseudo-owner of a package's module node.
func pkgOwner(path string) string { return "@go/pkg/" + path }

// implOwner owns every implements edge.
const implOwner = "@go/implements"

// unique returns id, or id#N when id was already used in this package
// (redeclarations in code that does not compile, blank fields).
func (x *extractor) line(p token.Pos) int {
	if !p.IsValid() {
		return 0
	}
	return x.fset.PositionFor(p, false).Line
}

func (x *extractor) add(n graphdb.Node) graphdb.NodeID {
	n.ID = x.ids.Unique(n.ID)
	n.Language = "go"
	n.File = x.sf.rel
	n.Test = x.sf.test
	n.Generated = x.sf.generated
	n.Testdata = x.sf.testdata
	x.cur.Nodes = append(x.cur.Nodes, n)
	return n.ID
}

func (x *extractor) edge(from, to graphdb.NodeID, kind graphdb.EdgeKind, line int) {
	x.cur.Edges = append(x.cur.Edges, graphdb.Edge{From: from, To: to, Kind: kind, File: x.sf.rel, Line: line})
}

// extract runs over every file of the package.
func (x *extractor) extract(files []*srcFile) {
	x.ids = map[graphdb.NodeID]int{}
	for _, sf := range files {
		x.sf = sf
		x.cur = &frontend.FileResult{Rec: graphdb.FileRecord{
			Path: sf.rel, Hash: sf.hash, Language: "go", Module: x.pkg.Path(), Size: sf.size, Errors: sf.errors,
		}}
		x.files = append(x.files, x.cur)
		x.file(sf)
	}
}

func (x *extractor) file(sf *srcFile) {
	f := sf.ast
	fid := x.add(graphdb.Node{
		ID: frontend.FileID(sf.rel), Kind: graphdb.KindFile, Name: path.Base(sf.rel), QName: sf.rel, Loc: sf.rel,
		StartLine: 1, EndLine: max(sf.lines, 1), Signature: "package " + f.Name.Name, Doc: docLine(f.Doc),
	})
	x.edge(fid, pkgID(x.pkg.Path()), graphdb.EdgeParent, 0)
	x.dotImports = false
	for _, imp := range f.Imports {
		if imp.Name != nil && imp.Name.Name == "." {
			x.dotImports = true
		}
		p, err := strconv.Unquote(imp.Path.Value)
		if err == nil && x.inRepo(p) {
			x.edge(fid, pkgID(p), graphdb.EdgeImports, x.line(imp.Pos()))
		}
	}
	initN := map[string]int{}
	var vars []*ast.GenDecl
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			x.funcDecl(fid, d, initN)
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				vars = append(vars, d)
			}
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				doc := ts.Doc
				if doc == nil && len(d.Specs) == 1 {
					doc = d.Doc
				}
				start := ts.Pos()
				if len(d.Specs) == 1 {
					start = d.Pos()
				}
				x.typeSpec(fid, ts, doc, start)
			}
		}
	}
	x.varInits(fid, vars)
}

// varInits gives the calls in the file's package-level variable
// initialisers (closures included) one synthetic caller: a function node
// standing for the file's share of the package initialiser, added only when
// there is at least one call edge. Its id ends in "#vars", which no init
// function's ordinal can be.
func (x *extractor) varInits(fid graphdb.NodeID, vars []*ast.GenDecl) {
	if len(vars) == 0 {
		return
	}
	pp := x.pkg.Path()
	id := VarInitID(pp, x.sf.rel)
	before := len(x.cur.Edges)
	start, end := 0, 0
	for _, d := range vars {
		calls := len(x.cur.Edges)
		for _, s := range d.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				x.callsIn(id, v)
			}
		}
		if len(x.cur.Edges) > calls {
			if start == 0 {
				start = x.line(d.Pos())
			}
			end = x.line(d.End())
		}
	}
	if len(x.cur.Edges) == before {
		return
	}
	x.add(graphdb.Node{
		ID: id, Kind: graphdb.KindFunction, Name: varInitName, QName: pp + ".init", Loc: x.sf.rel + ":init#vars",
		StartLine: start, EndLine: end,
		Attrs: map[string]string{graphdb.AttrSynthetic: "go.varinit"},
	})
	x.edge(id, fid, graphdb.EdgeParent, 0)
}

// varInitName is the Name of a file's synthetic variable-initialiser node.
const varInitName = "init (package variables)"

// receiverName returns the base type name of a method receiver expression.
func receiverName(e ast.Expr) string {
	if id, ok := baseTypeExpr(e).(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// baseTypeExpr strips pointers, parentheses and type arguments from a type
// expression: *T, (T), T[A], T[A, B] all give T.
func baseTypeExpr(e ast.Expr) ast.Expr {
	for {
		switch t := e.(type) {
		case *ast.StarExpr:
			e = t.X
		case *ast.ParenExpr:
			e = t.X
		case *ast.IndexExpr:
			e = t.X
		case *ast.IndexListExpr:
			e = t.X
		default:
			return e
		}
	}
}

func (x *extractor) funcDecl(fid graphdb.NodeID, d *ast.FuncDecl, initN map[string]int) {
	name := d.Name.Name
	pp := x.pkg.Path()
	n := graphdb.Node{
		Name: name, Exported: ast.IsExported(name), Doc: docLine(d.Doc),
		StartLine: x.line(d.Pos()), EndLine: x.line(d.End()), Signature: funcSignature(d),
	}
	var parent graphdb.NodeID
	if d.Recv == nil || len(d.Recv.List) == 0 {
		n.Kind, n.QName, n.Loc = graphdb.KindFunction, pp+"."+name, x.sf.rel+":"+name
		n.ID = symID(n.QName)
		if name == "init" || name == "_" {
			// Several per package and never called: the file and the
			// ordinal in the file make them unique and stable.
			initN[name]++
			n.ID = graphdb.NodeID(fmt.Sprintf("go:%s.%s#%s#%d", pp, name, x.sf.rel, initN[name]))
		}
		parent = fid
	} else {
		recv := receiverName(d.Recv.List[0].Type)
		if obj, ok := x.info.Defs[d.Name].(*types.Func); ok {
			if _, tn, ok := funcTarget(obj); ok && tn != "" {
				recv = tn // the real type behind an alias receiver
			}
		}
		n.Kind, n.SubKind = graphdb.KindMember, "method"
		n.QName, n.Loc = pp+"."+recv+"."+name, x.sf.rel+":"+recv+"."+name
		n.ID = symID(n.QName)
		parent = symID(pp + "." + recv)
	}
	id := x.add(n)
	x.edge(id, parent, graphdb.EdgeParent, 0)
	if obj, ok := x.info.Defs[d.Name].(*types.Func); ok {
		x.signatureEdges(id, obj.Type().(*types.Signature), n.StartLine)
	}
	if d.Body != nil {
		x.callsIn(id, d.Body)
	}
}

func (x *extractor) typeSpec(fid graphdb.NodeID, ts *ast.TypeSpec, doc *ast.CommentGroup, start token.Pos) {
	name := ts.Name.Name
	qn := x.pkg.Path() + "." + name
	sub := "named"
	switch {
	case ts.Assign.IsValid():
		sub = "alias"
	default:
		switch ts.Type.(type) {
		case *ast.StructType:
			sub = "struct"
		case *ast.InterfaceType:
			sub = "interface"
		}
	}
	id := x.add(graphdb.Node{
		ID: symID(qn), Kind: graphdb.KindType, SubKind: sub, Name: name, QName: qn, Loc: x.sf.rel + ":" + name,
		StartLine: x.line(start), EndLine: x.line(ts.End()), Signature: typeSignature(ts),
		Doc: docLine(doc), Exported: ast.IsExported(name), Attrs: methodSetAttrs(x.info.Defs[ts.Name]),
	})
	x.edge(id, fid, graphdb.EdgeParent, 0)
	switch t := ts.Type.(type) {
	case *ast.StructType:
		for _, fld := range t.Fields.List {
			line := x.line(fld.Pos())
			if len(fld.Names) == 0 { // embedded field
				fname := embeddedName(fld.Type)
				if tn := x.namedIn(x.typeExpr(fld.Type)); tn != nil {
					x.edge(id, symID(tn.Pkg().Path()+"."+tn.Name()), graphdb.EdgeInherits, line)
				} else if eid, ok := x.noteExternal(x.typeExpr(fld.Type)); ok {
					x.edge(id, eid, graphdb.EdgeInherits, line)
				}
				if fname != "" {
					x.field(id, qn, name, fname, fld, fld.Pos())
				}
				continue
			}
			for _, fn := range fld.Names {
				x.field(id, qn, name, fn.Name, fld, fn.Pos())
			}
		}
	case *ast.InterfaceType:
		for _, m := range t.Methods.List {
			if len(m.Names) == 0 { // embedded interface or type-set element
				if tn := x.namedIn(x.typeExpr(m.Type)); tn != nil && types.IsInterface(tn.Type()) {
					x.edge(id, symID(tn.Pkg().Path()+"."+tn.Name()), graphdb.EdgeInherits, x.line(m.Pos()))
				} else if eid, ok := x.noteExternal(x.typeExpr(m.Type)); ok {
					x.edge(id, eid, graphdb.EdgeInherits, x.line(m.Pos()))
				}
				continue
			}
			for _, mn := range m.Names {
				ft, _ := m.Type.(*ast.FuncType)
				sig := mn.Name
				if ft != nil {
					sig += strings.TrimPrefix(types.ExprString(ft), "func")
				}
				mid := x.add(graphdb.Node{
					ID: symID(qn + "." + mn.Name), Kind: graphdb.KindMember, SubKind: "method", Name: mn.Name,
					QName: qn + "." + mn.Name, Loc: x.sf.rel + ":" + name + "." + mn.Name,
					StartLine: x.line(m.Pos()), EndLine: x.line(m.End()), Signature: sig,
					Doc: docLine(m.Doc), Exported: ast.IsExported(mn.Name),
				})
				x.edge(mid, id, graphdb.EdgeParent, 0)
				if obj, ok := x.info.Defs[mn].(*types.Func); ok {
					x.signatureEdges(mid, obj.Type().(*types.Signature), x.line(m.Pos()))
				}
			}
		}
	}
}

func (x *extractor) field(typeID graphdb.NodeID, typeQN, typeName, fname string, fld *ast.Field, pos token.Pos) {
	fid := x.add(graphdb.Node{
		ID: symID(typeQN + "." + fname), Kind: graphdb.KindMember, SubKind: "field", Name: fname,
		QName: typeQN + "." + fname, Loc: x.sf.rel + ":" + typeName + "." + fname,
		StartLine: x.line(pos), EndLine: x.line(fld.End()), Signature: strings.TrimSpace(fieldName(fld, fname) + " " + types.ExprString(fld.Type)),
		Doc: docLine(fld.Doc), Exported: ast.IsExported(fname),
	})
	x.edge(fid, typeID, graphdb.EdgeParent, 0)
}

func fieldName(fld *ast.Field, name string) string {
	if len(fld.Names) == 0 {
		return ""
	}
	return name
}

// embeddedName is the field name of an embedded type: T, *T, pkg.T,
// T[A] all give "T".
func embeddedName(e ast.Expr) string {
	switch t := baseTypeExpr(e).(type) {
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.Ident:
		return t.Name
	}
	return ""
}

// typeExpr returns the type a type expression names, through Uses (the
// extractor records no Types map, which would cost a map entry per
// expression). Instantiations give the generic type; nil when unknown.
func (x *extractor) typeExpr(e ast.Expr) types.Type {
	switch t := e.(type) {
	case *ast.Ident:
		if tn, ok := x.info.Uses[t].(*types.TypeName); ok {
			return tn.Type()
		}
	case *ast.SelectorExpr:
		if tn, ok := x.info.Uses[t.Sel].(*types.TypeName); ok {
			return tn.Type()
		}
	case *ast.StarExpr:
		return x.typeExpr(t.X)
	case *ast.ParenExpr:
		return x.typeExpr(t.X)
	case *ast.IndexExpr:
		return x.typeExpr(t.X)
	case *ast.IndexListExpr:
		return x.typeExpr(t.X)
	}
	return nil
}

// namedIn returns the package-level named type (generic origin) that t is,
// after unwrapping aliases and one pointer; nil for anything else or for a
// type outside the repository.
func (x *extractor) namedIn(t types.Type) *types.TypeName {
	t = types.Unalias(t)
	if p, ok := t.(*types.Pointer); ok {
		t = types.Unalias(p.Elem())
	}
	return x.repoNamed(t)
}

func (x *extractor) repoNamed(t types.Type) *types.TypeName {
	n, ok := t.(*types.Named)
	if !ok {
		return nil
	}
	obj := n.Origin().Obj()
	if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() || !x.inRepo(obj.Pkg().Path()) {
		return nil
	}
	return obj
}

// signatureEdges adds returns (fn → type) and param_of (type → fn) for the
// named types in a signature, unwrapping pointers, slices, arrays, maps and
// channels.
func (x *extractor) signatureEdges(fn graphdb.NodeID, sig *types.Signature, line int) {
	seen := map[string]bool{}
	visit := func(tup *types.Tuple, kind graphdb.EdgeKind) {
		for i := 0; i < tup.Len(); i++ {
			forNamed(tup.At(i).Type(), func(t types.Type) {
				tn := x.repoNamed(t)
				if tn == nil {
					return
				}
				tid := symID(tn.Pkg().Path() + "." + tn.Name())
				key := string(kind) + string(tid)
				if seen[key] {
					return
				}
				seen[key] = true
				if kind == graphdb.EdgeReturns {
					x.edge(fn, tid, kind, line)
				} else {
					x.edge(tid, fn, kind, line)
				}
			})
		}
	}
	visit(sig.Params(), graphdb.EdgeParamOf)
	visit(sig.Results(), graphdb.EdgeReturns)
}

// forNamed calls fn with every named type reached by unwrapping containers.
func forNamed(t types.Type, fn func(types.Type)) {
	for depth := 0; depth < 16; depth++ {
		t = types.Unalias(t)
		switch u := t.(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		case *types.Array:
			t = u.Elem()
		case *types.Chan:
			t = u.Elem()
		case *types.Map:
			forNamed(u.Key(), fn)
			t = u.Elem()
		case *types.Named:
			fn(u)
			return
		default:
			return
		}
	}
}

// funcTarget returns the node id of a function or method object (its generic
// origin) and, for methods, the receiver's type name. ok is false for
// objects that have no node: builtins' methods (error.Error), methods of
// local types or unnamed interfaces, init and blank functions.
func funcTarget(fn *types.Func) (id graphdb.NodeID, recv string, ok bool) {
	fn = fn.Origin()
	pkg := fn.Pkg()
	if pkg == nil {
		return "", "", false
	}
	sig, _ := fn.Type().(*types.Signature)
	if sig == nil {
		return "", "", false
	}
	if r := sig.Recv(); r != nil {
		t := types.Unalias(r.Type())
		if p, ok := t.(*types.Pointer); ok {
			t = types.Unalias(p.Elem())
		}
		n, isNamed := t.(*types.Named)
		if !isNamed {
			return "", "", false
		}
		obj := n.Origin().Obj()
		if obj.Pkg() == nil || obj.Parent() != obj.Pkg().Scope() {
			return "", "", false
		}
		return symID(obj.Pkg().Path() + "." + obj.Name() + "." + fn.Name()), obj.Name(), true
	}
	if fn.Name() == "init" || fn.Name() == "_" || fn.Parent() != pkg.Scope() {
		return "", "", false
	}
	return symID(pkg.Path() + "." + fn.Name()), "", true
}

// callsIn records every static call in body (a function body or a
// variable initialiser; closures included) as a call from the enclosing
// declaration, and every declared function or method used there as a
// value without being called (F, pkg.F, x.M, T.M) as a reference.
func (x *extractor) callsIn(from graphdb.NodeID, body ast.Node) {
	aliases := x.funcAliases(body)
	// The function position of a call is handled by the CallExpr case,
	// which then walks only the operands: every Ident or SelectorExpr the
	// walk meets on its own is used as a value, not called.
	var visit func(n ast.Node) bool
	walk := func(n ast.Node) {
		if n != nil {
			ast.Inspect(n, visit)
		}
	}
	visit = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			fun := ast.Unparen(n.Fun)
			switch f := fun.(type) {
			case *ast.IndexExpr:
				fun = ast.Unparen(f.X)
			case *ast.IndexListExpr:
				fun = ast.Unparen(f.X)
			}
			var obj types.Object
			switch f := fun.(type) {
			case *ast.Ident:
				obj = x.info.Uses[f]
				if v, ok := obj.(*types.Var); ok && aliases[v] != nil {
					obj = aliases[v] // q := strconv.Quote; q(s)
				}
			case *ast.SelectorExpr:
				if sel := x.info.Selections[f]; sel != nil {
					if sel.Kind() != types.FieldVal { // a func-typed field is dynamic
						obj = sel.Obj()
					}
				} else {
					obj = x.info.Uses[f.Sel]
				}
				walk(f.X)
			default:
				walk(n.Fun)
			}
			if fn, ok := obj.(*types.Func); ok {
				x.call(from, fn, x.line(n.Lparen), false)
			}
			for _, a := range n.Args {
				walk(a)
			}
			return false
		case *ast.SelectorExpr:
			// Not called: a method value or expression, a qualified
			// function used as a value, or a field.
			sel := x.info.Selections[n]
			if sel == nil {
				if fn, ok := x.info.Uses[n.Sel].(*types.Func); ok {
					x.call(from, fn, x.line(n.Sel.Pos()), true) // pkg.F
				}
				walk(n.X)
				return false
			}
			if fn, ok := sel.Obj().(*types.Func); ok && sel.Kind() != types.FieldVal {
				x.call(from, fn, x.line(n.Sel.Pos()), true)
			}
			walk(n.X)
			return false
		case *ast.Ident:
			// A declared function used as a value: h := handle,
			// Register(handle), struct{fn: handle}. Only a name the
			// package scope declares as a function (or one a dot import
			// may bring) can be one: the small scope map filters the
			// identifiers before the large Uses map is probed.
			if !x.dotImports {
				if _, ok := x.pkg.Scope().Lookup(n.Name).(*types.Func); !ok {
					return true
				}
			}
			if fn, ok := x.info.Uses[n].(*types.Func); ok && fn.Type().(*types.Signature).Recv() == nil {
				x.call(from, fn, x.line(n.Pos()), true)
			}
		}
		return true
	}
	walk(body)
}

// funcAliases finds the local variables of body that are bound once to a
// declared function and never reassigned nor address-taken
// (q := strconv.Quote): a call through such a variable is a static call of
// that function, as SSA sees it.
func (x *extractor) funcAliases(body ast.Node) map[*types.Var]*types.Func {
	var aliases map[*types.Var]*types.Func
	invalid := map[*types.Var]bool{}
	bind := func(id *ast.Ident, val ast.Expr) {
		v, ok := x.info.Defs[id].(*types.Var)
		if !ok {
			return
		}
		if fn := x.funcRef(val); fn != nil {
			if aliases == nil {
				aliases = map[*types.Var]*types.Func{}
			}
			aliases[v] = fn
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range n.Lhs {
				id, ok := ast.Unparen(lhs).(*ast.Ident)
				if !ok {
					continue
				}
				if u, ok := x.info.Uses[id].(*types.Var); ok {
					invalid[u] = true // assigned again
					continue
				}
				if n.Tok == token.DEFINE && len(n.Rhs) == len(n.Lhs) {
					bind(id, n.Rhs[i])
				}
			}
		case *ast.ValueSpec:
			if len(n.Values) == len(n.Names) {
				for i, id := range n.Names {
					bind(id, n.Values[i])
				}
			}
		case *ast.UnaryExpr:
			if id, ok := ast.Unparen(n.X).(*ast.Ident); ok && n.Op == token.AND {
				if u, ok := x.info.Uses[id].(*types.Var); ok {
					invalid[u] = true
				}
			}
		}
		return true
	})
	for v := range invalid {
		delete(aliases, v)
	}
	return aliases
}

// funcRef returns the declared function an expression names (F, pkg.F),
// nil for anything else.
func (x *extractor) funcRef(e ast.Expr) *types.Func {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		if x.info.Selections[e] != nil {
			return nil
		}
		id = e.Sel
	default:
		return nil
	}
	fn, _ := x.info.Uses[id].(*types.Func)
	if fn == nil || fn.Type().(*types.Signature).Recv() != nil {
		return nil
	}
	return fn
}

func (x *extractor) call(from graphdb.NodeID, fn *types.Func, line int, ref bool) {
	id, _, ok := funcTarget(fn)
	if !ok || !x.inRepo(fn.Origin().Pkg().Path()) {
		if id, ok = x.externalMethod(fn); !ok {
			return
		}
	}
	kind := graphdb.EdgeCalls
	if ref {
		kind = graphdb.EdgeReferences
	}
	e := graphdb.Edge{From: from, To: id, Kind: kind, File: x.sf.rel, Line: line}
	x.cur.Edges = append(x.cur.Edges, e)
	iface := false
	if recv := fn.Origin().Type().(*types.Signature).Recv(); recv != nil {
		iface = types.IsInterface(recv.Type())
	}
	x.calls = append(x.calls, callSite{edge: e, ref: ref, iface: iface})
}

// docLine is the first line of a doc comment.
func docLine(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	return frontend.FirstLine(cg.Text())
}

// funcSignature renders a declaration's header as written:
// "func (s *Server) Serve(l net.Listener) error".
func funcSignature(d *ast.FuncDecl) string {
	var b strings.Builder
	b.WriteString("func ")
	if d.Recv != nil && len(d.Recv.List) > 0 {
		b.WriteString("(")
		b.WriteString(fieldList(d.Recv))
		b.WriteString(") ")
	}
	b.WriteString(d.Name.Name)
	if d.Type.TypeParams != nil && len(d.Type.TypeParams.List) > 0 {
		b.WriteString("[" + fieldList(d.Type.TypeParams) + "]")
	}
	b.WriteString(strings.TrimPrefix(types.ExprString(d.Type), "func"))
	return b.String()
}

func fieldList(fl *ast.FieldList) string {
	var parts []string
	for _, f := range fl.List {
		var names []string
		for _, n := range f.Names {
			names = append(names, n.Name)
		}
		s := types.ExprString(f.Type)
		if len(names) > 0 {
			s = strings.Join(names, ", ") + " " + s
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// typeSignature renders "type Server struct", "type Handler interface",
// "type A = B" or "type N int" (long underlying types are cut).
func typeSignature(ts *ast.TypeSpec) string {
	var b strings.Builder
	b.WriteString("type " + ts.Name.Name)
	if ts.TypeParams != nil && len(ts.TypeParams.List) > 0 {
		b.WriteString("[" + fieldList(ts.TypeParams) + "]")
	}
	if ts.Assign.IsValid() {
		b.WriteString(" =")
	}
	switch ts.Type.(type) {
	case *ast.StructType:
		b.WriteString(" struct")
	case *ast.InterfaceType:
		b.WriteString(" interface")
	default:
		s := types.ExprString(ts.Type)
		if len(s) > 120 {
			s = s[:117] + "..."
		}
		b.WriteString(" " + s)
	}
	return b.String()
}
