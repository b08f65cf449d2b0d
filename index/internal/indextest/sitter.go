//go:build cgo

package indextest

import (
	"errors"
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// ParseChecked parses src with p as the frontends do (sitter.ParseLimited,
// sitter.IndexTree at depth 200) and, when it parses within the limits,
// checks the parents IndexTree records against tree-sitter's own and
// hands the tree to extract, then asks for its syntax errors: a fuzz
// test's body for any tree-sitter frontend.
func ParseChecked(t *testing.T, p *sitter.Parser, src []byte, extract func(root *sitter.Node, up *sitter.Parents)) {
	t.Helper()
	tree, err := sitter.ParseLimited(t.Context(), p, src, 10*time.Second)
	if err != nil {
		return
	}
	defer tree.Close()
	up, err := sitter.IndexTree(tree.RootNode(), 200)
	if err != nil {
		if !errors.Is(err, sitter.ErrTooDeep) {
			t.Fatalf("IndexTree: %v", err)
		}
		return
	}
	checkParents(t, tree.RootNode(), up)
	extract(tree.RootNode(), up)
	sitter.SyntaxErrors(tree.RootNode())
}

// checkParents compares up with Node.Parent for every node under root.
func checkParents(t *testing.T, root *sitter.Node, up *sitter.Parents) {
	t.Helper()
	stack := []*sitter.Node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		got, want := up.Of(n), n.Parent()
		if (got == nil) != (want == nil) || got != nil && got.Id() != want.Id() {
			t.Fatalf("parent of %s at %v: %v, want %v", n.Kind(), n.StartPosition(), got, want)
		}
		for i := range n.ChildCount() {
			stack = append(stack, n.Child(i))
		}
	}
}
