//go:build cgo

package c

import (
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// extractor reads one file's facts from its syntax tree.
type extractor struct {
	src     []byte
	guards  map[int][]string // line → the conditions around it (blank)
	f       *facts
	globals map[string]string // file-scope variables: name → type name
}

// extract returns the facts of a parsed file.
func extract(src []byte, root *sitter.Node, guards map[int][]string) *facts {
	x := &extractor{src: src, f: &facts{}, globals: map[string]string{}, guards: guards}
	if root == nil {
		return x.f
	}
	x.f.Errors = sitter.SyntaxErrors(root)
	x.top(root)
	x.aliasNames()
	return x.f
}

// aliasNames renames the functions whose name the file #defines as
// another name (flex's `#define yy_create_buffer jq_yy_create_buffer`):
// the compiler defines the other.
func (x *extractor) aliasNames() {
	alias := map[string]string{}
	for _, m := range x.f.Macros {
		if !m.Func && len(m.Calls) == 1 {
			alias[m.Name] = m.Calls[0]
		}
	}
	for i, f := range x.f.Funcs {
		if to, ok := alias[f.Name]; ok {
			x.f.Funcs[i].Name = to
		}
	}
}

func (x *extractor) text(n *sitter.Node) string { return n.Utf8Text(x.src) }

// top reads the declarations of a translation unit or of a block the
// preprocessor or an error holds (both sides of #if are read, as
// tree-sitter parses them).
func (x *extractor) top(n *sitter.Node) {
	cs := sitter.Children(n)
	for i, c := range cs {
		nt := len(x.f.Types)
		switch c.Kind() {
		case "function_definition":
			nf := len(x.f.Funcs)
			x.function(c)
			if len(x.f.Funcs) > nf {
				x.f.Funcs[nf].Doc = x.doc(cs, i)
			}
		case "declaration":
			x.declaration(c, nil)
		case "type_definition":
			x.typedef(c)
		case "struct_specifier", "union_specifier", "enum_specifier":
			x.typeName(c)
		case "preproc_def", "preproc_function_def":
			x.macro(c)
		case "preproc_include":
			x.include(c)
		case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef", "ERROR", "linkage_specification", "declaration_list":
			x.top(c)
		}
		if len(x.f.Types) > nt && x.f.Types[nt].Line == sitter.Line(c) {
			doc := x.doc(cs, i)
			for k := nt; k < len(x.f.Types) && x.f.Types[k].Line == sitter.Line(c); k++ {
				x.f.Types[k].Doc = doc
			}
		}
	}
}

// doc returns the first text line of the comment right above cs[i]: a
// /* … */ block or the first of a run of // lines; "" when there is none.
func (x *extractor) doc(cs []*sitter.Node, i int) string {
	j, line := i-1, sitter.Line(cs[i])
	if j < 0 || cs[j].Kind() != "comment" || sitter.EndLine(cs[j]) < line-1 {
		return ""
	}
	for j > 0 && cs[j-1].Kind() == "comment" && sitter.EndLine(cs[j-1]) == sitter.Line(cs[j])-1 &&
		strings.HasPrefix(x.text(cs[j]), "//") && strings.HasPrefix(x.text(cs[j-1]), "//") {
		j--
	}
	s := x.text(cs[j])
	s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(s, "//"), "/*"), "*/")
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.Trim(strings.TrimSpace(l), "*/-= "))
		if l != "" {
			return l
		}
	}
	return ""
}

func (x *extractor) include(n *sitter.Node) {
	p := n.ChildByFieldName("path")
	if p == nil {
		return
	}
	t := x.text(p)
	switch p.Kind() {
	case "string_literal":
		x.f.Includes = append(x.f.Includes, include{Path: strings.Trim(t, `"`), Quoted: true, Line: sitter.Line(n)})
	case "system_lib_string":
		x.f.Includes = append(x.f.Includes, include{Path: strings.Trim(t, "<>"), Line: sitter.Line(n)})
	}
}

func (x *extractor) macro(n *sitter.Node) {
	name := n.ChildByFieldName("name")
	if name == nil {
		return
	}
	m := macro{Name: x.text(name), Line: sitter.Line(n), End: sitter.EndLine(n), Func: n.Kind() == "preproc_function_def", Guard: x.guards[sitter.Line(n)]}
	params := map[string]bool{}
	sig := "#define " + m.Name
	if ps := n.ChildByFieldName("parameters"); ps != nil {
		sig += strings.Join(strings.Fields(x.text(ps)), " ")
		for _, p := range sitter.Children(ps) {
			m.Params = append(m.Params, x.text(p))
			params[x.text(p)] = true
		}
	}
	m.Sig = sig
	if v := n.ChildByFieldName("value"); v != nil {
		body := strings.TrimSpace(x.text(v))
		if !m.Func && len(body) <= 32 {
			m.Value = body
		}
		if !m.Func && isName(body) {
			m.Calls = []string{body} // #define alias name: a call of alias(…) calls name
		}
		calls, idents := callNames(body)
		for _, c := range calls {
			if !params[c] {
				m.Calls = append(m.Calls, c)
			}
		}
		for _, c := range idents {
			if !params[c] && len(m.Idents) < maxIdents {
				m.Idents = append(m.Idents, c)
			}
		}
	}
	x.f.Macros = append(x.f.Macros, m)
}

