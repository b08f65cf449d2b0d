//go:build cgo

package cpp

import (
	"path"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// sourceFile is what the extraction of one C++ file yields: its scope,
// the declarations that may become nodes (decided against the table in
// the second pass: a function declared in a header and defined in a
// source file is one node, the definition's), the bodies whose calls to
// resolve and its includes.
type sourceFile struct {
	rel    string
	data   []byte // the text parsed: the file with the repository's macros expanded
	orig   []byte // the file
	scope  *fileScope
	decls  []declSite
	bodies []codeBody
	incs   []include
	errs   []string
	res    frontend.FileResult
	byName map[string]bool // the names of its by-name calls (cpp.byname)
}

// declSite is where a type, function, method or field is declared.
type declSite struct {
	td       *typeDef // a type, or the class of a method or field
	fd       *funcDef // a function or method (nil: a type or a field)
	field    string   // a field's name
	n        *sitter.Node
	exported bool
	doc      string
}

// codeBody is a function body (with its constructor's initialiser list)
// whose calls resolve from fd.
type codeBody struct {
	fd     *funcDef
	cls    string // the qualified name of its class as written ("" for a free function)
	ns     string
	params *sitter.Node
	nodes  []*sitter.Node
	usings []string
}

type include struct {
	path string
	line int
}

// extractor walks one file's declarations.
type extractor struct {
	src []byte
	f   *sourceFile
	sib sitter.Siblings
}

// declCtx is where a declaration stands: its namespace, its class, the
// using-directives in effect, whether a template declares it and
// whether it is the file's own (an unnamed namespace).
type declCtx struct {
	ns       string
	cls      *typeDef
	usings   []string
	template bool
	local    bool
	public   bool // in a class: under public or protected access
}

// isTest reports whether rel is a test file: under a test or tests
// directory, or named *_test, *-test, test_* or *_unittest.
func isTest(rel string) bool {
	base := path.Base(rel)
	base = strings.TrimSuffix(base, path.Ext(base))
	if strings.HasSuffix(base, "_test") || strings.HasSuffix(base, "-test") || strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_unittest") {
		return true
	}
	return strings.Contains("/"+rel, "/test/") || strings.Contains("/"+rel, "/tests/")
}

// extract reads the declarations of one parsed file (root nil: not
// parsed, the file has its scope empty).
func extract(rel string, orig, src []byte, root *sitter.Node) *sourceFile {
	f := &sourceFile{rel: rel, data: src, orig: orig, scope: newScope(rel)}
	if ms := scanMacros(orig); len(ms) > 0 {
		f.scope.Macros = ms
	}
	if root == nil {
		return f
	}
	x := &extractor{src: src, f: f}
	x.block(root, &declCtx{})
	if root.HasError() {
		f.errs = sitter.SyntaxErrors(root)
	}
	return f
}

func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return n.Utf8Text(x.src)
}

// block walks the declarations of a translation unit, namespace body,
// linkage specification or preprocessor conditional.
func (x *extractor) block(n *sitter.Node, c *declCtx) {
	x.sib.Index(n)
	for _, st := range sitter.Children(n) {
		x.decl(st, c)
	}
}

// decl reads one declaration at namespace level.
func (x *extractor) decl(st *sitter.Node, c *declCtx) {
	switch st.Kind() {
	case "namespace_definition":
		x.namespace(st, c)
	case "linkage_specification", "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef":
		if b := st.ChildByFieldName("body"); b != nil {
			x.block(b, c)
			return
		}
		x.block(st, c)
	case "declaration_list":
		x.block(st, c)
	case "template_declaration":
		cc := *c
		cc.template = true
		for _, ch := range sitter.Children(st) {
			if ch.Kind() != "template_parameter_list" {
				x.decl(ch, &cc)
			}
		}
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		x.typeSpec(st, st, c)
	case "function_definition":
		x.function(st, c, true)
	case "declaration", "field_declaration":
		if t := st.ChildByFieldName("type"); t != nil {
			x.typeSpec(t, st, c)
		}
		if fd := funcDeclarator(st.ChildByFieldName("declarator")); fd != nil {
			x.function(st, c, false)
		}
	case "type_definition", "alias_declaration":
		x.alias(st, c)
	case "using_declaration":
		x.using(st, c)
	case "preproc_include":
		if p := st.ChildByFieldName("path"); p != nil && p.Kind() == "string_literal" {
			x.f.incs = append(x.f.incs, include{path: strings.Trim(x.text(p), `"`), line: sitter.Line(st)})
		}
	}
}

// namespace reads a namespace definition. An inline namespace adds no
// name (fmt::v11::format is fmt::format), an unnamed one makes what it
// declares the file's own.
func (x *extractor) namespace(st *sitter.Node, c *declCtx) {
	cc := *c
	name := x.text(st.ChildByFieldName("name"))
	inline := false
	for _, ch := range sitter.AllChildren(st) {
		if ch.Kind() == "inline" {
			inline = true
		}
	}
	switch {
	case name == "":
		cc.local = true
	case inline:
	default:
		for _, part := range strings.Split(strings.ReplaceAll(name, " ", ""), "::") {
			if part = strings.TrimPrefix(part, "inline"); part != "" && !strings.HasPrefix(name, "inline") {
				cc.ns = join(cc.ns, part)
			}
		}
		x.f.scope.NS = appendNew(x.f.scope.NS, cc.ns)
	}
	if b := st.ChildByFieldName("body"); b != nil {
		x.block(b, &cc)
	}
}

