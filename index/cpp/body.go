//go:build cgo

package cpp

import (
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/sitter"
)

// tref is what a walker knows of an expression's type: a class of the
// repository (td), or a type evidently outside it (ext: a built-in type,
// a std:: one) whose members are not the repository's.
type tref struct {
	td   *typeDef
	ext  bool
	name string // a built-in type's name (int, double, char for char*), for overloads
	ptr  bool   // a pointer (or a smart pointer) to td: its operators are not td's
	cnst bool   // const: a const method of td is the one called
}

// walker resolves the calls of one body and emits its calls and
// calls_by_name edges. Lambdas inside the body are walked as part of
// it: their calls belong to the enclosing function.
type walker struct {
	x      *extractor
	l      *lookup
	f      *sourceFile
	b      *codeBody
	cls    *typeDef
	from   graphdb.NodeID
	scopes []map[string]tref
	usings []string
}

func (w *walker) push() { w.scopes = append(w.scopes, map[string]tref{}) }
func (w *walker) pop()  { w.scopes = w.scopes[:len(w.scopes)-1] }

func (w *walker) declare(name string, t tref) {
	if name != "" && len(w.scopes) > 0 {
		w.scopes[len(w.scopes)-1][name] = t
	}
}

func (w *walker) local(name string) (tref, bool) {
	for i := len(w.scopes) - 1; i >= 0; i-- {
		if v, ok := w.scopes[i][name]; ok {
			return v, true
		}
	}
	return tref{}, false
}

// smartPointers hold a pointer to their first template argument: p->m()
// calls the argument's method.
var smartPointers = map[string]bool{"std::unique_ptr": true, "std::shared_ptr": true, "unique_ptr": true,
	"shared_ptr": true, "std::weak_ptr": true, "std::optional": true}

// typeRef resolves a type as written in namespace ns (class cls).
func (w *walker) typeRef(written, ns string, cls *typeDef) tref {
	b, ptr := baseType(written)
	cnst := isConst(written)
	if smartPointers[stripArgs(b)] {
		if args := templateArgs(b); len(args) > 0 {
			b, _ = baseType(args[0])
			ptr = true
		}
	}
	switch {
	case b == "" || b == "auto" || b == "decltype":
		return tref{}
	case primitives[b]:
		return tref{ext: true, name: b}
	case strings.HasPrefix(b, "std::") || strings.HasPrefix(b, "unsigned") || strings.HasPrefix(b, "long"):
		return tref{ext: true}
	}
	if td := w.l.typeNamed(b, ns, cls, w.usings); td != nil {
		return tref{td: td, ptr: ptr, cnst: cnst}
	}
	return tref{}
}

// isConst reports whether a type as written is const (the object it
// names or refers to, not a pointer to it).
func isConst(written string) bool {
	for _, f := range strings.FieldsFunc(written, func(r rune) bool { return r == ' ' || r == '&' || r == '\t' }) {
		if f == "const" {
			return !strings.Contains(written, "*")
		}
	}
	return false
}

// body walks one function body.
func (w *walker) body() {
	w.push()
	if w.b.params != nil {
		w.params(w.b.params)
	}
	for _, n := range w.b.nodes {
		w.walk(n)
	}
	w.pop()
}

// params declares the parameters of a parameter list.
func (w *walker) params(pl *sitter.Node) {
	for _, p := range sitter.Children(pl) {
		switch p.Kind() {
		case "parameter_declaration", "optional_parameter_declaration", "variadic_parameter_declaration":
			t := w.typeRef(w.x.text(p.ChildByFieldName("type")), w.b.ns, w.cls)
			t.cnst = t.cnst || w.constDecl(p, p.ChildByFieldName("declarator"))
			t.ptr = t.ptr || pointerSuffix(p.ChildByFieldName("declarator")) != ""
			w.declare(declName(w.x, p.ChildByFieldName("declarator")), t)
		}
	}
}

