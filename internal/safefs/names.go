package safefs

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxEcho caps how much of a caller's argument is quoted back in a message.
const MaxEcho = 200

// Quote quotes s for a message, keeping at most MaxEcho bytes of it and
// saying how long it was: a 1 MB argument is not echoed back in full.
func Quote(s string) string {
	if len(s) <= MaxEcho {
		return strconv.Quote(s)
	}
	cut := MaxEcho
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// DisplayPath prints a repository path so that it is unambiguous on a line
// of output and can be passed back to a tool as printed.
//
// DESIGN: a plain path is printed as is. A path that is not valid UTF-8,
// holds a newline, tab or other non-printable character, has leading or
// trailing spaces, or starts with a double quote is printed as a Go-quoted
// string ("a\nb.go", "caf\xe9.txt"); UnquotePath undoes it, so the pair
// round-trips. A plain path never starts with a quote, so a quoted one
// cannot be mistaken for a name.
func DisplayPath(p string) string {
	if isPlainPath(p) {
		return p
	}
	return strconv.Quote(p)
}

func isPlainPath(p string) bool {
	if !utf8.ValidString(p) || strings.HasPrefix(p, `"`) || p != strings.TrimSpace(p) {
		return false
	}
	for _, r := range p {
		if !strconv.IsPrint(r) {
			return false
		}
	}
	return true
}

// UnquotePath undoes DisplayPath: a Go-quoted string is unquoted, anything
// else is returned as is. ok reports whether p was quoted.
func UnquotePath(p string) (string, bool) {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return p, false
	}
	u, err := strconv.Unquote(p)
	if err != nil {
		return p, false
	}
	return u, true
}
