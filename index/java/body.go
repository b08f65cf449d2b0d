//go:build cgo

package java

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// maxByName caps the by-name candidates of one unresolved call: a
// name matching more methods than this says nothing useful.
const maxByName = 8

// walker resolves the calls of one body (codeBody) and emits its
// calls and calls_by_name edges. Nested, local and anonymous classes and
// lambdas inside the body are walked as part of it: their calls belong to
// the enclosing method.
type walker struct {
	x      *extractor
	l      *lookup
	sc     *fileScope
	from   graphdb.NodeID
	cls    *typeDef
	m      *methodDef
	scopes []map[string]value
	anon   int
	depth  int // levels of walk and typeOf in progress (limits.go)
	// types memoises typeOf by node within one body: a chain a.b().c()
	// would otherwise resolve its inner calls once per link.
	types map[uintptr]value
	// lambdas holds the parameter types of lambdas passed to a method
	// whose parameter is a functional interface (lambda.go).
	lambdas map[uintptr][]value
}

func (w *walker) push() { w.scopes = append(w.scopes, map[string]value{}) }
func (w *walker) pop()  { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) declare(name string, v value) {
	if name != "" && len(w.scopes) > 0 {
		w.scopes[len(w.scopes)-1][name] = v
	}
}

func (w *walker) local(name string) (value, bool) {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if v, ok := w.scopes[i][name]; ok {
			return v, true
		}
	}
	return value{}, false
}

// declType is the value of a declared type in the walker's context.
func (w *walker) declType(written string) value {
	if v, ok := w.local(strings.TrimSpace(written)); ok && v.static {
		v.static = false // a local class
		return v
	}
	var mtps []string
	if w.m != nil {
		mtps = w.m.TParams
	}
	return w.l.typeVal(w.sc, w.cls, written, mtps, value{})
}

// resolveBody walks one body.
func (w *walker) resolveBody(b codeBody) {
	w.from, w.cls, w.m = b.from, b.cls, b.m
	w.scopes = nil
	w.types = map[uintptr]value{}
	w.lambdas = nil
	w.push()
	if b.implicit {
		w.implicitSuper(nameLine(b.n))
		return
	}
	if b.m != nil {
		w.params(b.decl, b.m)
	}
	if b.ctor && !hasCtorCall(b.n) {
		w.implicitSuper(sitter.Line(b.n)) // javac places it at the body
	}
	if b.n.Kind() == "enum_constant" {
		w.enumConstant(b.n)
	} else {
		w.walk(b.n)
	}
}

// params declares a method's parameters.
func (w *walker) params(decl *sitter.Node, m *methodDef) {
	ps := decl.ChildByFieldName("parameters")
	if ps == nil {
		return
	}
	i := 0
	for _, p := range sitter.Children(ps) {
		switch p.Kind() {
		case "formal_parameter":
			if i < len(m.Params) {
				w.declare(w.x.text(p.ChildByFieldName("name")), w.declType(m.Params[i]))
			}
			i++
		case "spread_parameter":
			v := value{}
			if i < len(m.Params) {
				v = w.declType(m.Params[i])
			}
			for _, c := range sitter.Children(p) {
				if c.Kind() == "variable_declarator" {
					w.declare(w.x.text(c.ChildByFieldName("name")), v)
				}
			}
			i++
		}
	}
}

// nameLine is the line of a declaration's name, where javac places
// the implicit default constructor.
func nameLine(n *sitter.Node) int {
	if nm := n.ChildByFieldName("name"); nm != nil {
		return sitter.Line(nm)
	}
	return sitter.Line(n)
}

func hasCtorCall(body *sitter.Node) bool {
	for _, c := range sitter.Children(body) {
		if c.Kind() == "explicit_constructor_invocation" {
			return true
		}
	}
	return false
}

// implicitSuper records the call of the superclass's no-argument
// constructor that a constructor without this(…)/super(…) makes.
func (w *walker) implicitSuper(ln int) {
	if w.cls.Kind != "class" && w.cls.Kind != "enum" && w.cls.Kind != "record" || w.cls.Q == "java.lang.Object" {
		return
	}
	sup := w.l.supers(w.cls)
	if len(sup) == 0 || sup[0].Kind == "interface" {
		return
	}
	args := []value(nil)
	if w.cls.Kind == "enum" {
		args = []value{{prim: "String", known: true}, {prim: "int", known: true}}
	}
	w.ctorCall(sup[0], args, ln)
}