// walk resolves the calls under n.
func (w *walker) walk(n *sitter.Node) {
	switch n.Kind() {
	case "compound_statement", "for_statement", "for_range_loop", "lambda_expression", "catch_clause":
		w.push()
		defer w.pop()
	}
	switch n.Kind() {
	case "declaration", "condition_declaration":
		w.declaration(n)
		return
	case "for_range_loop":
		w.walkField(n, "right")
		t := w.typeRef(w.x.text(n.ChildByFieldName("type")), w.b.ns, w.cls)
		w.declare(declName(w.x, n.ChildByFieldName("declarator")), t)
		w.walkField(n, "body")
		return
	case "lambda_expression":
		if d := n.ChildByFieldName("declarator"); d != nil {
			if pl := d.ChildByFieldName("parameters"); pl != nil {
				w.params(pl)
			}
		}
		w.walkField(n, "body")
		return
	case "catch_clause":
		if pl := n.ChildByFieldName("parameters"); pl != nil {
			w.params(pl)
		}
	case "call_expression":
		w.call(n)
	case "subscript_expression", "binary_expression", "assignment_expression", "unary_expression", "pointer_expression", "update_expression":
		w.operator(n)
	case "new_expression":
		w.construct(n, n.ChildByFieldName("type"), n.ChildByFieldName("arguments"))
	case "field_initializer":
		w.fieldInit(n)
	case "compound_literal_expression": // T{a, b}
		w.construct(n, n.ChildByFieldName("type"), n.ChildByFieldName("value"))
	case "return_statement": // return {a, b}: the return type's constructor
		if l := firstNamed(n); l != nil && l.Kind() == "initializer_list" && w.b.fd != nil && w.b.fd.Ret != "" {
			if t := w.typeRef(w.b.fd.Ret, w.b.fd.NS, w.b.fd.owner); t.td != nil && !t.ptr {
				if ctors := w.l.own(t.td, lastName(stripArgs(t.td.Q))); len(ctors) > 0 {
					w.emit(ctors, w.args(l), sitter.Line(n), "", tref{})
				}
			}
		}
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		return // a local class: its own methods are not walked
	}
	for _, c := range sitter.Children(n) {
		w.walk(c)
	}
}

func (w *walker) walkField(n *sitter.Node, field string) {
	if c := n.ChildByFieldName(field); c != nil {
		w.walk(c)
	}
}

// declaration declares a local's type (auto from its initialiser: new
// T, T(…), a call's return type) and resolves its initialiser's calls
// and constructor.
func (w *walker) declaration(n *sitter.Node) {
	tn := n.ChildByFieldName("type")
	written := w.x.text(tn)
	t := w.typeRef(written, w.b.ns, w.cls)
	for _, d := range sitter.FieldChildren(n, "declarator") {
		name := declName(w.x, d)
		dt := t
		dt.cnst = dt.cnst || w.constDecl(n, d)
		dt.ptr = dt.ptr || pointerSuffix(d) != "" || d.Kind() == "init_declarator" && pointerSuffix(d.ChildByFieldName("declarator")) != ""
		if fd := funcDeclarator(d); fd != nil && t.td != nil {
			// T x(a * b): in a body, an object constructed (the most
			// vexing parse reads a function's declaration).
			w.construct(d, tn, fd.ChildByFieldName("parameters"))
			w.declare(declName(w.x, fd.ChildByFieldName("declarator")), t)
			continue
		}
		if d.Kind() == "init_declarator" {
			v := d.ChildByFieldName("value")
			if v != nil {
				w.walk(v)
				switch {
				case (v.Kind() == "argument_list" || v.Kind() == "initializer_list") && t.td != nil && !dt.ptr:
					w.construct(d, tn, v)
				case strings.Contains(written, "auto"):
					dt = w.exprType(v)
				}
			}
		}
		w.declare(name, dt)
	}
}

