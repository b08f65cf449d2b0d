package c

import (
	"bytes"
	"strconv"
	"strings"
)

// ppMode says what blank does with a conditional it cannot evaluate.
type ppMode int

const (
	ppKeepAll   ppMode = iota // keep every branch (tree-sitter reads both sides of #if)
	ppFirstOnly               // keep the first branch, as Universal Ctags does, so braces balance
)

// blank returns src with the lines of inactive preprocessor branches
// replaced by spaces (newlines kept, so offsets, lines and columns stay):
// the branches of #if 0, and of conditions on names the file #defines
// to an integer above them (#if DECCHECK, #ifdef NAME, defined(NAME)).
// A condition it cannot evaluate keeps all branches in ppKeepAll; in
// ppFirstOnly it keeps the first one, and the conditional directives are
// blanked too (tree-sitter then reads plain C, as the compiler would). It returns src itself when nothing is
// blanked.
//
// DESIGN: tree-sitter parses C without preprocessing, so a function whose
// braces #if branches split (`#if X { #else { #endif`) or that #if 0
// comments out sinks into error nodes, and the functions after it with
// it. Blanking what the preprocessor would drop keeps the tree whole; the
// second mode is for a file that still does not parse.
func blank(src []byte, mode ppMode) ([]byte, map[int][]string) {
	st := &ppState{mode: mode, defs: map[string]string{}}
	guards := map[int][]string{}
	var out []byte
	changed := false
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i := 0; i < len(lines); i++ {
		dir, rest := directive(lines[i])
		// A directive continued with backslashes spans lines.
		n := 1
		for i+n < len(lines) && bytes.HasSuffix(bytes.TrimRight(lines[i+n-1], "\r\n"), []byte("\\")) {
			n++
		}
		cur := st.active()
		st.apply(dir, rest, cur)
		if g := st.guards(); len(g) > 0 && (dir == "" || dir == "define") && cur {
			guards[i+1] = g
		}
		for k := 0; k < n && i+k < len(lines); k++ {
			l := lines[i+k]
			if !cur && !conditional[dir] || mode == ppFirstOnly && conditional[dir] {
				l = spaces(l)
				changed = true
			}
			out = append(out, l...)
		}
		i += n - 1
	}
	if !changed {
		return src, guards
	}
	return out, guards
}

// ppState is blank's view of the preprocessor: the conditionals open at
// a line and the names defined above it.
type ppState struct {
	mode  ppMode
	defs  map[string]string
	stack []ppFrame
}

// ppFrame is one open conditional.
type ppFrame struct {
	parent, active, taken, unknown bool
	guard                          string // the condition of the branch kept without evaluating it (guardOf)
}

func (s *ppState) active() bool { return len(s.stack) == 0 || s.stack[len(s.stack)-1].active }

// guards returns the guards of the open conditionals.
func (s *ppState) guards() []string {
	var g []string
	for _, f := range s.stack {
		if f.guard != "" {
			g = append(g, f.guard)
		}
	}
	return g
}

// apply takes one line's directive into account; cur says whether the
// line is in an active branch.
func (s *ppState) apply(dir, rest string, cur bool) {
	switch dir {
	case "if", "ifdef", "ifndef":
		f := ppFrame{parent: cur}
		s.decide(&f, dir, rest)
		s.stack = append(s.stack, f)
	case "elif", "elifdef", "elifndef", "else":
		if len(s.stack) == 0 {
			return
		}
		f := &s.stack[len(s.stack)-1]
		switch {
		case f.unknown && dir == "else":
			f.active, f.guard = f.parent, negate(f.guard)
		case f.unknown:
			f.active, f.guard = f.parent, ""
		case f.taken:
			f.active = false
		case dir == "else":
			f.active, f.taken = f.parent, true
		default:
			s.decide(f, strings.TrimPrefix(dir, "el"), rest)
		}
	case "endif":
		if len(s.stack) > 0 {
			s.stack = s.stack[:len(s.stack)-1]
		}
	case "define":
		if !cur {
			return
		}
		name, val, _ := strings.Cut(strings.TrimSpace(rest), " ")
		if !strings.Contains(name, "(") {
			s.defs[name] = strings.TrimSpace(val)
		}
		for k := range s.stack {
			if s.stack[k].guard == "!def:"+name {
				s.stack[k].guard = "" // an include guard: #ifndef X, #define X
			}
		}
	case "undef":
		if cur {
			delete(s.defs, strings.TrimSpace(rest))
		}
	}
}

