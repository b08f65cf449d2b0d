//go:build cgo

package python

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// sourceFile is what the extraction of one Python file yields: its owner
// (nodes and parent edges; the other edges are added by resolution) and
// the unresolved facts resolution needs.
type sourceFile struct {
	rel, module string
	isPkg       bool
	res         frontend.FileResult
	modNode     int // the module node's index in res.nodes
	scope       *moduleScope
	refs        []reference
	imports     []importStmt
}

// importStmt is one import statement: the modules it may name, most
// specific first (`from m import a` names m.a, then m).
type importStmt struct {
	mods []string
	line int
	from bool // from-import: mods ends with the statement's module
}

// reference is one reference to resolve: a call or a decorator, written as a
// dotted expression ("f", "mod.f", "self.m", "super().m", "Cls.m").
type reference struct {
	from   graphdb.NodeID
	kind   graphdb.EdgeKind
	expr   string
	line   int
	class  string // qname of the enclosing class (self/cls/super), "" outside
	decl   *decl  // enclosing function's locals; nil at module or class level
	module string // the module whose scope resolves the expression
	// implicit: a dunder method a construct calls (with, for, operators,
	// len()); resolved only through the value's type
	implicit bool
	prop     bool      // an attribute read: a call of the getter when it is a property
	args     []callArg // a call's arguments that may be function values (values.go)
}

// decl is what shadows module names inside one top-level function or
// method (nested functions included): names bound locally and imports made
// inside it.
type decl struct {
	locals  map[string]bool
	imports map[string]string // local name → absolute dotted target
	types   map[string]string // local name → vexpr (types.go)
	returns []string          // vexprs of the function's own return statements ("" for none)
	nested  map[string]bool   // functions defined in it
	params  map[string]bool   // the function's own parameters
	pcalls  []paramCall       // calls of a parameter (values.go)
}

// extractor walks one tree.
type extractor struct {
	src  []byte
	f    *sourceFile
	ids  frontend.IDCounts
	test bool
	// inMain: walking `if __name__ == "__main__":`, which runs after every
	// definition of the module, so its imports do not rebind what the
	// definitions' annotations name
	inMain bool
	up     *sitter.Parents // each node's parent (Node.Parent walks from the root)
}

// isTest reports whether rel is a test file: test_*.py, *_test.py,
// conftest.py, or a file under a tests/ or test/ directory.
func isTest(rel string) bool {
	base := path.Base(rel)
	if strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") || base == "conftest.py" {
		return true
	}
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if d == "tests" || d == "test" {
			return true
		}
	}
	return false
}

func moduleID(mod string) graphdb.NodeID  { return graphdb.NodeID("py:pkg:" + mod) }
func qnameID(qname string) graphdb.NodeID { return graphdb.NodeID("py:" + qname) }

// extract builds the sourceFile of one parsed file; up holds the tree's
// parents (indexTree). With root nil (a file not parsed) it has its file
// and module nodes only.
func extract(rel, module string, isPkg bool, src []byte, root *sitter.Node, up *sitter.Parents) *sourceFile {
	f := &sourceFile{rel: rel, module: module, isPkg: isPkg, scope: newModuleScope(module, rel)}
	f.res.Rec = graphdb.FileRecord{Path: rel, Hash: frontend.ContentHash(src), Language: "python", Module: module, Size: int64(len(src))}
	x := &extractor{src: src, f: f, ids: map[graphdb.NodeID]int{}, test: isTest(rel), up: up}
	lines := max(frontend.CountLines(src), 1)
	mid := moduleID(module)
	modNode := graphdb.Node{ID: mid, Kind: graphdb.KindModule, SubKind: "module", Name: module[strings.LastIndexByte(module, '.')+1:],
		QName: module, Loc: rel, File: rel, StartLine: 1, EndLine: lines, Exported: true, Doc: x.docstring(root)}
	if isPkg {
		modNode.SubKind = "package"
	}
	fid := frontend.FileID(rel)
	x.add(graphdb.Node{ID: fid, Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel, StartLine: 1, EndLine: lines, Doc: modNode.Doc})
	x.parent(fid, mid)
	if root != nil {
		x.body(root, mid, fid)
	}
	if root != nil && root.HasError() {
		x.f.res.Rec.Errors = append(x.f.res.Rec.Errors, sitter.SyntaxErrors(root)...)
	}
	modNode.Attrs = f.scope.attrs(f.imports)
	f.modNode = len(f.res.Nodes)
	x.add(modNode)
	return f
}

