//go:build cgo

package cpp

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// DESIGN: macros. tree-sitter parses C++ as written, before the
// preprocessor, so a declaration behind a repository's macro
// (FMT_BEGIN_NAMESPACE opening `namespace fmt {`, FMT_CONSTEXPR before a
// function, an assertion macro around a call) parses as an error or as
// something else. The frontend therefore expands the macros the
// repository defines before parsing: every file's #define lines are read
// (scanMacros; the preprocessor's directives are lines, which needs no
// grammar), the first definition of a name in path order is the
// repository's, except that an object-like macro defined empty in one of
// its alternatives is empty (conditional alternatives are not evaluated:
// an attribute or export macro, FMT_API, is then nothing rather than a
// platform's __declspec), and each
// file is parsed with those macros expanded (expand), object-like and
// function-like, outside directives, comments and literals; explicit
// instantiation declarations (extern template …;), which declare
// nothing and which tree-sitter-cpp misreads, are blanked. An expansion
// stays on its line (a definition's continuation lines are joined, the
// line breaks of a call's arguments follow its expansion), so every line
// number is the file's own. Macros of the system or of libraries outside
// the repository are not known and stay as written. Each file node
// records the fingerprint of the macros it was parsed with
// (cpp.macros); a run whose macros differ from a stored file's parses
// that file again, so a changed macro re-indexes what it may change.

// macro is one #define: Params is nil for an object-like macro.
type macro struct {
	Params []string `json:"p,omitempty"`
	Fn     bool     `json:"f,omitempty"`
	Body   string   `json:"b"`
}

// maxExpansion bounds the text expansion may produce, as a multiple of
// the file's size (plus a constant): a macro bomb stays a file parsed as
// written.
const (
	maxExpansionFactor = 8
	maxExpansionExtra  = 1 << 20
	maxMacroDepth      = 32
)

// scanMacros reads the #define directives of a file: name → definition.
func scanMacros(src []byte) map[string]macro {
	out := map[string]macro{}
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if !strings.HasPrefix(l, "#") {
			continue
		}
		full := l
		for strings.HasSuffix(full, "\\") && i+1 < len(lines) {
			i++
			full = strings.TrimSuffix(full, "\\") + " " + strings.TrimSpace(lines[i])
		}
		rest := strings.TrimSpace(full[1:])
		rest, ok := strings.CutPrefix(rest, "define")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '\t') {
			continue
		}
		rest = strings.TrimLeft(rest, " \t")
		n := 0
		for n < len(rest) && isWordByte(rest[n]) {
			n++
		}
		name := rest[:n]
		if name == "" || name[0] >= '0' && name[0] <= '9' {
			continue
		}
		if old, seen := out[name]; seen && (old.Body == "" || old.Fn) {
			continue
		}
		m := macro{}
		rest = rest[n:]
		if strings.HasPrefix(rest, "(") {
			end := strings.IndexByte(rest, ')')
			if end < 0 {
				continue
			}
			m.Fn = true
			for _, p := range strings.Split(rest[1:end], ",") {
				if p = strings.TrimSpace(p); p != "" {
					m.Params = append(m.Params, p)
				}
			}
			rest = rest[end+1:]
		}
		m.Body = strings.TrimSpace(stripComments(rest))
		if _, seen := out[name]; seen && (m.Body != "" || m.Fn) {
			continue // an object-like macro keeps its empty alternative
		}
		out[name] = m
	}
	return out
}

// stripComments drops the comments of one directive's text.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case strings.HasPrefix(s[i:], "//"):
			return b.String()
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		case s[i] == '"' || s[i] == '\'':
			j := skipLiteral(s, i)
			b.WriteString(s[i:j])
			i = j - 1
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// skipLiteral returns the end of the string or character literal at i.
func skipLiteral(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n':
			return j
		}
	}
	return len(s)
}

// macroSet is the repository's macros: each name's first definition in
// path order.
type macroSet struct {
	defs map[string]macro
	fp   string
}

func newMacroSet(byFile map[string]map[string]macro) *macroSet {
	ms := &macroSet{defs: map[string]macro{}}
	files := make([]string, 0, len(byFile))
	for f := range byFile {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		for name, m := range byFile[f] {
			if old, ok := ms.defs[name]; !ok || !old.Fn && old.Body != "" && !m.Fn && m.Body == "" {
				ms.defs[name] = m
			}
		}
	}
	names := make([]string, 0, len(ms.defs))
	for n := range ms.defs {
		names = append(names, n)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		m := ms.defs[n]
		h.Write([]byte(n + "(" + strings.Join(m.Params, ",") + ")" + boolStr(m.Fn) + "=" + m.Body + "\n"))
	}
	ms.fp = hex.EncodeToString(h.Sum(nil)[:12])
	return ms
}

func boolStr(b bool) string {
	if b {
		return "f"
	}
	return ""
}

// expand returns src with the set's macros expanded, each expansion on
// the line of its name; src itself when nothing expands or the expansion
// grows past its bound.
func (ms *macroSet) expand(src []byte) []byte {
	if ms == nil {
		return src
	}
	e := &expander{ms: ms, limit: len(src)*maxExpansionFactor + maxExpansionExtra}
	out, changed := e.text(string(src), nil, 0, true)
	if !changed || e.over {
		return src
	}
	return []byte(out)
}

type expander struct {
	ms    *macroSet
	limit int
	size  int
	over  bool
}