// decide sets a branch's state from its condition (dir is if, ifdef or
// ifndef): evaluated when it can be, else kept as the mode says.
func (s *ppState) decide(f *ppFrame, dir, cond string) {
	v, known := evalCond(dir, cond, s.defs)
	switch {
	case known:
		f.active, f.taken = f.parent && v, v
	case s.mode == ppKeepAll:
		f.active, f.unknown, f.guard = f.parent, true, guardOf(dir, cond)
	default:
		f.active, f.taken, f.guard = f.parent, true, guardOf(dir, cond)
	}
}

// guardOf returns the guard of a condition blank cannot evaluate, for
// resolution to evaluate against the macros of the included headers:
// "NAME" (#if NAME: NAME is non-zero), "!NAME", "def:NAME" (#ifdef,
// #if defined(NAME)), "!def:NAME"; "" for another condition.
func guardOf(dir, cond string) string {
	switch dir {
	case "ifdef":
		return "def:" + cond
	case "ifndef":
		return "!def:" + cond
	}
	cond = strings.TrimSpace(cond)
	neg := ""
	if c, ok := strings.CutPrefix(cond, "!"); ok {
		neg, cond = "!", strings.TrimSpace(c)
	}
	if inner, ok := strings.CutPrefix(cond, "defined"); ok {
		cond = strings.Trim(strings.TrimSpace(inner), "() ")
		if !isName(cond) {
			return ""
		}
		return neg + "def:" + cond
	}
	if !isName(cond) {
		return ""
	}
	return neg + cond
}

func negate(g string) string {
	if g == "" {
		return ""
	}
	if n, ok := strings.CutPrefix(g, "!"); ok {
		return n
	}
	return "!" + g
}

func isName(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := range len(s) {
		if !isIdent(s[i]) {
			return false
		}
	}
	return true
}

// conditional are the directives blank keeps in every branch.
var conditional = map[string]bool{"if": true, "ifdef": true, "ifndef": true, "elif": true, "elifdef": true, "elifndef": true, "else": true, "endif": true}

// directive returns the name of a preprocessor line's directive and the
// rest of the line; "" for a line that is none.
func directive(line []byte) (string, string) {
	s := strings.TrimLeft(string(line), " \t")
	if !strings.HasPrefix(s, "#") {
		return "", ""
	}
	s = strings.TrimLeft(s[1:], " \t")
	end := 0
	for end < len(s) && isIdent(s[end]) {
		end++
	}
	rest := s[end:]
	if i := strings.Index(rest, "//"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, "/*"); i >= 0 {
		rest = rest[:i]
	}
	return s[:end], strings.TrimSpace(rest)
}

// evalCond evaluates a condition it can: 0 and 1, NAME and
// defined(NAME), !NAME, #ifdef and #ifndef, with NAME defined above to an
// integer (or defined at all, for defined).
func evalCond(dir, cond string, defs map[string]string) (v, known bool) {
	switch dir {
	case "ifdef", "ifndef":
		_, ok := defs[cond]
		if !ok {
			return false, false // not defined here: perhaps on the command line
		}
		return ok == (dir == "ifdef"), true
	}
	neg := false
	cond = strings.TrimSpace(cond)
	if strings.HasPrefix(cond, "!") {
		neg, cond = true, strings.TrimSpace(cond[1:])
	}
	if inner, ok := strings.CutPrefix(cond, "defined"); ok {
		name := strings.Trim(strings.TrimSpace(inner), "() ")
		if _, def := defs[name]; def {
			return !neg, true
		}
		return false, false
	}
	if n, err := strconv.ParseInt(cond, 0, 64); err == nil {
		return (n != 0) != neg, true
	}
	if val, ok := defs[cond]; ok {
		if n, err := strconv.ParseInt(val, 0, 64); err == nil {
			return (n != 0) != neg, true
		}
	}
	return false, false
}

// spaces returns line with every byte but the line end made a space.
func spaces(line []byte) []byte {
	out := bytes.Clone(line)
	for i, c := range out {
		if c != '\n' && c != '\r' {
			out[i] = ' '
		}
	}
	return out
}

func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdent(c byte) bool      { return isIdentStart(c) || c >= '0' && c <= '9' }