func appendNew(list []string, s string) []string {
	for _, v := range list {
		if v == s {
			return list
		}
	}
	return append(list, s)
}

// using reads a using-directive (using namespace X) or declaration.
func (x *extractor) using(st *sitter.Node, c *declCtx) {
	isNS := false
	for _, ch := range sitter.AllChildren(st) {
		if ch.Kind() == "namespace" {
			isNS = true
		}
	}
	if !isNS {
		return
	}
	for _, ch := range sitter.Children(st) {
		if k := ch.Kind(); k == "identifier" || k == "qualified_identifier" || k == "namespace_identifier" {
			u := c.ns + "|" + strings.ReplaceAll(x.text(ch), " ", "")
			x.f.scope.Usings = appendNew(x.f.scope.Usings, u)
			c.usings = append(c.usings, u)
		}
	}
}

// alias reads a typedef or using-alias: `using It = Foo*;`.
func (x *extractor) alias(st *sitter.Node, c *declCtx) {
	t := st.ChildByFieldName("type")
	if t == nil {
		return
	}
	if st.Kind() == "type_definition" {
		x.typeSpec(t, st, c)
		for _, d := range sitter.FieldChildren(st, "declarator") {
			if name := declName(x, d); name != "" {
				x.f.scope.Aliases[join(qualOf(c), name)] = c.ns + "|" + x.text(t) + pointerSuffix(d)
			}
		}
		return
	}
	if n := st.ChildByFieldName("name"); n != nil {
		x.f.scope.Aliases[join(qualOf(c), x.text(n))] = c.ns + "|" + x.text(t)
	}
}

// qualOf is the qualified name of the context: its class or namespace.
func qualOf(c *declCtx) string {
	if c.cls != nil {
		return c.cls.Q
	}
	return c.ns
}

// pointerSuffix is "*" when a declarator declares a pointer.
func pointerSuffix(d *sitter.Node) string {
	for d != nil {
		switch d.Kind() {
		case "pointer_declarator", "array_declarator", "abstract_pointer_declarator":
			return "*"
		case "reference_declarator":
			d = firstNamed(d)
			continue
		}
		return ""
	}
	return ""
}

func firstNamed(n *sitter.Node) *sitter.Node {
	if n.NamedChildCount() == 0 {
		return nil
	}
	return n.NamedChild(0)
}

// declName is the name a declarator declares, through pointers,
// references, arrays and initialisers.
func declName(x *extractor, d *sitter.Node) string {
	for d != nil {
		switch d.Kind() {
		case "identifier", "field_identifier", "type_identifier":
			return x.text(d)
		case "pointer_declarator", "reference_declarator", "array_declarator", "init_declarator", "attributed_declarator", "parenthesized_declarator":
			if inner := d.ChildByFieldName("declarator"); inner != nil {
				d = inner
			} else {
				d = firstNamed(d)
			}
		default:
			return ""
		}
	}
	return ""
}

// funcDeclarator finds the function declarator under a declarator
// (through the pointers and references of its return type); nil when it
// declares no function.
func funcDeclarator(d *sitter.Node) *sitter.Node {
	for d != nil {
		switch d.Kind() {
		case "function_declarator":
			return d
		case "pointer_declarator", "reference_declarator", "attributed_declarator":
			d = innerDeclarator(d)
		default:
			return nil
		}
	}
	return nil
}

// innerDeclarator is the declarator a pointer, reference or attributed
// declarator wraps (a reference declarator holds it unnamed).
func innerDeclarator(d *sitter.Node) *sitter.Node {
	if in := d.ChildByFieldName("declarator"); in != nil {
		return in
	}
	for _, c := range sitter.Children(d) {
		if strings.HasSuffix(c.Kind(), "declarator") || c.Kind() == "identifier" || c.Kind() == "field_identifier" {
			return c
		}
	}
	return nil
}

