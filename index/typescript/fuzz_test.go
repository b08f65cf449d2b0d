//go:build cgo

package typescript

import (
	"testing"

	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract parses any input as TypeScript within the budgets and
// extracts it: no panic, a depth error only past the limit, and the
// parents IndexTree records agree with tree-sitter's own.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("function g() { return f(f(f(0))); }\nnamespace N { namespace M { export const x = 1; } }\n"))
	f.Add([]byte("/** doc */\nexport class A extends B { m(x) { if (x instanceof C) { x.n(); } } }\n"))
	f.Add([]byte("function R() { this.m(); }\nR.prototype.m = function m() { var self = this; self.n(); };\nR.prototype = { n() {} };\n" +
		"var p = module.exports = function () {};\np.a = p.b = function b() { return p.a(); };\np.c = R;\n" +
		"Object.defineProperty(p, \"d\", { get: function d() { return new R().m(); } });\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := newParser(sitter.NewLanguage(tsts.LanguageTypescript()))
		defer p.Close()
		indextest.ParseChecked(t, p, src, func(root *sitter.Node, up *sitter.Parents) {
			extract("a.ts", "a", src, root, up)
		})
	})
}
