//go:build cgo

package java

import (
	"strconv"
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// invocation records the call a method invocation makes.
func (w *walker) invocation(n *sitter.Node) {
	nm := n.ChildByFieldName("name")
	if nm == nil {
		return
	}
	argNodes, args := w.args(n)
	ts, recv, found := w.targets(n, args)
	if found {
		if len(ts) == 1 {
			w.lambdaParams(ts[0], argNodes, recv)
		}
		w.calls(ts, sitter.Line(nm))
		return
	}
	if recv.known || recv.ext {
		return // a receiver outside the repository
	}
	w.byName(w.x.text(nm), len(args), sitter.Line(nm))
}

// byName records the repository methods named name that take nargs
// arguments as candidates of a call whose receiver is not evident.
func (w *walker) byName(name string, nargs, ln int) {
	if w.l.byName != nil {
		w.l.byName[byNameKey(name, nargs)] = true
	}
	for _, c := range w.l.byNameCands(name, nargs) {
		w.edge(graphdb.EdgeCallsByName, c, ln)
	}
}

// targets resolves a method invocation: the chosen methods, the receiver
// and whether the receiver's type (or the enclosing classes, or a static
// import) has methods of that name.
func (w *walker) targets(n *sitter.Node, args []value) ([]methodRef, value, bool) {
	name := w.x.text(n.ChildByFieldName("name"))
	obj := n.ChildByFieldName("object")
	if obj == nil {
		for c := w.cls; c != nil; c = w.l.enclosing(c) {
			if ms := w.l.findMethods(c, name, len(args)); len(ms.refs) > 0 {
				return w.l.choose(ms, args), value{t: c, known: true}, true
			}
		}
		for _, q := range w.sc.Static[name] {
			if t := w.l.use(w.l.tab.types[q]); t != nil {
				if ms := w.l.findMethods(t, name, len(args)); len(ms.refs) > 0 {
					return w.l.choose(ms, args), value{t: t, known: true, static: true}, true
				}
			}
		}
		for _, q := range w.sc.SDemand {
			if t := w.l.use(w.l.tab.types[q]); t != nil {
				if ms := w.l.findMethods(t, name, len(args)); len(ms.refs) > 0 {
					return w.l.choose(ms, args), value{t: t, known: true, static: true}, true
				}
			}
		}
		return nil, value{known: w.externalScope(name)}, false
	}
	var recv value
	if obj.Kind() == "super" {
		recv = w.superVal()
	} else {
		recv = w.typeOf(obj)
	}
	if recv.t == nil || recv.dims > 0 {
		if recv.dims > 0 {
			recv.known = true
		}
		return nil, recv, false
	}
	ms := w.l.findMethods(recv.t, name, len(args))
	if len(ms.refs) == 0 {
		recv.known = true // the type is the repository's; the method comes from outside
		return nil, recv, false
	}
	return w.l.choose(ms, args), recv, true
}

// superVal is the value of `super`: the superclass of the current class.
func (w *walker) superVal() value {
	if w.cls == nil {
		return value{}
	}
	for _, s := range w.l.supers(w.cls) {
		if s.Kind != "interface" || w.cls.Kind == "interface" {
			return value{t: s, known: true}
		}
	}
	return value{known: w.cls.Super != ""}
}

// creation records the constructor call of `new C(…)`, and walks an
// anonymous class body as part of the enclosing code.
func (w *walker) creation(n *sitter.Node) {
	if o := n.ChildByFieldName("object"); o != nil {
		w.walk(o)
	}
	for _, c := range sitter.Children(n) {
		if c.Kind() == "argument_list" {
			w.walk(c)
		}
	}
	_, args := w.args(n)
	tv := w.declType(w.x.text(n.ChildByFieldName("type")))
	ln := sitter.Line(n)
	if tv.t != nil && tv.t.ID != "" && tv.t.Kind != "interface" {
		w.ctorCall(tv.t, args, ln)
	}
	var body *sitter.Node
	for _, c := range sitter.Children(n) {
		if c.Kind() == "class_body" {
			body = c
		}
	}
	if body != nil {
		w.anonymous(body, tv, w.x.text(n.ChildByFieldName("type")))
	}
}

// anonymous walks an anonymous class body: a class whose supertype is
// super, local to the enclosing code.
func (w *walker) anonymous(body *sitter.Node, super value, written string) {
	w.anon++
	t := &typeDef{Q: w.cls.Q + "$" + strconv.Itoa(w.anon), Kind: "class", Fields: map[string]*fieldDef{}, scope: w.sc, outer: w.cls, anon: true}
	if super.t != nil && super.t.Kind == "interface" {
		t.Ifaces = []string{written}
	} else {
		t.Super = written
	}
	w.localBody(body, t)
}

// localClass walks a class declared inside a method.
func (w *walker) localClass(n *sitter.Node) {
	name := w.x.text(n.ChildByFieldName("name"))
	t := w.x.typeShape(n, name, w.cls)
	t.Q, t.outer = w.cls.Q+"$"+name, w.cls
	w.declare(name, value{t: t, known: true, static: true})
	w.localBody(n, t)
}

// localBody extracts the members of a local or anonymous class and walks
// their code with the current locals in scope (they may capture them).
func (w *walker) localBody(n *sitter.Node, t *typeDef) {
	saved := len(w.x.f.bodies)
	w.x.members(n, t, true)
	bodies := append([]codeBody(nil), w.x.f.bodies[saved:]...)
	w.x.f.bodies = w.x.f.bodies[:saved]
	cls, m := w.cls, w.m
	for _, b := range bodies {
		w.cls, w.m = t, b.m
		w.push()
		if b.implicit {
			w.implicitSuper(nameLine(b.n))
			w.pop()
			continue
		}
		if b.m != nil {
			w.params(b.decl, b.m)
		}
		if b.ctor && !hasCtorCall(b.n) {
			w.implicitSuper(sitter.Line(b.n))
		}
		w.walk(b.n)
		w.pop()
	}
	w.cls, w.m = cls, m
}

// explicitCtor records this(…) or super(…).
func (w *walker) explicitCtor(n *sitter.Node) {
	_, args := w.args(n)
	c := n.ChildByFieldName("constructor")
	if c == nil || w.cls == nil {
		return
	}
	if c.Kind() == "this" {
		w.ctorCall(w.cls, args, sitter.Line(n))
		return
	}
	if w.cls.Kind == "enum" {
		return
	}
	if s := w.superVal(); s.t != nil {
		w.ctorCall(s.t, args, sitter.Line(n))
	}
}

// enumConstant records the constructor call an enum constant makes, and
// walks its arguments and class body.
func (w *walker) enumConstant(n *sitter.Node) {
	if a := n.ChildByFieldName("arguments"); a != nil {
		w.walk(a)
	}
	_, args := w.args(n)
	w.ctorCall(w.cls, args, sitter.Line(n))
	if b := n.ChildByFieldName("body"); b != nil {
		w.anonymous(b, value{t: w.cls, known: true}, simpleName(w.cls.Q))
	}
}

// typeOf is the static type of an expression, as far as it is evident.
func (w *walker) typeOf(n *sitter.Node) value {
	if n == nil {
		return value{}
	}
	if v, ok := w.types[n.Id()]; ok {
		return v
	}
	if !w.enter(n) {
		return value{}
	}
	v := w.typeOfNode(n)
	w.leave()
	w.types[n.Id()] = v
	return v
}

func (w *walker) typeOfNode(n *sitter.Node) value {
	switch n.Kind() {
	case "identifier":
		return w.ident(w.x.text(n))
	case "this":
		return value{t: w.cls, known: w.cls != nil}
	case "parenthesized_expression":
		if n.NamedChildCount() > 0 {
			return w.typeOf(n.NamedChild(0))
		}
	case "field_access":
		return w.fieldAccess(n)
	case "method_invocation":
		_, args := w.args(n)
		ts, recv, ok := w.targets(n, args)
		if ok && len(ts) == 1 {
			return w.l.retValArgs(ts[0], recv, args)
		}
		if !ok && (recv.known || recv.ext) {
			return value{ext: true} // a method from outside the repository
		}
	case "object_creation_expression", "cast_expression":
		return w.declType(w.x.text(n.ChildByFieldName("type")))
	case "array_creation_expression":
		v := w.declType(w.x.text(n.ChildByFieldName("type")))
		for _, c := range sitter.Children(n) {
			if c.Kind() == "dimensions_expr" {
				v.dims++
			} else if c.Kind() == "dimensions" {
				v.dims += strings.Count(w.x.text(c), "[")
			}
		}
		return v
	case "array_access":
		v := w.typeOf(n.ChildByFieldName("array"))
		if v.dims > 0 {
			v.dims--
			return v
		}
	case "ternary_expression":
		if v := w.typeOf(n.ChildByFieldName("consequence")); v.known && v.prim != "null" {
			return v
		}
		return w.typeOf(n.ChildByFieldName("alternative"))
	case "assignment_expression":
		return w.typeOf(n.ChildByFieldName("left"))
	default:
		return w.literal(n)
	}
	return value{}
}

// literal types literals and operators.
func (w *walker) literal(n *sitter.Node) value {
	switch k := n.Kind(); k {
	case "string_literal", "text_block":
		return w.stringVal()
	case "decimal_integer_literal", "hex_integer_literal", "octal_integer_literal", "binary_integer_literal":
		if s := w.x.text(n); strings.HasSuffix(s, "L") || strings.HasSuffix(s, "l") {
			return value{prim: "long", known: true}
		}
		return value{prim: "int", known: true}
	case "decimal_floating_point_literal", "hex_floating_point_literal":
		if s := w.x.text(n); strings.HasSuffix(s, "f") || strings.HasSuffix(s, "F") {
			return value{prim: "float", known: true}
		}
		return value{prim: "double", known: true}
	case "true", "false", "instanceof_expression":
		return value{prim: "boolean", known: true}
	case "character_literal":
		return value{prim: "char", known: true}
	case "null_literal":
		return value{prim: "null", known: true}
	case "class_literal":
		return w.declType("Class")
	case "binary_expression":
		switch op := n.ChildByFieldName("operator"); w.x.text(op) {
		case "==", "!=", "<", ">", "<=", ">=", "&&", "||":
			return value{prim: "boolean", known: true}
		case "+":
			l, r := w.typeOf(n.ChildByFieldName("left")), w.typeOf(n.ChildByFieldName("right"))
			if l.prim == "String" || r.prim == "String" || l.t != nil && l.t.Q == "java.lang.String" || r.t != nil && r.t.Q == "java.lang.String" {
				return w.stringVal()
			}
			return binaryNumeric(l, r)
		default:
			return binaryNumeric(w.typeOf(n.ChildByFieldName("left")), w.typeOf(n.ChildByFieldName("right")))
		}
	case "unary_expression", "update_expression":
		if n.NamedChildCount() > 0 {
			return w.typeOf(n.NamedChild(0))
		}
	}
	return value{}
}

// binaryNumeric is the type of a numeric binary operation
// (binary numeric promotion).
func binaryNumeric(l, r value) value {
	if l.prim == "" || r.prim == "" || l.dims > 0 || r.dims > 0 {
		return value{}
	}
	for _, p := range []string{"double", "float", "long"} {
		if l.prim == p || r.prim == p {
			return value{prim: p, known: true}
		}
	}
	if l.prim == "boolean" {
		return l
	}
	return value{prim: "int", known: true}
}

func (w *walker) stringVal() value {
	if t := w.l.use(w.l.tab.types["java.lang.String"]); t != nil {
		return value{t: t, known: true}
	}
	return value{prim: "String", known: true}
}

// ident types a simple name: a local, a field of the enclosing classes, a
// statically imported field, a type (static access).
func (w *walker) ident(name string) value {
	if v, ok := w.local(name); ok {
		return v
	}
	for c := w.cls; c != nil; c = w.l.enclosing(c) {
		if f, owner := w.l.field(c, name); f != nil {
			return w.l.typeVal(owner.scope, owner, f.Type, nil, value{})
		}
	}
	for _, q := range w.sc.Static[name] {
		if t := w.l.use(w.l.tab.types[q]); t != nil {
			if f, owner := w.l.field(t, name); f != nil {
				return w.l.typeVal(owner.scope, owner, f.Type, nil, value{})
			}
		}
	}
	var mtps []string
	if w.m != nil {
		mtps = w.m.TParams
	}
	for _, tp := range mtps {
		if tp == name {
			return value{}
		}
	}
	if len(name) == 0 || name[0] >= 'a' && name[0] <= 'z' {
		return value{} // not a type by convention: a package name, or unknown
	}
	if t := w.l.resolve(w.sc, w.cls, name); t != nil {
		return value{t: t, known: true, static: true}
	}
	return value{known: w.l.importedOrLang(w.sc, name), static: true}
}

// fieldAccess types a.b: a field of a's type, a member type, a qualified
// type name, Outer.this, array length.
func (w *walker) fieldAccess(n *sitter.Node) value {
	fn := n.ChildByFieldName("field")
	obj := n.ChildByFieldName("object")
	if fn == nil || obj == nil {
		return value{}
	}
	name := w.x.text(fn)
	if fn.Kind() == "this" {
		return value{t: w.l.resolve(w.sc, w.cls, w.x.text(obj)), known: true}
	}
	var o value
	if obj.Kind() == "super" {
		o = w.superVal()
	} else {
		o = w.typeOf(obj)
	}
	if o.dims > 0 {
		if name == "length" {
			return value{prim: "int", known: true}
		}
		return value{}
	}
	if o.t == nil {
		if !o.known && (obj.Kind() == "identifier" || obj.Kind() == "field_access") {
			if t := w.l.resolve(w.sc, w.cls, w.x.text(n)); t != nil {
				return value{t: t, known: true, static: true} // a qualified type name
			}
		}
		return value{known: o.known && o.static && name[0] >= 'A' && name[0] <= 'Z'}
	}
	if f, owner := w.l.field(o.t, name); f != nil {
		return w.l.typeVal(owner.scope, owner, f.Type, nil, o)
	}
	if o.static {
		if t := w.l.memberType(o.t, name, 0); t != nil {
			return value{t: w.l.use(t), known: true, static: true}
		}
	}
	return value{known: true}
}

// externalScope reports whether an unqualified call of name that the
// repository does not declare comes from outside it: a static import of
// it, a static on-demand import of a class outside the repository, or an
// enclosing class with a supertype outside it.
func (w *walker) externalScope(name string) bool {
	if len(w.sc.Static[name]) > 0 {
		return true
	}
	for _, q := range w.sc.SDemand {
		if w.l.tab.types[q] == nil {
			return true
		}
	}
	for c := w.cls; c != nil; c = w.l.enclosing(c) {
		if w.l.externalSuper(c, 0) {
			return true
		}
	}
	return false
}