// typeSpec reads a class, struct, union or enum with a body (a type
// named but not defined here is no declaration).
func (x *extractor) typeSpec(t, st *sitter.Node, c *declCtx) {
	switch t.Kind() {
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
	default:
		return
	}
	body := t.ChildByFieldName("body")
	name := strings.Join(strings.Fields(x.text(t.ChildByFieldName("name"))), "")
	if body == nil || name == "" {
		return
	}
	kind := strings.TrimSuffix(t.Kind(), "_specifier")
	td := &typeDef{Q: join(qualOf(c), strings.TrimPrefix(name, "::")), Kind: kind, NS: c.ns, Template: c.template, Fields: map[string]string{}, scope: x.f.scope}
	if q := parentNS(name); q != "" && c.cls == nil { // struct a::B { … } defined outside a
		td.Q = join(c.ns, name)
	}
	for _, ch := range sitter.Children(t) {
		if ch.Kind() != "base_class_clause" {
			continue
		}
		for _, b := range sitter.Children(ch) {
			switch b.Kind() {
			case "type_identifier", "qualified_identifier", "template_type":
				td.Bases = append(td.Bases, strings.Join(strings.Fields(x.text(b)), ""))
			}
		}
	}
	x.f.scope.Types = append(x.f.scope.Types, td)
	x.f.decls = append(x.f.decls, declSite{td: td, n: st, exported: !c.local && (c.cls == nil || c.public), doc: x.doc(st)})
	if kind == "enum" {
		return
	}
	cc := &declCtx{ns: c.ns, cls: td, usings: c.usings, local: c.local, public: kind != "class"}
	x.sib.Index(body)
	for _, m := range sitter.Children(body) {
		x.member(m, cc)
	}
}

// member reads one member of a class body.
func (x *extractor) member(m *sitter.Node, c *declCtx) {
	switch m.Kind() {
	case "access_specifier":
		a := x.text(m)
		c.public = strings.HasPrefix(a, "public") || strings.HasPrefix(a, "protected")
	case "field_declaration", "declaration":
		if t := m.ChildByFieldName("type"); t != nil {
			x.typeSpec(t, m, c)
		}
		if fd := funcDeclarator(m.ChildByFieldName("declarator")); fd != nil {
			x.function(m, c, false)
			return
		}
		if c.cls.Kind == "union" && m.ChildByFieldName("type") == nil {
			return
		}
		t := x.text(m.ChildByFieldName("type"))
		for _, d := range sitter.FieldChildren(m, "declarator") {
			if name := declName(x, d); name != "" {
				c.cls.Fields[name] = c.ns + "|" + t + pointerSuffix(d)
				x.f.decls = append(x.f.decls, declSite{td: c.cls, field: name, n: m, exported: c.public, doc: x.doc(m)})
			}
		}
	case "function_definition":
		x.function(m, c, true)
	case "friend_declaration":
		// A friend function is its namespace's, found by its arguments'
		// classes (operator==, compare(a, b)).
		fc := &declCtx{ns: c.ns, usings: c.usings, template: c.template, local: c.local, public: true}
		for _, ch := range sitter.Children(m) {
			switch ch.Kind() {
			case "function_definition":
				x.function(ch, fc, true)
			case "declaration":
				if funcDeclarator(ch.ChildByFieldName("declarator")) != nil {
					x.function(ch, fc, false)
				}
			case "template_declaration":
				x.member(ch, fc)
			}
		}
	case "template_declaration":
		cc := *c
		cc.template = true
		for _, ch := range sitter.Children(m) {
			if ch.Kind() != "template_parameter_list" {
				x.member(ch, &cc)
			}
		}
		c.public = cc.public
	case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif":
		for _, ch := range sitter.Children(m) {
			x.member(ch, c)
		}
	case "class_specifier", "struct_specifier", "union_specifier", "enum_specifier":
		x.typeSpec(m, m, c)
	case "type_definition", "alias_declaration":
		x.alias(m, c)
	}
}

// doc returns the first line of the comment right before st: a /** … */
// block or a run of /// lines.
func (x *extractor) doc(st *sitter.Node) string {
	prev := x.sib.PrevNamedOf(st)
	if prev == nil || prev.Kind() != "comment" || sitter.EndLine(prev)+1 < sitter.Line(st) {
		return ""
	}
	s := x.text(prev)
	if strings.HasPrefix(s, "///") || strings.HasPrefix(s, "//!") {
		return strings.TrimSpace(s[3:])
	}
	return sitter.DocComment(st, prev, x.src, "comment")
}

// signature is a declaration's header without its body, whitespace
// collapsed, at most 200 bytes.
func (x *extractor) signature(def *sitter.Node) string {
	start, end := def.StartByte(), def.EndByte()
	if b := def.ChildByFieldName("body"); b != nil {
		end = b.StartByte()
	}
	s := strings.Join(strings.Fields(string(x.src[start:end])), " ")
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ";"))
}

// nodeFor builds the node of a declaration site.
func (x *extractor) node(id graphdb.NodeID, kind graphdb.NodeKind, sub, name, q, ns string, site declSite) graphdb.Node {
	return graphdb.Node{ID: id, Kind: kind, SubKind: sub, Name: name, QName: q, Loc: x.f.rel + ":" + locQ(q, ns),
		Language: "cpp", File: x.f.rel, StartLine: sitter.Line(site.n), EndLine: sitter.EndLine(site.n),
		Signature: x.signature(site.n), Doc: site.doc, Exported: site.exported, Test: isTest(x.f.rel), Testdata: frontend.IsTestdata(x.f.rel)}
}

// locQ is the location name of a qualified name declared in namespace
// ns: its classes and name without the namespace, dotted (ns::C::m →
// C.m) as the other languages write them; a free function is its name.
func locQ(q, ns string) string {
	if ns != "" {
		q = strings.TrimPrefix(q, ns+"::")
	}
	return strings.Join(splitQ(q), ".")
}
