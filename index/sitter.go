//go:build cgo

package index

import (
	"fmt"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

// syntaxErrors returns where tree-sitter could not parse a file ("line:col:
// syntax error", at most 10), for the tree-sitter frontends' file records.
func syntaxErrors(root *sitter.Node) []string {
	var errs []string
	var walk func(nd *sitter.Node)
	walk = func(nd *sitter.Node) {
		if len(errs) >= 10 {
			return
		}
		if nd.IsError() || nd.IsMissing() {
			p := nd.StartPosition()
			msg := "syntax error"
			if nd.IsMissing() {
				msg = "syntax error: missing " + nd.Kind()
			}
			errs = append(errs, fmt.Sprintf("%d:%d: %s", p.Row+1, p.Column+1, msg))
			return
		}
		if !nd.HasError() {
			return
		}
		for i := uint(0); i < nd.ChildCount(); i++ {
			if c := nd.Child(i); c != nil {
				walk(c)
			}
		}
	}
	walk(root)
	return errs
}

// docComment returns the first text line of the /** … */ comment (a node
// of kind commentKind) right before st, tags (@param …) skipped; "" when
// there is none. The Java and TypeScript/JavaScript frontends share it.
func docComment(st *sitter.Node, src []byte, commentKind string) string {
	prev := st.PrevNamedSibling()
	if prev == nil || prev.Kind() != commentKind || int(prev.EndPosition().Row)+1 < int(st.StartPosition().Row) {
		return ""
	}
	s := prev.Utf8Text(src)
	if !strings.HasPrefix(s, "/**") {
		return ""
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "/**"), "*/")
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if l != "" && !strings.HasPrefix(l, "@") {
			return l
		}
	}
	return ""
}
