//go:build cgo

package cpp

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// function reads a function or method declaration or definition: a free
// function, a method declared in its class (c.cls), or a method defined
// out of line (its declarator names the class: Foo::bar).
func (x *extractor) function(st *sitter.Node, c *declCtx, body bool) {
	fdecl := funcDeclarator(st.ChildByFieldName("declarator"))
	var nameN *sitter.Node
	if fdecl != nil {
		nameN = fdecl.ChildByFieldName("declarator")
	} else {
		nameN, fdecl = castDeclarator(st.ChildByFieldName("declarator"))
	}
	if nameN == nil || fdecl == nil {
		return
	}
	var quals []string
	for nameN.Kind() == "qualified_identifier" {
		if s := nameN.ChildByFieldName("scope"); s != nil {
			quals = append(quals, strings.Join(strings.Fields(x.text(s)), ""))
		}
		nameN = nameN.ChildByFieldName("name")
		if nameN == nil {
			return
		}
	}
	name := strings.Join(strings.Fields(x.text(nameN)), "")
	spec := ""
	switch nameN.Kind() {
	case "operator_cast": // operator bool
		name = "operator " + normType(x.text(nameN.ChildByFieldName("type"))+pointerSuffix(nameN.ChildByFieldName("declarator")))
	case "identifier", "field_identifier", "destructor_name", "operator_name":
	case "template_function": // an explicit specialization: a node of its own, named with its arguments
		name = x.text(nameN.ChildByFieldName("name"))
		spec = strings.Join(strings.Fields(x.text(nameN.ChildByFieldName("arguments"))), "")
	default:
		return
	}
	if name == "" {
		return
	}
	fd := &funcDef{Name: name, NS: c.ns, Template: c.template, Body: body, scope: x.f.scope, Local: c.local}
	x.params(fd, fdecl.ChildByFieldName("parameters"))
	fd.Ret = x.returnType(st, fdecl)
	for _, ch := range sitter.AllChildren(st) {
		switch ch.Kind() {
		case "virtual":
			fd.Virtual = true
		case "storage_class_specifier":
			if x.text(ch) == "static" {
				fd.Static = true
				if c.cls == nil && len(quals) == 0 {
					fd.Local = true
				}
			}
		}
	}
	for _, ch := range sitter.AllChildren(fdecl) {
		switch ch.Kind() {
		case "virtual_specifier": // override, final
			fd.Virtual = true
		case "type_qualifier", "ref_qualifier":
			fd.Quals += x.text(ch)
		}
	}
	cls := c.cls
	x.place(fd, c, quals, name+spec)
	if fd.Ctor {
		fd.Ret = ""
	}
	x.f.decls = append(x.f.decls, declSite{td: cls, fd: fd, n: st, exported: !fd.Local && (cls == nil || c.public), doc: x.doc(st)})
	if !body {
		return
	}
	b := codeBody{fd: fd, ns: c.ns, params: fdecl.ChildByFieldName("parameters"), usings: c.usings}
	if cls != nil {
		b.cls = cls.Q
	} else if fd.Class != "" {
		b.cls = parentNS(fd.Q)
	}
	for _, ch := range sitter.Children(st) {
		if k := ch.Kind(); k == "field_initializer_list" || k == "compound_statement" || k == "try_statement" {
			b.nodes = append(b.nodes, ch)
		}
	}
	x.f.bodies = append(x.f.bodies, b)
}

// place names a function after where it is declared — in its class, out
// of line (quals: the scope its declarator names, Foo in Foo::bar) or in
// its namespace — and adds it to the class or the file's functions.
func (x *extractor) place(fd *funcDef, c *declCtx, quals []string, name string) {
	cls := c.cls
	switch {
	case cls != nil && len(quals) == 0:
		fd.Q = join(cls.Q, name)
		fd.Ctor = fd.Name == lastName(stripArgs(cls.Q))
		fd.owner = cls
		cls.Methods = append(cls.Methods, fd)
	case len(quals) > 0:
		scope := strings.Join(quals, "::")
		base := qualOf(c)
		if strings.HasPrefix(scope, "::") {
			scope, base = strings.TrimPrefix(scope, "::"), ""
		}
		fd.Q = join(join(base, scope), name)
		fd.Class = scope
		fd.Ctor = fd.Name == lastName(stripArgs(scope))
		x.f.scope.Funcs = append(x.f.scope.Funcs, fd)
	default:
		fd.Q = join(c.ns, name)
		x.f.scope.Funcs = append(x.f.scope.Funcs, fd)
	}
}