// ctorCall records a call of t's constructor chosen by args: the class
// itself when it declares none.
func (w *walker) ctorCall(t *typeDef, args []value, ln int) {
	if t == nil || t.ID == "" {
		return
	}
	hasCtor := false
	for _, m := range w.l.methodsNamed(t, "<init>") {
		hasCtor = hasCtor || m.ID != ""
	}
	if !hasCtor {
		w.edge(graphdb.EdgeCalls, t.ID, ln)
		return
	}
	w.calls(w.l.choose(w.l.findMethods(t, "<init>", len(args)), args), ln)
}

// calls records the chosen targets: one is a call, several (overloads
// the arguments do not tell apart) are by-name candidates.
func (w *walker) calls(ts []methodRef, ln int) {
	if len(ts) == 1 {
		if ts[0].m.ID != "" {
			w.edge(graphdb.EdgeCalls, ts[0].m.ID, ln)
		}
		return
	}
	if len(ts) > maxByName {
		return
	}
	for _, t := range ts {
		if t.m.ID != "" {
			w.edge(graphdb.EdgeCallsByName, t.m.ID, ln)
		}
	}
}

func (w *walker) edge(kind graphdb.EdgeKind, to graphdb.NodeID, ln int) {
	if w.from == "" || to == "" {
		return
	}
	w.x.f.res.Edges = append(w.x.f.res.Edges, graphdb.Edge{From: w.from, To: to, Kind: kind, File: w.x.f.rel, Line: ln})
}

// walk visits n's subtree in source order.
func (w *walker) walk(n *sitter.Node) {
	if !w.enter(n) {
		return
	}
	defer w.leave()
	switch n.Kind() {
	case "method_invocation":
		w.invocation(n)
	case "object_creation_expression":
		w.creation(n)
		return
	case "explicit_constructor_invocation":
		w.explicitCtor(n)
	case "local_variable_declaration", "field_declaration":
		w.localVars(n)
		return
	case "block", "for_statement", "lambda_expression", "catch_clause", "try_with_resources_statement",
		"switch_block_statement_group", "switch_rule", "constructor_body":
		w.push()
		defer w.pop()
		w.binders(n)
	case "enhanced_for_statement":
		w.push()
		defer w.pop()
		w.forEach(n)
		return
	case "resource":
		w.resource(n)
		return
	case "instanceof_expression":
		if nm := n.ChildByFieldName("name"); nm != nil {
			w.declare(w.x.text(nm), w.declType(w.x.text(n.ChildByFieldName("right"))))
		}
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration":
		w.localClass(n)
		return
	case "class_body":
		return // anonymous class bodies are walked by creation
	}
	for _, c := range sitter.Children(n) {
		w.walk(c)
	}
}

// binders declares what a lambda or catch clause binds.
func (w *walker) binders(n *sitter.Node) {
	switch n.Kind() {
	case "lambda_expression":
		ps := n.ChildByFieldName("parameters")
		if ps == nil {
			return
		}
		inferred := w.lambdas[n.Id()] // from the callee's functional interface
		at := func(i int) value {
			if i < len(inferred) {
				return inferred[i]
			}
			return value{}
		}
		if ps.Kind() == "identifier" {
			w.declare(w.x.text(ps), at(0))
			return
		}
		for i, p := range sitter.Children(ps) {
			switch p.Kind() {
			case "identifier":
				w.declare(w.x.text(p), at(i))
			case "formal_parameter":
				w.declare(w.x.text(p.ChildByFieldName("name")), w.declType(w.x.text(p.ChildByFieldName("type"))))
			}
		}
	case "catch_clause":
		for _, c := range sitter.Children(n) {
			if c.Kind() != "catch_formal_parameter" {
				continue
			}
			v := value{}
			for _, ct := range sitter.Children(c) {
				if ct.Kind() == "catch_type" {
					if ts := sitter.Children(ct); len(ts) == 1 {
						v = w.declType(w.x.text(ts[0]))
					}
				}
			}
			w.declare(w.x.text(c.ChildByFieldName("name")), v)
		}
	}
}

