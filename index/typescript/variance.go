//go:build cgo

package typescript

import "bytes"

// Two TypeScript modifiers are not in the grammar tree-sitter-typescript
// v0.23.2 (the newest release) parses: TypeScript 4.7's variance
// annotations on type parameters (interface Z<out O = unknown, in I>,
// class C<in out T>; zod 4 writes them on most of its schemas), and
// TypeScript 5.0's accessor after another modifier (static accessor n,
// which the grammar takes for a field named accessor). Each use breaks the
// code around it into ERROR nodes and reports syntax errors. Neither says
// anything the index records, so a file that does not parse is parsed
// again with them blanked (blankModifiers): spaces of the same length
// keep every byte offset, line and column, and the second tree is
// extracted against the file's real bytes.

// blankModifiers returns a copy of src with those modifiers replaced by
// spaces, and whether it found any. A variance modifier is an in, out or
// in out after a type parameter list's < or a , (comments and a const
// modifier may come between), followed by the parameter's name and then
// extends, =, a , or the closing >; nothing else in a valid program has
// that shape (in is a keyword; out before a name and a , or > is no
// expression). An accessor modifier is the word accessor after another
// class member modifier and before the member's name. Comments, strings
// and template literals are skipped.
func blankModifiers(src []byte) ([]byte, bool) {
	return rewriteCode(src, func(edit func() []byte, i int) int {
		switch c := src[i]; {
		case c == '<' || c == ',':
			for _, m := range varianceAt(src, i+1) {
				out := edit()
				for k := m[0]; k < m[1]; k++ {
					out[k] = ' '
				}
			}
		case c == 'a' && accessorAt(src, i):
			copy(edit()[i:], "        ")
			return i + len("accessor")
		}
		return i + 1
	})
}

// rewriteCode calls at at each byte of src outside comments (and the
// white space after one), strings and template literals, in order, so
// that a rewrite never touches their text; at returns where the scan goes on (past i: i+1, or past what it
// handled). edit gives at the copy of src to change, made on first use:
// rewriteCode returns it and true, or src itself and false when at never
// asked for it.
func rewriteCode(src []byte, at func(edit func() []byte, i int) int) ([]byte, bool) {
	var out []byte
	edit := func() []byte {
		if out == nil {
			out = append([]byte(nil), src...)
		}
		return out
	}
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			i = skipSpace(src, i)
		case c == '\'' || c == '"' || c == '`':
			i = skipString(src, i)
		default:
			i = max(at(edit, i), i+1)
		}
	}
	if out == nil {
		return src, false
	}
	return out, true
}

// varianceAt returns the [start, end) ranges of the variance modifiers
// of the type parameter starting at i (right after a < or ,); none when
// what follows is not a type parameter with one.
func varianceAt(src []byte, i int) [][2]int {
	i = skipSpace(src, i)
	if w := wordAt(src, i); w == "const" {
		i = skipSpace(src, i+len(w))
	}
	var mods [][2]int
	for _, kw := range []string{"in", "out"} {
		if wordAt(src, i) != kw {
			continue
		}
		j := skipSpace(src, i+len(kw))
		if j == i+len(kw) { // a modifier is followed by space or a comment
			return nil
		}
		mods = append(mods, [2]int{i, i + len(kw)})
		i = j
	}
	name := wordAt(src, i)
	if len(mods) == 0 || name == "" || name == "extends" || name == "in" || name == "out" {
		return nil
	}
	i = skipSpace(src, i+len(name))
	switch {
	case wordAt(src, i) == "extends", i < len(src) && (src[i] == ',' || src[i] == '>'):
		return mods
	case i < len(src) && src[i] == '=' && (i+1 == len(src) || src[i+1] != '=' && src[i+1] != '>'):
		return mods
	}
	return nil
}

// wordAt is the identifier starting at i ("" when none does, or when i
// is inside a longer identifier).
func wordAt(src []byte, i int) string {
	if i >= len(src) || (i > 0 && identByte(src[i-1])) || src[i] >= '0' && src[i] <= '9' {
		return ""
	}
	j := i
	for j < len(src) && identByte(src[j]) {
		j++
	}
	return string(src[i:j])
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// skipSpace skips white space and comments from i.
func skipSpace(src []byte, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < len(src) && src[i+1] == '/':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			end := bytes.Index(src[i+2:], []byte("*/"))
			if end < 0 {
				return len(src)
			}
			i += 2 + end + 2
		default:
			return i
		}
	}
	return i
}

// skipString skips the string or template literal starting at i (its
// quote); a template's ${} parts are skipped with it.
func skipString(src []byte, i int) int {
	q := src[i]
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case q:
			return i + 1
		case '\n':
			if q != '`' { // an unterminated string ends at the line
				return i
			}
		}
	}
	return i
}

// accessorAt reports whether an accessor modifier the grammar does not
// take starts at i: the word accessor after static, override, readonly or
// an accessibility modifier (on the same line) and before a member name.
func accessorAt(src []byte, i int) bool {
	if wordAt(src, i) != "accessor" {
		return false
	}
	j := i
	for j > 0 && (src[j-1] == ' ' || src[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && identByte(src[k-1]) {
		k--
	}
	if k == j || j == i {
		return false
	}
	switch string(src[k:j]) {
	case "static", "override", "readonly", "public", "private", "protected":
	default:
		return false
	}
	n := i + len("accessor")
	m := n
	for m < len(src) && (src[m] == ' ' || src[m] == '\t') {
		m++
	}
	if m == n || m == len(src) {
		return false
	}
	return src[m] == '#' || src[m] == '[' || src[m] == '"' || src[m] == '\'' || wordAt(src, m) != ""
}

// nameDefaultSignatures rewrites the bodiless anonymous default
// functions of a declaration file (export default function (): T;, as
// tsc emits for export default function () {…}), which the grammar only
// takes with a name, to a function named default of the same length
// (export function  default(): T;): read against the rewritten text, the
// declaration exports it as default, as an anonymous default function of
// a source file is. It returns src itself, and false, when there is none.
func nameDefaultSignatures(src []byte) ([]byte, bool) {
	return rewriteCode(src, func(edit func() []byte, i int) int {
		if src[i] != 'e' || wordAt(src, i) != "export" {
			return i + 1
		}
		d := skipBlank(src, i+len("export"))
		f := skipBlank(src, d+len("default"))
		end := skipBlank(src, f+len("function"))
		if d == i+len("export") || wordAt(src, d) != "default" || f == d+len("default") || wordAt(src, f) != "function" ||
			end == len(src) || src[end] != '(' && src[end] != '<' {
			return i + len("export")
		}
		out := edit()
		copy(out[d:end], "function")
		for k := d + len("function"); k < end-len("default"); k++ {
			out[k] = ' '
		}
		copy(out[end-len("default"):end], "default")
		return end
	})
}

// skipBlank skips spaces and tabs from i.
func skipBlank(src []byte, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}
