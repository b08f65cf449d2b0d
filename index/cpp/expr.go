//go:build cgo

package cpp

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// casts are the cast operators, whose result has the type they name.
var casts = map[string]bool{"static_cast": true, "dynamic_cast": true, "reinterpret_cast": true, "const_cast": true}

// targets resolves the callee of a call expression: the functions it may
// call (exact: one of them, chosen by the arguments) or, when the
// receiver's type is not evident, the name to look up by name only.
// Neither when the call evidently leaves the repository (std::, a
// receiver of a type outside it).
func (w *walker) targets(n *sitter.Node) (cands []*funcDef, exact bool, name string, recv tref) {
	fn := n.ChildByFieldName("function")
	if fn == nil {
		return nil, false, "", tref{}
	}
	this := tref{td: w.cls, cnst: w.b.fd != nil && strings.Contains(w.b.fd.Quals, "const")}
	switch fn.Kind() {
	case "identifier":
		cands, exact, name = w.unqualified(w.x.text(fn))
		return cands, exact, name, this
	case "template_function":
		nm := fn.ChildByFieldName("name")
		if nm == nil || casts[w.x.text(nm)] {
			return nil, false, "", tref{}
		}
		if spec := w.specialization(fn); spec != nil {
			return spec, true, "", this
		}
		if nm.Kind() == "identifier" {
			cands, exact, name = w.unqualified(w.x.text(nm))
			return cands, exact, name, this
		}
		cands, exact, name = w.qualified(strings.Join(strings.Fields(w.x.text(nm)), ""))
		return cands, exact, name, this
	case "qualified_identifier":
		if last := lastOfQualified(fn); last != nil && last.Kind() == "template_function" {
			if spec := w.specialization(fn); spec != nil {
				return spec, true, "", this
			}
		}
		cands, exact, name = w.qualified(strings.Join(strings.Fields(stripArgsLast(w.x.text(fn))), ""))
		return cands, exact, name, this
	case "field_expression":
		field := fn.ChildByFieldName("field")
		if field == nil {
			return nil, false, "", tref{}
		}
		fname := w.x.text(field)
		if field.Kind() == "template_method" {
			fname = w.x.text(field.ChildByFieldName("name"))
		}
		if strings.Contains(fname, "::") || strings.HasPrefix(fname, "~") {
			return nil, false, "", tref{}
		}
		recv := w.exprType(fn.ChildByFieldName("argument"))
		switch {
		case recv.td != nil:
			ms, _ := w.l.methodsNamed(recv.td, fname)
			return ms, len(ms) > 0, "", recv
		case recv.ext:
			return nil, false, "", recv
		}
		return nil, false, fname, recv
	}
	return nil, false, "", tref{}
}

// operator resolves an operator expression on an object of one of the
// repository's classes to the class's operator method (a[i], a = b,
// a + b, ++a, a++, *a, !a); it emits nothing for built-in operands,
// pointers and operators the class does not declare.
func (w *walker) operator(n *sitter.Node) {
	var operand *sitter.Node
	var op string
	var args []*sitter.Node
	switch n.Kind() {
	case "subscript_expression":
		operand, op = n.ChildByFieldName("argument"), "[]"
		if ix := n.ChildByFieldName("indices"); ix != nil {
			args = sitter.Children(ix)
		}
	case "binary_expression", "assignment_expression":
		operand, op = n.ChildByFieldName("left"), w.x.text(n.ChildByFieldName("operator"))
		if r := n.ChildByFieldName("right"); r != nil {
			args = []*sitter.Node{r}
		}
	case "unary_expression", "pointer_expression":
		operand, op = n.ChildByFieldName("argument"), w.x.text(n.ChildByFieldName("operator"))
	case "update_expression":
		operand, op = n.ChildByFieldName("argument"), w.x.text(n.ChildByFieldName("operator"))
		if operand != nil && operand.StartByte() == n.StartByte() {
			args = []*sitter.Node{operand} // postfix: operator++(int)
		}
	}
	if operand == nil || op == "" || op == "&" && len(args) == 0 {
		return
	}
	t := w.exprType(operand)
	if t.td == nil || t.ptr || t.td.Kind == "enum" {
		return
	}
	ms, _ := w.l.methodsNamed(t.td, "operator"+op)
	if len(ms) == 0 {
		// A free operator of the class's namespace (a friend) taking the
		// class: the operand is its first argument.
		classes := map[string]bool{lastName(stripArgs(t.td.Q)): true} // the class and its bases
		for _, b := range w.l.bases(t.td, map[*typeDef]bool{}, 0) {
			classes[lastName(stripArgs(b.Q))] = true
		}
		for _, f := range w.l.funcsNamed(join(t.td.NS, "operator"+op)) {
			if len(f.Params) > 0 {
				if b, _ := baseType(f.Params[0]); classes[lastName(stripArgs(b))] {
					ms = append(ms, f)
				}
			}
		}
		args = append([]*sitter.Node{operand}, args...)
	}
	if len(ms) == 0 {
		return
	}
	w.emit(ms, args, sitter.Line(n), "", t)
}