// localVars walks a local variable (or resource) declaration's
// initialisers and declares its names.
func (w *walker) localVars(n *sitter.Node) {
	typ := w.x.text(n.ChildByFieldName("type"))
	for _, d := range sitter.Children(n) {
		if d.Kind() != "variable_declarator" {
			if d.Kind() != "modifiers" {
				w.walk(d)
			}
			continue
		}
		v := d.ChildByFieldName("value")
		if v != nil {
			w.walk(v)
		}
		var val value
		switch {
		case typ == "var" && v != nil:
			val = w.typeOf(v)
		case typ != "var":
			dims := ""
			if dn := d.ChildByFieldName("dimensions"); dn != nil {
				dims = w.x.text(dn)
			}
			val = w.declType(typ + dims)
		}
		w.declare(w.x.text(d.ChildByFieldName("name")), val)
	}
}

// forEach walks an enhanced for and records the calls javac makes for
// it over an Iterable of the repository: iterator() on the value, then
// hasNext() and next() on the iterator, all on the value's line (where
// javac puts them). The loop variable of `var` takes next()'s type.
func (w *walker) forEach(n *sitter.Node) {
	v := n.ChildByFieldName("value")
	var a value
	if v != nil {
		w.walk(v)
		a = w.typeOf(v)
	}
	elem := value{}
	if a.dims > 0 {
		elem = a
		elem.dims--
	} else if v != nil {
		elem = w.iterate(a, sitter.Line(v))
	}
	typ := w.x.text(n.ChildByFieldName("type"))
	val := elem
	if typ != "var" {
		val = w.declType(typ)
	}
	w.declare(w.x.text(n.ChildByFieldName("name")), val)
	if b := n.ChildByFieldName("body"); b != nil {
		w.walk(b)
	}
}

// iterate records the implicit iterator(), hasNext() and next() calls of
// an enhanced for over a value of type a and returns the element type.
// javac calls hasNext() and next() through java.util.Iterator whatever
// type iterator() declares, so those are recorded only when the
// repository declares Iterator itself (the JDK's own sources); the
// element type comes from the declared iterator type's next().
func (w *walker) iterate(a value, ln int) value {
	it := w.implicitCall(a, "iterator", ln, true)
	if iter := w.l.tab.types["java.util.Iterator"]; iter != nil && it.t != nil && w.l.isSubtype(it.t, iter) {
		viaIter := value{t: w.l.use(iter), known: true, targs: it.targs, tctx: it.tctx, tsc: it.tsc}
		if it.t != iter {
			viaIter.targs = nil // the type arguments are it.t's, not Iterator's
		}
		w.implicitCall(viaIter, "hasNext", ln, true)
		w.implicitCall(viaIter, "next", ln, true)
	}
	return w.implicitCall(it, "next", ln, false)
}

// implicitCall records the call of the no-argument method name that javac
// makes on a value of type recv, when the overload is evident, and
// returns the call's type.
func (w *walker) implicitCall(recv value, name string, ln int, record bool) value {
	if recv.t == nil || recv.dims > 0 || recv.static {
		return value{}
	}
	ts := w.l.findMethods(recv.t, name, 0).refs
	if len(ts) != 1 {
		return value{}
	}
	if record {
		w.calls(ts, ln)
	}
	return w.l.retVal(ts[0], recv)
}

// resource declares a try-with-resources resource and records the close()
// javac calls on it; javac gives that call the line of the try block's
// end and of the resource, relay the resource's line.
func (w *walker) resource(n *sitter.Node) {
	var val value
	if nm := n.ChildByFieldName("name"); nm != nil {
		v := n.ChildByFieldName("value")
		if v != nil {
			w.walk(v)
		}
		typ := w.x.text(n.ChildByFieldName("type"))
		if typ == "var" && v != nil {
			val = w.typeOf(v)
		} else if typ != "var" {
			val = w.declType(typ)
		}
		w.declare(w.x.text(nm), val)
	} else if n.NamedChildCount() > 0 {
		e := n.NamedChild(n.NamedChildCount() - 1) // an effectively final variable or field (Java 9)
		w.walk(e)
		val = w.typeOf(e)
	}
	w.implicitCall(val, "close", sitter.Line(n), true)
}

// args returns the argument expressions of a call and walks them.
func (w *walker) args(n *sitter.Node) ([]*sitter.Node, []value) {
	al := n.ChildByFieldName("arguments")
	if al == nil {
		return nil, nil
	}
	var ns []*sitter.Node
	for _, c := range sitter.Children(al) {
		if k := c.Kind(); k != "line_comment" && k != "block_comment" {
			ns = append(ns, c)
		}
	}
	vals := make([]value, len(ns))
	for i, a := range ns {
		vals[i] = w.typeOf(a)
	}
	return ns, vals
}