// constDecl reports whether a declaration declares a const object (const
// T x, const T& r), not a pointer to one.
func (w *walker) constDecl(n, d *sitter.Node) bool {
	if d != nil && pointerSuffix(d) != "" {
		return false
	}
	for _, c := range sitter.Children(n) {
		if c.Kind() == "type_qualifier" && w.x.text(c) == "const" {
			return true
		}
	}
	return false
}

// construct records the constructor call of new T(…) or T x(…): the
// constructor the arguments choose.
func (w *walker) construct(site, typeN, args *sitter.Node) {
	if typeN == nil {
		return
	}
	t := w.typeRef(w.x.text(typeN), w.b.ns, w.cls)
	if t.td == nil {
		return
	}
	ctors := w.l.own(t.td, lastName(stripArgs(t.td.Q)))
	if len(ctors) == 0 {
		return
	}
	w.emit(ctors, w.args(args), sitter.Line(site), "", tref{})
}

// fieldInit records the constructor a member initialiser calls: a base
// class's (Base(…), Base<T>(…)) or a field's of one of the repository's
// classes.
func (w *walker) fieldInit(n *sitter.Node) {
	if w.cls == nil {
		return
	}
	var nameN, args *sitter.Node
	for _, c := range sitter.Children(n) {
		switch c.Kind() {
		case "argument_list", "initializer_list":
			args = c
		default:
			if nameN == nil {
				nameN = c
			}
		}
	}
	if nameN == nil || args == nil {
		return
	}
	name := w.x.text(nameN)
	if nameN.Kind() == "template_method" {
		name = w.x.text(nameN.ChildByFieldName("name"))
	}
	if written, ok := w.cls.Fields[name]; ok {
		ns, t, _ := strings.Cut(written, "|")
		ft := w.typeRef(t, ns, w.cls)
		if ft.td == nil || ft.ptr {
			return
		}
		if ctors := w.l.own(ft.td, lastName(stripArgs(ft.td.Q))); len(ctors) > 0 {
			w.emit(ctors, w.args(args), sitter.Line(n), "", tref{})
		}
		return
	}
	for _, b := range w.cls.Bases {
		if lastName(stripArgs(b)) != lastName(stripArgs(name)) {
			continue
		}
		if bt := w.l.typeNamed(b, w.cls.NS, w.l.outerOf(w.cls), w.usings); bt != nil {
			if ctors := w.l.own(bt, lastName(stripArgs(bt.Q))); len(ctors) > 0 {
				w.emit(ctors, w.args(args), sitter.Line(n), "", tref{})
			}
		}
		return
	}
}

// args returns the argument expressions of an argument list.
func (w *walker) args(al *sitter.Node) []*sitter.Node {
	if al == nil {
		return nil
	}
	var out []*sitter.Node
	for _, a := range sitter.Children(al) {
		if a.Kind() != "comment" {
			out = append(out, a)
		}
	}
	return out
}

// call resolves one call expression and emits its edges.
func (w *walker) call(n *sitter.Node) {
	cands, exact, name, recv := w.targets(n)
	args := w.args(n.ChildByFieldName("arguments"))
	switch {
	case exact:
		w.emit(cands, args, sitter.Line(n), name, recv)
	case name != "":
		w.byName(name, len(args), sitter.Line(n))
	}
}

// emit writes the edge of a call to one of cands: calls when the
// arguments (and the receiver's constness) choose one, calls_by_name to
// the remaining ones otherwise.
func (w *walker) emit(cands []*funcDef, args []*sitter.Node, line int, name string, recv tref) {
	chosen := w.choose(cands, args, recv)
	if len(chosen) == 1 {
		w.edge(graphdb.EdgeCalls, chosen[0].id, line)
		return
	}
	if len(chosen) > maxByName {
		return
	}
	for _, c := range chosen {
		w.edge(graphdb.EdgeCallsByName, c.id, line)
	}
	if name != "" {
		w.f.byName[name] = true
	}
}