// text expands s; hide holds the macros being expanded (not expanded
// again inside themselves), top whether s is a file (its directives are
// left alone).
func (e *expander) text(s string, hide map[string]bool, depth int, top bool) (string, bool) {
	var b strings.Builder
	changed := false
	lineStart := true
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case top && lineStart && c == '#':
			j := i
			for j < len(s) && (s[j] != '\n' || j > 0 && s[j-1] == '\\') {
				j++
			}
			b.WriteString(s[i:j])
			i = j
			continue
		case c == ' ' || c == '\t' || c == '\r':
			b.WriteByte(c)
			i++
			continue
		case c == '\n':
			b.WriteByte(c)
			lineStart = true
			i++
			continue
		}
		lineStart = false
		switch {
		case strings.HasPrefix(s[i:], "//"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				j = len(s) - i
			}
			b.WriteString(s[i : i+j])
			i += j
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			end := len(s)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(s[i:end])
			i = end
		case c == '"' || c == '\'':
			j := skipLiteral(s, i)
			b.WriteString(s[i:j])
			i = j
		case isWordByte(c):
			j := i
			for j < len(s) && isWordByte(s[j]) {
				j++
			}
			word := s[i:j]
			if top && word == "extern" {
				if end, ok := externTemplate(s, j); ok {
					b.WriteString(blank(s[i:end]))
					changed = true
					i = end
					continue
				}
			}
			m, ok := e.ms.defs[word]
			if !ok || hide[word] || depth >= maxMacroDepth || c >= '0' && c <= '9' || e.over {
				b.WriteString(word)
				i = j
				continue
			}
			rep, next, ok := e.one(s, word, m, j, hide, depth)
			if !ok {
				b.WriteString(word)
				i = j
				continue
			}
			changed = true
			b.WriteString(rep)
			i = next
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), changed
}

// one expands the macro word, whose name ends at j: its replacement and
// where the text goes on; false for a function-like macro named without
// arguments.
func (e *expander) one(s, word string, m macro, j int, hide map[string]bool, depth int) (string, int, bool) {
	inner := map[string]bool{word: true}
	for h := range hide {
		inner[h] = true
	}
	body, next, breaks := m.Body, j, 0
	if m.Fn {
		k := j
		for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
			k++
		}
		if k >= len(s) || s[k] != '(' {
			return "", 0, false
		}
		args, end, ok := splitArgs(s, k)
		if !ok {
			return "", 0, false
		}
		breaks = strings.Count(s[j:end], "\n")
		body, next = substitute(m, args), end
	}
	out, _ := e.text(body, inner, depth+1, false)
	out = strings.ReplaceAll(out, "\n", " ")
	if e.size += len(out); e.size > e.limit {
		e.over = true
	}
	return out + strings.Repeat("\n", breaks), next, true
}

// externTemplate reports whether the text after "extern" (at j) is an
// explicit instantiation declaration, `extern template … ;`, which
// tree-sitter-cpp does not parse (it runs into the declarations after
// it) and which declares nothing: where its ";" ends.
func externTemplate(s string, j int) (int, bool) {
	k := j
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	if !strings.HasPrefix(s[k:], "template") || k+8 < len(s) && (isWordByte(s[k+8]) || s[k+8] == '<') {
		return 0, false
	}
	end := strings.IndexByte(s[k:], ';')
	if end < 0 {
		return 0, false
	}
	return k + end + 1, true
}

// blank is s with everything but its line breaks made spaces.
func blank(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c != '\n' {
			b[i] = ' '
		}
	}
	return string(b)
}

// splitArgs reads the arguments of a macro call whose "(" is at k: the
// arguments, split at top-level commas, and the index after ")".
func splitArgs(s string, k int) ([]string, int, bool) {
	var args []string
	depth, start := 0, k+1
	for i := k; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				if len(args) == 1 && args[0] == "" {
					args = nil
				}
				return args, i + 1, true
			}
		case ',':
			if depth == 1 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		case '"', '\'':
			i = skipLiteral(s, i) - 1
		}
	}
	return nil, 0, false
}

// substitute puts a call's arguments in a function-like macro's body:
// parameters, __VA_ARGS__, # (a string of the argument) and ## (pasted).
func substitute(m macro, args []string) string {
	val := map[string]string{}
	for i, p := range m.Params {
		switch {
		case p == "...":
			if i < len(args) {
				val["__VA_ARGS__"] = strings.Join(args[i:], ", ")
			} else {
				val["__VA_ARGS__"] = ""
			}
		case strings.HasSuffix(p, "..."): // a named variadic parameter
			val[strings.TrimSuffix(p, "...")] = strings.Join(args[min(i, len(args)):], ", ")
		case i < len(args):
			val[p] = args[i]
		default:
			val[p] = ""
		}
	}
	body := m.Body
	var b strings.Builder
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c == '#' && i+1 < len(body) && body[i+1] == '#':
			s := strings.TrimRight(b.String(), " \t")
			b.Reset()
			b.WriteString(s)
			i += 2
			for i < len(body) && (body[i] == ' ' || body[i] == '\t') {
				i++
			}
		case c == '#':
			j := i + 1
			for j < len(body) && (body[j] == ' ' || body[j] == '\t') {
				j++
			}
			k := j
			for k < len(body) && isWordByte(body[k]) {
				k++
			}
			if v, ok := val[body[j:k]]; ok && k > j {
				b.WriteString(`"` + strings.ReplaceAll(v, `"`, `\"`) + `"`)
				i = k
				continue
			}
			b.WriteByte(c)
			i++
		case c == '"' || c == '\'':
			j := skipLiteral(body, i)
			b.WriteString(body[i:j])
			i = j
		case isWordByte(c):
			j := i
			for j < len(body) && isWordByte(body[j]) {
				j++
			}
			if v, ok := val[body[i:j]]; ok {
				b.WriteString(v)
			} else {
				b.WriteString(body[i:j])
			}
			i = j
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}