func (x *extractor) add(n graphdb.Node) graphdb.NodeID {
	n.ID = x.ids.Unique(n.ID)
	n.Language, n.File = "python", x.f.rel
	n.Test, n.Testdata = x.test, frontend.IsTestdata(x.f.rel)
	x.f.res.Nodes = append(x.f.res.Nodes, n)
	return n.ID
}

func (x *extractor) parent(from, to graphdb.NodeID) {
	x.f.res.Edges = append(x.f.res.Edges, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeParent, File: x.f.rel})
}

func (x *extractor) text(n *sitter.Node) string { return n.Utf8Text(x.src) }

// parentOf is n's parent, nil for the root.
func (x *extractor) parentOf(n *sitter.Node) *sitter.Node { return x.up.Of(n) }

// docstring returns the first line of the docstring of a module, class or
// function body.
func (x *extractor) docstring(body *sitter.Node) string {
	if body == nil {
		return ""
	}
	for _, st := range sitter.Children(body) {
		if st.Kind() == "comment" {
			continue
		}
		if st.Kind() != "expression_statement" || st.NamedChildCount() == 0 || st.NamedChild(0).Kind() != "string" {
			return ""
		}
		s := strings.TrimLeft(x.text(st.NamedChild(0)), "rRbBuUfF")
		for _, q := range []string{`"""`, `'''`, `"`, `'`} {
			if strings.HasPrefix(s, q) {
				s = strings.TrimSuffix(strings.TrimPrefix(s, q), q)
				break
			}
		}
		for _, l := range strings.Split(s, "\n") {
			if l = strings.TrimSpace(l); l != "" {
				return l
			}
		}
		return ""
	}
	return ""
}

// signature is the def/class header without its body, whitespace collapsed.
func (x *extractor) signature(def *sitter.Node) string {
	body := fieldChild(def, "body")
	end := def.EndByte()
	if body != nil {
		end = body.StartByte()
	}
	s := strings.Join(strings.Fields(string(x.src[def.StartByte():end])), " ")
	return strings.TrimSuffix(s, ":")
}

// body walks a module-level block: declarations become nodes, other
// statements' references belong to owner (the module node).
func (x *extractor) body(block *sitter.Node, owner, fid graphdb.NodeID) {
	for _, st := range sitter.Children(block) {
		switch st.Kind() {
		case "function_definition", "class_definition", "decorated_definition":
			x.topDecl(st, fid)
		case "if_statement", "try_statement", "with_statement", "for_statement", "while_statement",
			"elif_clause", "else_clause", "except_clause", "finally_clause", "block":
			// Declarations under module-level control flow are module
			// level too; the conditions are module code.
			if st.Kind() == "if_statement" && x.isMainCheck(fieldChild(st, "condition")) {
				x.inMain = true
				defer func() { x.inMain = false }()
			}
			for _, c := range sitter.Children(st) {
				switch c.Kind() {
				case "block", "elif_clause", "else_clause", "except_clause", "finally_clause":
					x.body(c, owner, fid)
				default:
					x.refsIn(c, st, owner, "", nil)
				}
			}
		case "import_statement", "import_from_statement", "future_import_statement":
			x.importStmt(st, nil)
		default:
			if st.Kind() == "expression_statement" && st.NamedChildCount() > 0 {
				if a := st.NamedChild(0); a.Kind() == "assignment" {
					x.assignTypes(a, nil, x.f.scope.vars, nil)
				}
			}
			x.refs(st, owner, "", nil)
		}
	}
}

// isMainCheck reports whether cond is `__name__ == "__main__"`.
func (x *extractor) isMainCheck(cond *sitter.Node) bool {
	if cond == nil {
		return false
	}
	t := strings.Join(strings.Fields(x.text(cond)), "")
	return t == `__name__=="__main__"` || t == `__name__=='__main__'`
}

// unwrap splits a decorated_definition into its decorators and definition.
func unwrap(st *sitter.Node) (def *sitter.Node, decorators []*sitter.Node) {
	if st.Kind() != "decorated_definition" {
		return st, nil
	}
	for _, c := range sitter.Children(st) {
		if c.Kind() == "decorator" {
			decorators = append(decorators, c)
		}
	}
	return fieldChild(st, "definition"), decorators
}

