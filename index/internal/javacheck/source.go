package javacheck

import (
	"os"
	"path/filepath"
	"strings"
)

// sources reads the source lines of the checked files, to tell the calls
// written in the source from those the compiler adds.
type sources struct {
	root  string
	files map[string][]string
}

func newSources(root string) *sources { return &sources{root: root, files: map[string][]string{}} }

func (s *sources) line(file string, n int) string {
	ls, ok := s.files[file]
	if !ok {
		data, err := os.ReadFile(filepath.Join(s.root, filepath.FromSlash(file)))
		if err == nil {
			ls = strings.Split(string(data), "\n")
		}
		s.files[file] = ls
	}
	if n < 1 || n > len(ls) {
		return ""
	}
	return ls[n-1]
}

// implicit reports whether an instruction stands for no call written on
// its line: the callee's name (a constructor's class name) is not there.
// These are the calls javac adds — string concatenation through
// StringBuilder (java.base is compiled with -XDstringConcat=inline),
// boxing and unboxing (valueOf, intValue), the iterator of an enhanced
// for, assert, switch on strings and enums, try-with-resources — and
// calls whose name is on another line than the one javac gives them. A
// constructor's call of its superclass's constructor counts as written
// (relay records the implicit super() too), and so does a class's call of
// its own constructor (enum constants). Without a root every
// instruction counts.
func (s *sources) implicit(in invoke) bool {
	if s.root == "" || in.name == "<init>" && (in.ctor || strings.HasPrefix(in.caller, in.owner+" ")) {
		return false // super(…), or an enum's constants made by the enum itself
	}
	if in.name != "<init>" {
		return !hasIdent(s.line(in.file, in.line), in.name)
	}
	// javac gives new C(…) the line of its statement or of the last call
	// among its arguments: look for C up to nearLines before.
	name := in.owner[strings.LastIndexAny(in.owner, ".$")+1:]
	for l := in.line; l >= max(in.line-nearLines, 1); l-- {
		if hasIdent(s.line(in.file, l), name) {
			return false
		}
	}
	return true
}

// hasIdent reports whether line holds name as a whole identifier.
func hasIdent(line, name string) bool {
	for i := 0; ; {
		j := strings.Index(line[i:], name)
		if j < 0 {
			return false
		}
		a, b := i+j, i+j+len(name)
		if (a == 0 || !identByte(line[a-1])) && (b == len(line) || !identByte(line[b])) {
			return true
		}
		i = b
	}
}

func identByte(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
