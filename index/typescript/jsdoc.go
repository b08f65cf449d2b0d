//go:build cgo

package typescript

import (
	"regexp"
	"strings"

	"github.com/relayhq/relay/index/internal/sitter"
)

// jsDoc is what a JSDoc comment says about types, as type expressions
// of the scope (typeName's form): @param {T} name, @returns {T} (or
// @return), @type {T}.
type jsDoc struct {
	params  map[string]string
	returns string
	typ     string
}

// DESIGN: JavaScript files are typed by their JSDoc comments as
// TypeScript files are by annotations (the TypeScript compiler does the
// same for .js files). A comment types the declaration it directly
// precedes: a function, method, class field or variable statement, or
// the statement holding it (export, `const f = function`, an object
// property, `this.x = …`). `import('./m').T` types and the @typedef and
// @import tags bind names in the file's scope like imports, so the types
// resolve through the same tables. TypeScript files ignore JSDoc types,
// as the compiler does.

// jsDocClimb are the parents a JSDoc comment may stand before instead
// of the declaration itself.
var jsDocClimb = map[string]bool{
	"export_statement": true, "variable_declarator": true, "lexical_declaration": true, "variable_declaration": true,
	"expression_statement": true, "assignment_expression": true, "pair": true, "field_definition": true,
	"public_field_definition": true, "parenthesized_expression": true,
}

// jsdocFor returns the JSDoc comment right before n (or before the
// statement holding it), nil in TypeScript files or when there is none.
func (x *extractor) jsdocFor(n *sitter.Node) *jsDoc {
	if x.lang != "javascript" || n == nil {
		return nil
	}
	for cur := n; cur != nil; cur = x.parentOf(cur) {
		if p := x.parentOf(cur); p != nil {
			x.sib.Index(p)
		}
		if prev := x.sib.PrevOf(cur); prev != nil && prev.Kind() == "comment" && int(prev.EndPosition().Row)+1 >= int(cur.StartPosition().Row) {
			if s := x.text(prev); strings.HasPrefix(s, "/**") {
				return x.parseJSDoc(s, prev)
			}
		}
		p := x.parentOf(cur)
		if p == nil || !jsDocClimb[p.Kind()] {
			return nil
		}
	}
	return nil
}

// parseJSDoc reads the type tags of one comment; at names the position
// of specifiers it uses (imports edges).
func (x *extractor) parseJSDoc(s string, at *sitter.Node) *jsDoc {
	d := &jsDoc{}
	for _, tag := range jsdocTags(s) {
		name, typ, rest := tag[0], tag[1], tag[2]
		switch name {
		case "param", "arg", "argument":
			p := jsdocParamName(rest)
			if t := x.jsdocType(typ, at); p != "" && t != "" {
				if d.params == nil {
					d.params = map[string]string{}
				}
				d.params[p] = t
			}
		case "returns", "return":
			d.returns = x.jsdocType(typ, at)
		case "type":
			d.typ = x.jsdocType(typ, at)
		}
	}
	return d
}

// jsdocDecls binds the names a top-level comment's @typedef and @import
// tags declare: `@typedef {import('./m').T} Name` and
// `@import { T, U as V } from './m'` (also `* as ns`).
func (x *extractor) jsdocDecls(c *sitter.Node) {
	s := x.text(c)
	if x.lang != "javascript" || !strings.HasPrefix(s, "/**") {
		return
	}
	sc := x.f.scope
	for _, tag := range jsdocTags(s) {
		switch tag[0] {
		case "typedef":
			name := strings.Fields(tag[2] + " ")[0]
			spec, imported, ok := jsdocImportType(tag[1])
			if !ok || name == "" || !identRE.MatchString(name) || imported == "" || strings.Contains(imported, ".") {
				continue
			}
			if _, taken := sc.Imports[name]; !taken && sc.Decls[name] == nil {
				sc.Imports[name] = imp{Spec: spec, Name: imported}
				x.useSpec(spec, c)
			}
		case "import":
			text := tag[2]
			if tag[1] != "" { // the braces of `{ T } from` were read as a type
				text = "{" + tag[1] + "} " + text
			}
			x.jsdocImport(text, c)
		}
	}
}

// jsdocImport binds `{ T, U as V } from './m'` or `* as ns from './m'`.
func (x *extractor) jsdocImport(text string, at *sitter.Node) {
	m := jsdocImportRE.FindStringSubmatch(text)
	if m == nil {
		return
	}
	what, spec := strings.TrimSpace(m[1]), m[3]
	sc := x.f.scope
	bind := func(local, name string) {
		if _, taken := sc.Imports[local]; !taken && sc.Decls[local] == nil && identRE.MatchString(local) {
			sc.Imports[local] = imp{Spec: spec, Name: name}
		}
	}
	if ns, ok := strings.CutPrefix(what, "*"); ok {
		if f := strings.Fields(ns); len(f) == 2 && f[0] == "as" {
			bind(f[1], "*")
		}
	} else {
		for _, part := range strings.Split(strings.Trim(what, "{} "), ",") {
			f := strings.Fields(part)
			switch {
			case len(f) == 1:
				bind(f[0], f[0])
			case len(f) == 3 && f[1] == "as":
				bind(f[2], f[0])
			}
		}
	}
	x.useSpec(spec, at)
}

var (
	identRE       = regexp.MustCompile(`^[A-Za-z_$][\w$]*$`)
	dottedRE      = regexp.MustCompile(`^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$`)
	jsdocImportRE = regexp.MustCompile(`^\s*(\{[^}]*\}|\*\s+as\s+[\w$]+)\s+from\s+(['"])([^'"]+)['"]`)
	jsdocImpTyRE  = regexp.MustCompile(`^import\(\s*(['"])([^'"]+)['"]\s*\)((?:\.[A-Za-z_$][\w$]*)*)$`)
)

