//go:build cgo

package python

import (
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract parses any input as Python within the budgets and
// extracts it: no panic, a depth error only past the limit, and the
// parents IndexTree records agree with tree-sitter's own
// (index/typescript's FuzzExtract does the same for TypeScript).
func FuzzExtract(f *testing.F) {
	f.Add([]byte("def f():\n    return a.b.c(d)\n\nclass C(B):\n    def m(self):\n        return self.n()\n"))
	f.Add([]byte("x = " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300)))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := newParser()
		defer p.Close()
		indextest.ParseChecked(t, p, src, func(root *sitter.Node, up *sitter.Parents) {
			extract("a.py", "a", false, src, root, up)
		})
	})
}