// lastOfQualified is the name at the end of a qualified identifier.
func lastOfQualified(n *sitter.Node) *sitter.Node {
	for n != nil && n.Kind() == "qualified_identifier" {
		n = n.ChildByFieldName("name")
	}
	return n
}

// specialization finds the explicit specialization a call with template
// arguments names (width<bool>()), when the repository declares one.
func (w *walker) specialization(fn *sitter.Node) []*funcDef {
	q := strings.TrimPrefix(strings.Join(strings.Fields(w.x.text(fn)), ""), "::")
	scope, name := parentNS(q), lastName(q)
	var prefixes []string
	if scope == "" {
		prefixes = w.l.prefixes(w.b.ns, nil, w.usings)
	} else if ns := w.l.namespaceNamed(scope, w.b.ns, w.usings); ns != "" {
		prefixes = []string{ns}
	}
	for _, p := range prefixes {
		if fs := w.l.funcsNamed(join(p, name)); len(fs) > 0 {
			return fs
		}
	}
	return nil
}

// stripArgsLast drops the template arguments of a qualified callee's
// last name: fmt::format<char> → fmt::format.
func stripArgsLast(s string) string {
	if strings.HasSuffix(strings.TrimSpace(s), ">") {
		return stripLastArgs(strings.TrimSpace(s))
	}
	return s
}

// unqualified resolves a call of a plain name: a local callable (its
// class's operator()), the methods of the class and its bases, the
// functions of the enclosing namespaces and the using-directives', a
// class (its constructor). A name the repository does not declare there
// is looked up by name only when some function of the repository has it.
func (w *walker) unqualified(name string) ([]*funcDef, bool, string) {
	if t, ok := w.local(name); ok {
		if t.td != nil {
			ms, _ := w.l.methodsNamed(t.td, "operator()")
			return ms, len(ms) > 0, ""
		}
		return nil, false, ""
	}
	for c := w.cls; c != nil; c = w.l.outerOf(c) {
		if ms, _ := w.l.methodsNamed(c, name); len(ms) > 0 {
			return ms, true, ""
		}
	}
	for _, p := range w.l.prefixes(w.b.ns, nil, w.usings) {
		if fs := w.l.funcsNamed(join(p, name)); len(fs) > 0 {
			return fs, true, ""
		}
	}
	if td := w.l.typeNamed(name, w.b.ns, w.cls, w.usings); td != nil {
		ctors := w.l.own(td, lastName(stripArgs(td.Q)))
		return ctors, len(ctors) > 0, ""
	}
	w.l.unres = true
	if len(w.l.t.byName[name]) > 0 {
		return nil, false, name
	}
	return nil, false, ""
}

// qualified resolves a call of a qualified name: S::f with S a class of
// the repository (a static method, Base::f(), a constructor) or one of
// its namespaces; anything else (std::, a library's namespace) is
// outside it.
func (w *walker) qualified(q string) ([]*funcDef, bool, string) {
	q = strings.TrimPrefix(q, "::")
	scope, name := parentNS(q), lastName(q)
	if scope == "" {
		if fs := w.l.funcsNamed(name); len(fs) > 0 {
			return fs, true, ""
		}
		return nil, false, ""
	}
	if scope == "std" || strings.HasPrefix(scope, "std::") {
		return nil, false, ""
	}
	if td := w.l.typeNamed(scope, w.b.ns, w.cls, w.usings); td != nil {
		if name == lastName(stripArgs(td.Q)) {
			ctors := w.l.own(td, name)
			return ctors, len(ctors) > 0, ""
		}
		ms, _ := w.l.methodsNamed(td, name)
		return ms, len(ms) > 0, ""
	}
	if ns := w.l.namespaceNamed(scope, w.b.ns, w.usings); ns != "" {
		if fs := w.l.funcsNamed(join(ns, name)); len(fs) > 0 {
			return fs, true, ""
		}
		for _, u := range w.usings { // a using-directive inside the namespace
			uns, un, _ := strings.Cut(u, "|")
			if uns == ns {
				if q := w.l.namespaceNamed(un, uns, nil); q != "" {
					if fs := w.l.funcsNamed(join(q, name)); len(fs) > 0 {
						return fs, true, ""
					}
				}
			}
		}
		w.l.unres = true
	}
	return nil, false, ""
}