// jsdocTags splits a JSDoc comment into its tags: name, the {type} (may
// be empty) and the text after it up to the next tag.
func jsdocTags(s string) [][3]string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "/**"), "*/")
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, strings.TrimPrefix(strings.TrimSpace(l), "*"))
	}
	s = strings.Join(lines, "\n")
	// A tag starts at an "@" after white space, outside braces (not in
	// `{import('@scope/m').T}` or an e-mail address).
	var chunks []string
	depth, start := 0, -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case '@':
			if depth == 0 && (i == 0 || s[i-1] == ' ' || s[i-1] == '\n' || s[i-1] == '\t') {
				if start >= 0 {
					chunks = append(chunks, s[start:i])
				}
				start = i + 1
			}
		}
	}
	if start >= 0 {
		chunks = append(chunks, s[start:])
	}
	var out [][3]string
	for _, chunk := range chunks {
		name, rest, _ := strings.Cut(strings.Replace(chunk, "\n", " ", 1), " ")
		rest = strings.TrimSpace(rest)
		typ := ""
		if strings.HasPrefix(rest, "{") {
			depth := 0
			for i, r := range rest {
				switch r {
				case '{':
					depth++
				case '}':
					depth--
				}
				if depth == 0 {
					typ, rest = rest[1:i], strings.TrimSpace(rest[i+1:])
					break
				}
			}
		}
		out = append(out, [3]string{name, typ, rest})
	}
	return out
}

// jsdocParamName is the parameter a @param tag names: "x", "[x]",
// "[x=1]"; "" for a property of a parameter ("opts.x") or none.
func jsdocParamName(rest string) string {
	f := strings.Fields(rest)
	if len(f) == 0 {
		return ""
	}
	p := strings.TrimPrefix(f[0], "[")
	if i := strings.IndexAny(p, "=]"); i >= 0 {
		p = p[:i]
	}
	if !identRE.MatchString(p) {
		return ""
	}
	return p
}

// jsdocType reduces a JSDoc type to a type expression of the scope, as
// typeName does for annotations: one named type ("Foo", "ns.Foo") or an
// import type (bound in the scope under a name of its own), with `?`,
// `!`, `=`, `...`, generics and `|null|undefined` dropped; "" otherwise.
func (x *extractor) jsdocType(t string, at *sitter.Node) string {
	t = strings.TrimSpace(t)
	t = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(t, "..."), "?"), "!")
	t = strings.TrimSuffix(t, "=")
	if strings.HasPrefix(t, "(") && strings.HasSuffix(t, ")") && !strings.HasPrefix(t, "import(") {
		t = t[1 : len(t)-1]
	}
	one := ""
	for _, part := range jsdocSplit(t, '|') {
		part = strings.TrimSpace(part)
		if part == "null" || part == "undefined" || part == "void" {
			continue
		}
		if one != "" {
			return ""
		}
		one = part
	}
	if i := strings.IndexByte(one, '<'); i > 0 && !strings.HasPrefix(one, "import(") {
		one = strings.TrimSuffix(one[:i], ".")
	}
	if spec, name, ok := jsdocImportType(one); ok {
		head, tail, _ := strings.Cut(name, ".")
		if head == "" {
			head = "*"
		}
		key := "import(" + strings.ReplaceAll(spec, ".", "%2E") + ")" + head
		sc := x.f.scope
		if _, ok := sc.Imports[key]; !ok {
			sc.Imports[key] = imp{Spec: spec, Name: head}
			x.useSpec(spec, at)
		}
		if tail != "" {
			return key + "." + tail
		}
		return key
	}
	if !dottedRE.MatchString(one) {
		return ""
	}
	return one
}

// jsdocImportType splits `import('./m').A.B` into "./m" and "A.B".
func jsdocImportType(t string) (spec, name string, ok bool) {
	m := jsdocImpTyRE.FindStringSubmatch(strings.TrimSpace(t))
	if m == nil {
		return "", "", false
	}
	return m[2], strings.TrimPrefix(m[3], "."), true
}

// jsdocSplit splits s at sep outside brackets, parentheses, braces and angles.
func jsdocSplit(s string, sep byte) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '<', '{', '[':
			depth++
		case ')', '>', '}', ']':
			depth--
		case sep:
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// docType is the @type of the JSDoc comment before n, "" without one.
func (x *extractor) docType(n *sitter.Node) string {
	if d := x.jsdocFor(n); d != nil {
		return d.typ
	}
	return ""
}

// docReturns is the @returns type of the JSDoc comment before fn.
func (x *extractor) docReturns(fn *sitter.Node) string {
	if d := x.jsdocFor(fn); d != nil {
		return d.returns
	}
	return ""
}

// docParams are the @param types of the JSDoc comment before fn, by name.
func (x *extractor) docParams(fn *sitter.Node) map[string]string {
	if d := x.jsdocFor(fn); d != nil {
		return d.params
	}
	return nil
}

// jsParamName is the name a JavaScript parameter binds (x, x = 1), "".
func (x *extractor) jsParamName(p *sitter.Node) string {
	switch p.Kind() {
	case "identifier":
		return x.text(p)
	case "assignment_pattern":
		if l := p.ChildByFieldName("left"); l != nil && l.Kind() == "identifier" {
			return x.text(l)
		}
	}
	return ""
}