// topDecl adds a module-level function or class.
func (x *extractor) topDecl(st *sitter.Node, fid graphdb.NodeID) {
	def, decs := unwrap(st)
	if def == nil || fieldChild(def, "name") == nil {
		return
	}
	name := x.text(fieldChild(def, "name"))
	qname := x.f.module + "." + name
	n := graphdb.Node{ID: qnameID(qname), Name: name, QName: qname, Loc: x.f.rel + ":" + name,
		StartLine: sitter.Line(st), EndLine: sitter.EndLine(st), Signature: x.signature(def),
		Doc: x.docstring(fieldChild(def, "body")), Exported: !strings.HasPrefix(name, "_")}
	if def.Kind() == "class_definition" {
		n.Kind, n.SubKind = graphdb.KindType, "class"
		cls := newClassInfo(qname)
		if sc := fieldChild(def, "superclasses"); sc != nil {
			for _, b := range sitter.Children(sc) {
				if e := x.dotted(b); e != "" {
					cls.baseExprs = append(cls.baseExprs, e)
				}
			}
		}
		if len(cls.baseExprs) > 0 {
			n.Attrs = map[string]string{"py.bases": strings.Join(cls.baseExprs, "\n")}
		}
		idx := len(x.f.res.Nodes)
		id := x.add(n)
		cls.id = id
		x.parent(id, fid)
		x.f.scope.define(name, id, cls, "", fnInfo{})
		x.decorators(decs, id, "")
		if sc := fieldChild(def, "superclasses"); sc != nil {
			x.refs(sc, id, "", nil) // keyword arguments such as metaclass=f(...)
		}
		x.classBody(fieldChild(def, "body"), cls)
		x.setAttr(idx, attrAttrs, typedAttrs(cls.attrs))
		cls.fields = x.namedTupleFields(def, cls.baseExprs)
		x.setAttr(idx, attrFields, strings.Join(cls.fields, "\n"))
		return
	}
	n.Kind = graphdb.KindFunction
	idx := len(x.f.res.Nodes)
	id := x.add(n)
	x.parent(id, fid)
	x.decorators(decs, id, "")
	d := x.function(def, id, "", nil)
	ret := x.returnType(def, d)
	fn := x.fnInfo(def, decs, d, false)
	if len(fn.decos) > 0 {
		ret = "" // a decorator may replace the function and its result
	}
	x.f.scope.define(name, id, nil, ret, fn)
	x.setAttr(idx, attrRet, ret)
	fn.attrs(func(k, v string) { x.setAttr(idx, k, v) })
}

// setAttr sets an Attr of the node at index idx; an empty v sets nothing.
func (x *extractor) setAttr(idx int, k, v string) {
	if v == "" {
		return
	}
	n := &x.f.res.Nodes[idx]
	if n.Attrs == nil {
		n.Attrs = map[string]string{}
	}
	n.Attrs[k] = v
}