// exprType is the type of an expression when it is evident.
func (w *walker) exprType(n *sitter.Node) tref {
	if n == nil {
		return tref{}
	}
	switch n.Kind() {
	case "this":
		return tref{td: w.cls, ptr: true, cnst: w.b.fd != nil && strings.Contains(w.b.fd.Quals, "const")}
	case "identifier":
		name := w.x.text(n)
		if t, ok := w.local(name); ok {
			return t
		}
		if w.cls != nil {
			t := w.fieldType(w.cls, name)
			t.cnst = t.cnst || w.b.fd != nil && strings.Contains(w.b.fd.Quals, "const") // a field of a const this
			return t
		}
	case "field_expression":
		recv := w.exprType(n.ChildByFieldName("argument"))
		if recv.td != nil {
			if f := n.ChildByFieldName("field"); f != nil && f.Kind() == "field_identifier" {
				t := w.fieldType(recv.td, w.x.text(f))
				t.cnst = t.cnst || recv.cnst
				return t
			}
		}
	case "pointer_expression":
		t := w.exprType(n.ChildByFieldName("argument"))
		if w.x.text(n.ChildByFieldName("operator")) == "*" && t.ptr {
			t.ptr = false // *p: the object
			return t
		}
		return tref{}
	case "parenthesized_expression":
		if c := firstNamed(n); c != nil {
			return w.exprType(c)
		}
	case "new_expression":
		t := w.typeRef(w.x.text(n.ChildByFieldName("type")), w.b.ns, w.cls)
		t.ptr = t.td != nil
		return t
	case "number_literal", "string_literal", "char_literal", "true", "false", "raw_string_literal":
		return tref{ext: true}
	case "call_expression":
		return w.callType(n)
	case "binary_expression":
		switch op := w.x.text(n.ChildByFieldName("operator")); op {
		case "==", "!=", "<", ">", "<=", ">=", "&&", "||":
			return tref{ext: true, name: "bool"}
		case "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>":
			if l := w.exprType(n.ChildByFieldName("left")); l.name != "" {
				return l // arithmetic of a built-in type
			}
		}
	case "compound_literal_expression":
		return w.typeRef(w.x.text(n.ChildByFieldName("type")), w.b.ns, w.cls)
	}
	return tref{}
}

// callType is the type a call returns: a cast's, a constructor's class
// (T(…)), the chosen function's declared return type.
func (w *walker) callType(n *sitter.Node) tref {
	fn := n.ChildByFieldName("function")
	if fn == nil {
		return tref{}
	}
	if fn.Kind() == "template_function" {
		if nm := fn.ChildByFieldName("name"); nm != nil && casts[w.x.text(nm)] {
			if args := fn.ChildByFieldName("arguments"); args != nil && args.NamedChildCount() > 0 {
				return w.typeRef(w.x.text(args.NamedChild(0)), w.b.ns, w.cls)
			}
			return tref{}
		}
	}
	if fn.Kind() == "identifier" || fn.Kind() == "qualified_identifier" {
		if _, local := w.local(w.x.text(fn)); !local {
			if td := w.l.typeNamed(w.x.text(fn), w.b.ns, w.cls, w.usings); td != nil {
				return tref{td: td}
			}
		}
	}
	cands, exact, _, recv := w.targets(n)
	if !exact {
		return tref{}
	}
	chosen := w.choose(cands, w.args(n.ChildByFieldName("arguments")), recv)
	if len(chosen) != 1 {
		return tref{}
	}
	c := chosen[0]
	if c.Ret == "" || c.Ret == "auto" {
		return tref{}
	}
	sub := *w
	sub.cls = c.owner
	return sub.typeRef(c.Ret, c.NS, c.owner)
}

// fieldType is the declared type of a field of td or of its bases.
func (w *walker) fieldType(td *typeDef, name string) tref {
	seen := map[*typeDef]bool{}
	for _, c := range append([]*typeDef{td}, w.l.bases(td, seen, 0)...) {
		if written, ok := c.Fields[name]; ok {
			ns, t, _ := strings.Cut(written, "|")
			sub := *w
			return sub.typeRef(t, ns, c)
		}
	}
	return tref{}
}