// byName writes the by-name candidates of a call whose target is not
// evident: the repository's functions and methods of its name that take
// nargs arguments, at most maxByName of them.
func (w *walker) byName(name string, nargs, line int) {
	w.f.byName[name] = true
	var ids []graphdb.NodeID
	for _, fd := range w.l.t.byName[name] {
		if arity(fd, nargs) {
			ids = append(ids, fd.id)
		}
	}
	if len(ids) > maxByName {
		return
	}
	for _, id := range ids {
		w.edge(graphdb.EdgeCallsByName, id, line)
	}
}

func (w *walker) edge(kind graphdb.EdgeKind, to graphdb.NodeID, line int) {
	if to == "" {
		return
	}
	w.f.res.Edges = append(w.f.res.Edges, graphdb.Edge{From: w.from, To: to, Kind: kind, File: w.f.rel, Line: line})
}

// arity reports whether fd takes n arguments.
func arity(fd *funcDef, n int) bool {
	return n >= fd.need && (n <= len(fd.Params) || fd.Variadic)
}

// choose narrows the candidates of a call by arity, then by the types of
// the arguments that are evident, then, between methods that differ by
// their const qualifier alone, by the receiver's constness; it returns
// one when they single it out.
func (w *walker) choose(cands []*funcDef, args []*sitter.Node, recv tref) []*funcDef {
	if len(cands) <= 1 {
		return cands
	}
	var fit []*funcDef
	for _, c := range cands {
		if arity(c, len(args)) {
			fit = append(fit, c)
		}
	}
	if len(fit) == 0 {
		return cands
	}
	if len(fit) == 1 {
		return fit
	}
	types := make([]string, len(args))
	ptrs := make([]bool, len(args))
	for i, a := range args {
		types[i], ptrs[i] = w.argType(a)
	}
	best, bestN := []*funcDef(nil), -1
	for _, c := range fit {
		n := 0
		for i, t := range types {
			if i >= len(c.Params) {
				continue
			}
			pt, _ := baseType(c.Params[i])
			if t != "" && lastName(stripArgs(pt)) == t {
				n++
			}
			if ptrs[i] && strings.ContainsAny(c.Params[i], "*[") {
				n++ // a pointer or an array for a pointer or an array
			}
		}
		switch {
		case n > bestN:
			best, bestN = []*funcDef{c}, n
		case n == bestN:
			best = append(best, c)
		}
	}
	return byConstness(best, recv)
}

// byConstness chooses between methods of the same parameters that differ
// in their const qualifier: the const one for a const receiver, the
// other one otherwise.
func byConstness(cands []*funcDef, recv tref) []*funcDef {
	if len(cands) < 2 || recv.td == nil {
		return cands
	}
	for _, c := range cands[1:] {
		if sigKey(&funcDef{Params: c.Params}) != sigKey(&funcDef{Params: cands[0].Params}) {
			return cands
		}
	}
	var out []*funcDef
	for _, c := range cands {
		if strings.Contains(c.Quals, "const") == recv.cnst {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return cands
	}
	return out
}

// argType is the simple name of an argument's type when it is evident
// (a literal's, a local's or a parameter's declared type) and whether it
// is a pointer or an array (a string literal is).
func (w *walker) argType(a *sitter.Node) (string, bool) {
	switch a.Kind() {
	case "number_literal":
		s := w.x.text(a)
		switch {
		case strings.ContainsAny(s, "fF") && !strings.HasPrefix(s, "0x"):
			return "float", false
		case strings.ContainsAny(s, ".eE") && !strings.HasPrefix(s, "0x"):
			return "double", false
		}
		return "int", false
	case "string_literal", "raw_string_literal", "concatenated_string":
		return "char", true
	case "char_literal":
		return "char", false
	case "true", "false":
		return "bool", false
	}
	switch t := w.exprType(a); {
	case t.td != nil:
		return lastName(stripArgs(t.td.Q)), t.ptr
	default:
		return t.name, t.ptr
	}
}
