//go:build cgo

package rust

import (
	"github.com/relayhq/relay/index/internal/sitter"
)

// itemMacro reads the items inside a macro invocation that stands where
// items do (cfg_rt! { pub mod runtime; … }, as tokio gates whole modules
// and impl blocks): tree-sitter leaves a macro's body as tokens, so it is
// parsed again, and when it parses as items without an error, each is
// extracted by walk, with the lines of the file. A body that is not items
// (impl_ops!(Foo, Bar)) is left alone.
func (x *extractor) itemMacro(c *sitter.Node, walk func(root *sitter.Node)) {
	if x.reparse == nil || x.nesting >= maxMacroNesting {
		return
	}
	var tt *sitter.Node
	for _, ch := range sitter.Children(c) {
		if ch.Kind() == "token_tree" {
			tt = ch
		}
	}
	if tt == nil {
		return
	}
	text := x.text(tt)
	if len(text) < 2 {
		return
	}
	src := []byte(text[1 : len(text)-1])
	tree := x.reparse(src)
	if tree == nil {
		return
	}
	root := tree.RootNode()
	if root.HasError() || len(sitter.Children(root)) == 0 {
		tree.Close()
		return
	}
	x.f.trees = append(x.f.trees, tree)
	saved, savedOff := x.src, x.lineOff
	x.src, x.lineOff = src, savedOff+int(tt.StartPosition().Row)
	x.nesting++
	walk(root)
	x.nesting--
	x.src, x.lineOff = saved, savedOff
}