// castDeclarator finds a conversion operator's declarator (operator T(),
// A::operator T()): the operator_cast, to name it, and its function
// declarator, whose parameters and qualifiers it has; nils otherwise.
func castDeclarator(d *sitter.Node) (nameN, fdecl *sitter.Node) {
	if d == nil {
		return nil, nil
	}
	c := d
	for c.Kind() == "qualified_identifier" {
		if c = c.ChildByFieldName("name"); c == nil {
			return nil, nil
		}
	}
	if c.Kind() != "operator_cast" {
		return nil, nil
	}
	for f := c.ChildByFieldName("declarator"); f != nil; f = f.ChildByFieldName("declarator") {
		if f.Kind() == "abstract_function_declarator" {
			return d, f
		}
	}
	return nil, nil
}

// params reads a parameter list: the parameter types without their
// names, how many arguments a call needs and whether it takes more.
func (x *extractor) params(fd *funcDef, pl *sitter.Node) {
	if pl == nil {
		return
	}
	for _, p := range sitter.AllChildren(pl) {
		switch p.Kind() {
		case "parameter_declaration", "optional_parameter_declaration":
			t := x.paramType(p)
			if t == "void" && p.ChildByFieldName("declarator") == nil {
				continue // f(void)
			}
			fd.Params = append(fd.Params, t)
			if p.Kind() == "parameter_declaration" {
				fd.Min = len(fd.Params)
			}
		case "variadic_parameter_declaration", "...":
			fd.Variadic = true
		}
	}
}

// paramType is a parameter's type as written, without its name and
// default value, spaces only where they separate words: "const char*".
func (x *extractor) paramType(p *sitter.Node) string {
	var b strings.Builder
	def := p.ChildByFieldName("default_value")
	for _, ch := range sitter.AllChildren(p) {
		switch ch.Kind() {
		case "=", "comment":
			continue
		}
		if def != nil && ch.Id() == def.Id() {
			continue
		}
		s := x.text(ch)
		if d := p.ChildByFieldName("declarator"); d != nil && ch.Id() == d.Id() {
			s = x.abstract(d)
		}
		b.WriteString(s)
		b.WriteByte(' ')
	}
	return normType(b.String())
}

// abstract is a declarator's text without the name it declares:
// "*const p" → "*const", "(&a)[3]" → "(&)[3]".
func (x *extractor) abstract(d *sitter.Node) string {
	s := x.text(d)
	var nameN *sitter.Node
	for n := d; n != nil; {
		switch n.Kind() {
		case "identifier", "field_identifier":
			nameN = n
		}
		if nameN != nil {
			break
		}
		n = innerDeclarator(n)
	}
	if nameN == nil {
		return s
	}
	i, j := int(nameN.StartByte()-d.StartByte()), int(nameN.EndByte()-d.StartByte())
	if i < 0 || j > len(s) || i > j {
		return s
	}
	return s[:i] + s[j:]
}

// normType collapses a type's spaces to those between words.
func normType(s string) string {
	f := strings.Fields(s)
	var b strings.Builder
	for i, w := range f {
		if i > 0 {
			prev, cur := f[i-1], w
			if isWordByte(prev[len(prev)-1]) && isWordByte(cur[0]) {
				b.WriteByte(' ')
			}
		}
		b.WriteString(w)
	}
	return b.String()
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// returnType is a function's return type as written (a trailing return
// type when it has one), with a * when the declarator returns a pointer.
func (x *extractor) returnType(st, fdecl *sitter.Node) string {
	for _, ch := range sitter.Children(fdecl) {
		if ch.Kind() == "trailing_return_type" {
			return normType(x.text(firstNamed(ch)))
		}
	}
	t := x.text(st.ChildByFieldName("type"))
	if t == "" {
		return ""
	}
	return normType(t + pointerSuffix(st.ChildByFieldName("declarator")))
}