// notCalls are the C keywords a name followed by "(" may be.
var notCalls = map[string]bool{
	"if": true, "while": true, "for": true, "switch": true, "return": true, "sizeof": true, "defined": true,
	"do": true, "else": true, "case": true, "_Alignof": true, "alignof": true, "__typeof__": true, "typeof": true,
	"__attribute__": true, "_Generic": true, "__builtin_expect": true, "_Static_assert": true, "static_assert": true,
}

// maxIdents bounds the names kept of a macro's body besides its calls.
const maxIdents = 32

// callNames returns the names in a macro body that are followed by "("
// and, apart, its other names, in order, without repeats.
//
// DESIGN: a macro's body is a token list the preprocessor pastes at each
// use, not C that tree-sitter can parse; a name directly followed by an
// opening parenthesis is a call once expanded (or another macro's use,
// which resolution follows). Strings and character literals are skipped.
func callNames(body string) (out, idents []string) {
	seen := map[string]bool{}
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(body) && body[j] != c {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case isIdentStart(c):
			j := i
			for j < len(body) && isIdent(body[j]) {
				j++
			}
			name := body[i:j]
			k := j
			for k < len(body) && (body[k] == ' ' || body[k] == '\t') {
				k++
			}
			switch {
			case seen[name] || notCalls[name] || i > 0 && body[i-1] == '#':
			case k < len(body) && body[k] == '(':
				out = append(out, name)
			default:
				idents = append(idents, name)
			}
			seen[name] = true
			i = j
		case c >= '0' && c <= '9':
			for i < len(body) && isIdent(body[i]) {
				i++
			}
		default:
			i++
		}
	}
	return out, idents
}

// typeName returns the name of a type specifier ("struct foo", a typedef
// name; "" for a built-in type) and records a struct, union or enum that
// has a body. An anonymous one records nothing and is named "".
func (x *extractor) typeName(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind() {
	case "type_identifier":
		return x.text(n)
	case "struct_specifier", "union_specifier", "enum_specifier":
	default:
		return ""
	}
	kind := strings.TrimSuffix(n.Kind(), "_specifier")
	name := ""
	if nm := n.ChildByFieldName("name"); nm != nil {
		name = x.text(nm)
	}
	if body := n.ChildByFieldName("body"); body != nil && name != "" {
		x.f.Types = append(x.f.Types, typ{Kind: kind, Name: name, Line: sitter.Line(n), End: sitter.EndLine(n), Fields: x.members(body)})
	}
	if name == "" {
		return ""
	}
	return kind + " " + name
}

// members returns the fields of a struct or union body or the constants
// of an enum's, recording the types nested in them.
func (x *extractor) members(body *sitter.Node) []member {
	var out []member
	for _, c := range sitter.Children(body) {
		switch c.Kind() {
		case "field_declaration":
			x.typeName(c.ChildByFieldName("type"))
			for _, d := range sitter.FieldChildren(c, "declarator") {
				if id := declName(d); id != nil {
					out = append(out, member{Name: x.text(id), Line: sitter.Line(id)})
				}
			}
		case "enumerator":
			if nm := c.ChildByFieldName("name"); nm != nil {
				out = append(out, member{Name: x.text(nm), Line: sitter.Line(nm)})
			}
		case "preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif":
			out = append(out, x.members(c)...)
		}
	}
	return out
}

// declName returns the name a declarator declares: the identifier under
// pointers, arrays, parentheses, function declarators and initializers.
func declName(d *sitter.Node) *sitter.Node {
	for d != nil {
		switch d.Kind() {
		case "identifier", "field_identifier", "type_identifier":
			return d
		case "pointer_declarator", "array_declarator", "function_declarator", "init_declarator", "attributed_declarator":
			d = d.ChildByFieldName("declarator")
			if d == nil {
				return nil
			}
		case "parenthesized_declarator":
			cs := sitter.Children(d)
			if len(cs) == 0 {
				return nil
			}
			d = cs[0]
		default:
			return nil
		}
	}
	return nil
}

// funcDeclarator returns the function declarator under d, nil when d
// declares no function (a pointer to one is a variable).
func funcDeclarator(d *sitter.Node) *sitter.Node {
	for d != nil {
		switch d.Kind() {
		case "function_declarator":
			if inner := d.ChildByFieldName("declarator"); inner != nil && inner.Kind() == "parenthesized_declarator" {
				return nil // int (*fp)(int): a pointer
			}
			return d
		case "pointer_declarator", "attributed_declarator":
			d = d.ChildByFieldName("declarator")
		default:
			return nil
		}
	}
	return nil
}

func (x *extractor) typedef(n *sitter.Node) {
	ty := n.ChildByFieldName("type")
	of := x.typeName(ty)
	var fields []member
	if of == "" && ty != nil && (ty.Kind() == "struct_specifier" || ty.Kind() == "union_specifier" || ty.Kind() == "enum_specifier") {
		if body := ty.ChildByFieldName("body"); body != nil {
			fields = x.members(body) // typedef struct { … } name: the typedef holds the fields
		}
	}
	for _, d := range sitter.FieldChildren(n, "declarator") {
		if id := declName(d); id != nil {
			x.f.Types = append(x.f.Types, typ{Kind: "typedef", Name: x.text(id), Line: sitter.Line(n), End: sitter.EndLine(n), Of: of, Fields: fields})
		}
	}
}

// isStatic reports whether a declaration or definition has the storage
// class static.
func (x *extractor) isStatic(n *sitter.Node) bool {
	for _, c := range sitter.Children(n) {
		if c.Kind() == "storage_class_specifier" && x.text(c) == "static" {
			return true
		}
	}
	return false
}
