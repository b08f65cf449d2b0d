//go:build cgo

package index

import (
	"fmt"

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