// classBody adds the methods of a module-level class; other statements
// (class attributes, nested classes) belong to the class node.
func (x *extractor) classBody(body *sitter.Node, cls *classInfo) {
	if body == nil {
		return
	}
	var walk func(block *sitter.Node)
	walk = func(block *sitter.Node) {
		for _, st := range sitter.Children(block) {
			def, decs := unwrap(st)
			if def == nil {
				continue
			}
			switch {
			case def.Kind() == "function_definition" && fieldChild(def, "name") != nil:
				name := x.text(fieldChild(def, "name"))
				loc := cls.qname[len(x.f.module)+1:] + "." + name
				n := graphdb.Node{ID: qnameID(cls.qname + "." + name), Kind: graphdb.KindMember, SubKind: "method", Name: name,
					QName: cls.qname + "." + name, Loc: x.f.rel + ":" + loc, StartLine: sitter.Line(st), EndLine: sitter.EndLine(st),
					Signature: x.signature(def), Doc: x.docstring(fieldChild(def, "body")),
					Exported: !strings.HasPrefix(name, "_") || strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")}
				for _, d := range decs {
					switch t := x.decoratorExpr(d); t {
					case "staticmethod", "classmethod", "property":
						n.Attrs = map[string]string{"py.method": t}
					}
				}
				idx := len(x.f.res.Nodes)
				id := x.add(n)
				x.parent(id, cls.id)
				x.decorators(decs, id, cls.qname)
				d := x.function(def, id, cls.qname, cls)
				ret := x.returnType(def, d)
				fn := x.fnInfo(def, decs, d, true)
				if len(fn.decos) > 0 {
					ret = ""
				}
				fn.attrs(func(k, v string) { x.setAttr(idx, k, v) })
				if _, dup := cls.methods[name]; !dup {
					cls.methods[name] = id
					if ret != "" {
						cls.rets[name] = ret
					}
					if n.Attrs["py.method"] == "property" {
						cls.props[name] = true
					}
					if len(fn.decos) > 0 || len(fn.pcalls) > 0 {
						cls.fns[name] = fn
					}
				}
				x.setAttr(idx, attrRet, ret)
			case def.Kind() == "if_statement" || def.Kind() == "try_statement":
				for _, c := range sitter.Children(def) {
					switch c.Kind() {
					case "block":
						walk(c)
					case "elif_clause", "else_clause", "except_clause", "finally_clause":
						for _, b := range sitter.Children(c) {
							if b.Kind() == "block" {
								walk(b)
							} else {
								x.refsIn(b, c, cls.id, cls.qname, nil)
							}
						}
					default:
						x.refsIn(c, def, cls.id, cls.qname, nil)
					}
				}
			default:
				if st.Kind() == "expression_statement" && st.NamedChildCount() > 0 {
					if a := st.NamedChild(0); a.Kind() == "assignment" {
						x.assignTypes(a, nil, cls.attrs, nil)
					}
				}
				x.refs(st, cls.id, cls.qname, nil)
			}
		}
	}
	walk(body)
}

// decoratorExpr is a decorator's callee as a dotted name ("" when it is not
// one): @f, @mod.f, @f(args) → f.
func (x *extractor) decoratorExpr(d *sitter.Node) string {
	if d.NamedChildCount() == 0 {
		return ""
	}
	e := d.NamedChild(0)
	if e.Kind() == "call" {
		e = fieldChild(e, "function")
	}
	return x.dotted(e)
}

// decorators records decorated_by references of id and, since applying a
// decorator calls it, calls from the enclosing scope: the module, or the
// class (class names its qname) for methods.
func (x *extractor) decorators(decs []*sitter.Node, id graphdb.NodeID, class string) {
	scope := moduleID(x.f.module)
	if class != "" {
		scope = qnameID(class)
		if c := x.f.scope.defs[class[len(x.f.module)+1:]].cls; c != nil {
			scope = c.id
		}
	}
	for _, d := range decs {
		if e := x.decoratorExpr(d); e != "" {
			x.f.refs = append(x.f.refs, reference{from: id, kind: graphdb.EdgeDecoratedBy, expr: e, line: sitter.Line(d), module: x.f.module},
				reference{from: scope, kind: graphdb.EdgeCalls, expr: e, line: sitter.Line(d), class: class, module: x.f.module})
		}
		if d.NamedChildCount() > 0 && d.NamedChild(0).Kind() == "call" {
			x.refs(fieldChild(d.NamedChild(0), "arguments"), id, class, nil)
		}
	}
}

// function walks a function or method body: its calls (nested functions
// and classes included) belong to id.
// cls, when non-nil, receives the types of the `self.x` attributes the
// body assigns.
func (x *extractor) function(def *sitter.Node, id graphdb.NodeID, class string, cls *classInfo) *decl {
	d := &decl{locals: map[string]bool{}, imports: map[string]string{}, types: map[string]string{}}
	var attrs map[string]string
	if cls != nil {
		attrs = cls.attrs
	}
	x.locals(def, d, true, attrs)
	d.params = map[string]bool{}
	for _, p := range x.paramList(def, class != "") { // not self or cls
		d.params[strings.TrimPrefix(p, "*")] = true
	}
	if p := fieldChild(def, "parameters"); p != nil {
		x.refs(p, id, class, d) // default values
	}
	x.refs(fieldChild(def, "body"), id, class, d)
	return d
}

// locals collects the names a function binds (parameters, assignment and
// loop targets, with/except aliases, nested definitions, imports), nested
// functions included, minus names declared global or nonlocal.
func (x *extractor) locals(n *sitter.Node, d *decl, top bool, attrs map[string]string) {
	l := &localScope{x: x, d: d, attrs: attrs}
	l.walk(n, nil, top)
	for _, g := range l.globals {
		delete(d.locals, g)
		delete(d.types, g)
	}
	for name := range d.types {
		if !d.locals[name] {
			delete(d.types, name) // an import rebinds it
		}
	}
}

// localScope is one walk of locals.
type localScope struct {
	x       *extractor
	d       *decl
	attrs   map[string]string // self.x types, for methods
	globals []string
	nested  int // depth of nested definitions: their returns are not the function's
}

func (l *localScope) bind(t *sitter.Node) {
	if t == nil {
		return
	}
	switch t.Kind() {
	case "identifier":
		l.d.locals[l.x.text(t)] = true
	case "pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "list_splat_pattern", "parenthesized_expression", "as_pattern_target":
		for _, c := range sitter.Children(t) {
			l.bind(c)
		}
	}
}

func (l *localScope) walk(n, parent *sitter.Node, top bool) {
	x, d := l.x, l.d
	kind := n.Kind()
	if !top && (kind == "function_definition" || kind == "class_definition") {
		l.nested++
		defer func() { l.nested-- }()
	}
	switch kind {
	case "return_statement":
		if l.nested == 0 {
			v := ""
			if n.NamedChildCount() > 0 {
				v = x.valueType(n.NamedChild(0))
			}
			d.returns = append(d.returns, v)
		}
	case "function_definition", "class_definition":
		if !top {
			l.bind(fieldChild(n, "name"))
			if kind == "function_definition" && fieldChild(n, "name") != nil {
				if d.nested == nil {
					d.nested = map[string]bool{}
				}
				d.nested[x.text(fieldChild(n, "name"))] = true
			}
			if kind == "class_definition" {
				break
			}
		}
		l.params(fieldChild(n, "parameters"))
	case "lambda":
		return // its parameters are its own
	case "assignment", "augmented_assignment":
		l.bind(fieldChild(n, "left"))
		x.assignTypes(n, d, d.types, l.attrs)
	case "for_statement", "for_in_clause":
		l.bind(fieldChild(n, "left"))
		if left := fieldChild(n, "left"); left != nil {
			ty := unknownType
			if v := x.valueType(fieldChild(n, "right")); strings.HasPrefix(v, "v:") {
				ty = "e:" + v[2:]
			} else if strings.HasPrefix(v, "l:") {
				ty = "e:" + v
			}
			x.bindTarget(d.types, left, ty)
		}
	case "named_expression":
		l.bind(fieldChild(n, "name"))
		if nm := fieldChild(n, "name"); nm != nil {
			bindType(d.types, x.text(nm), x.valueType(fieldChild(n, "value")))
		}
	case "as_pattern", "with_item":
		if a := fieldChild(n, "alias"); a != nil {
			l.bind(a)
			x.withAliasType(n, parent, a, d)
		}
	case "except_clause":
		for _, c := range sitter.Children(n) {
			if c.Kind() == "as_pattern" {
				l.bind(fieldChild(c, "alias"))
			}
		}
	case "global_statement", "nonlocal_statement":
		for _, c := range sitter.Children(n) {
			l.globals = append(l.globals, x.text(c))
		}
	case "import_statement", "import_from_statement":
		x.importStmt(n, d)
		return
	}
	for _, c := range sitter.Children(n) {
		l.walk(c, n, false)
	}
}

// params binds a definition's parameters with their annotated types.
func (l *localScope) params(p *sitter.Node) {
	if p == nil {
		return
	}
	x, d := l.x, l.d
	for _, c := range sitter.Children(p) {
		switch c.Kind() {
		case "identifier":
			l.bind(c)
			bindType(d.types, x.text(c), unknownType)
		case "default_parameter", "typed_default_parameter":
			l.bind(fieldChild(c, "name"))
			bindType(d.types, x.text(fieldChild(c, "name")), x.annType(fieldChild(c, "type")))
		case "typed_parameter":
			for _, cc := range sitter.Children(c) {
				if cc.Kind() == "identifier" {
					l.bind(cc)
					bindType(d.types, x.text(cc), x.annType(fieldChild(c, "type")))
					break
				}
			}
		default: // *args, **kwargs
			for _, cc := range sitter.Children(c) {
				if cc.Kind() == "identifier" {
					l.bind(cc)
					bindType(d.types, x.text(cc), unknownType)
					break
				}
			}
		}
	}
}

// refs collects the calls under n, made by owner.
func (x *extractor) refs(n *sitter.Node, owner graphdb.NodeID, class string, d *decl) {
	x.refsIn(n, nil, owner, class, d)
}

// refsIn is refs with n's parent when the walk knows it (nil: looked up).
func (x *extractor) refsIn(n, parent *sitter.Node, owner graphdb.NodeID, class string, d *decl) {
	if n == nil {
		return
	}
	kind := n.Kind()
	if kind == "call" {
		if e := x.dotted(fieldChild(n, "function")); e != "" {
			x.f.refs = append(x.f.refs, reference{from: owner, kind: graphdb.EdgeCalls, expr: e, line: sitter.Line(n), class: class, decl: d, module: x.f.module,
				args: x.callArgs(fieldChild(n, "arguments"))})
			if d != nil && d.params[e] {
				d.pcalls = append(d.pcalls, paramCall{param: e, line: sitter.Line(n)})
			}
		}
	}
	x.implicit(n, kind, owner, class, d)
	x.valueRefs(n, kind, owner, class, d)
	if kind == "attribute" {
		p := parent
		if p == nil {
			p = x.parentOf(n)
		}
		if p == nil || p.Kind() != "call" && !(p.Kind() == "assignment" && fieldChild(p, "left") != nil && fieldChild(p, "left").Equals(*n)) {
			if e := x.dotted(n); e != "" && strings.Contains(e, ".") {
				x.f.refs = append(x.f.refs, reference{from: owner, kind: graphdb.EdgeCalls, expr: e, line: sitter.Line(n), class: class, decl: d, module: x.f.module, prop: true})
			}
		}
	}
	if d == nil && (kind == "import_statement" || kind == "import_from_statement") {
		x.importStmt(n, nil)
		return
	}
	for _, c := range sitter.Children(n) {
		x.refsIn(c, n, owner, class, d)
	}
}

// dotted renders identifier and attribute chains ("a.b.c"),
// super()/super(C, self) attributes ("super().m", "super(C).m"), and calls and
// subscripts of such chains ("get()", "get()()", "HANDLERS[]",
// "self.fns[]()"); "" for anything else.
func (x *extractor) dotted(n *sitter.Node) string { return x.dottedIn(n, sitter.MaxDottedParts) }

// dottedIn is dotted for a chain of at most parts links.
func (x *extractor) dottedIn(n *sitter.Node, parts int) string {
	if n == nil || parts == 0 {
		return ""
	}
	switch n.Kind() {
	case "identifier":
		return x.text(n)
	case "call", "subscript":
		field, suffix := "function", "()"
		if n.Kind() == "subscript" {
			field, suffix = "value", "[]"
			for _, c := range sitter.Children(n)[1:] {
				if c.Kind() == "slice" {
					suffix = "" // xs[1:] is a container like xs
				}
			}
		}
		if e := x.dottedIn(fieldChild(n, field), parts-1); e != "" && !strings.HasPrefix(e, "super(") {
			return e + suffix
		}
	case "attribute":
		obj, attr := fieldChild(n, "object"), fieldChild(n, "attribute")
		if attr == nil || obj == nil {
			return ""
		}
		if obj.Kind() == "call" {
			f := fieldChild(obj, "function")
			if f != nil && f.Kind() == "identifier" && x.text(f) == "super" {
				return x.superOf(obj) + "." + x.text(attr)
			}
			// make().m: the call's value, resolved through its type
			if fe := x.dottedIn(f, parts-1); fe != "" && !strings.HasPrefix(fe, "super(") {
				return fe + "()." + x.text(attr)
			}
			return ""
		}
		if o := x.dottedIn(obj, parts-1); o != "" && !strings.HasPrefix(o, "super(") {
			return o + "." + x.text(attr)
		}
	}
	return ""
}

// superOf renders a super call: "super()" without arguments, "super(C)"
// for super(C, obj) with C a plain name (the lookup starts after C in the
// method resolution order), and "super(?)" for any other argument list,
// which resolves to nothing rather than to a guess.
func (x *extractor) superOf(call *sitter.Node) string {
	var args []*sitter.Node
	if al := fieldChild(call, "arguments"); al != nil {
		for _, c := range sitter.Children(al) {
			if c.IsNamed() && c.Kind() != "comment" {
				args = append(args, c)
			}
		}
	}
	switch {
	case len(args) == 0:
		return "super()"
	case len(args) == 2 && args[0].Kind() == "identifier":
		return "super(" + x.text(args[0]) + ")"
	}
	return "super(?)"
}
