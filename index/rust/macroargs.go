//go:build cgo

package rust

import (
	"github.com/relayhq/relay/index/internal/sitter"
)

// exprMacros are the standard macros whose arguments are expressions
// (after a format string): tree-sitter leaves a macro's arguments as
// tokens, so the calls inside them are found by parsing the arguments
// again as a call's (or, for vec!, an array's). Any other macro's
// arguments are read the same way when they parse as expressions without
// an error (ready!(self.inner.poll_lock(cx))); a macro of its own syntax
// does not.
var exprMacros = map[string]bool{
	"println": true, "print": true, "eprintln": true, "eprint": true, "format": true, "write": true, "writeln": true, "format_args": true,
	"assert": true, "assert_eq": true, "assert_ne": true, "debug_assert": true, "debug_assert_eq": true, "debug_assert_ne": true,
	"panic": true, "vec": true, "dbg": true, "unreachable": true, "todo": true, "unimplemented": true,
	"trace": true, "debug": true, "info": true, "warn": true, "error": true, "matches": true,
}

// maxMacroNesting bounds how deep macro arguments are parsed again
// (println!("{}", format!("{}", f())) is two).
const maxMacroNesting = 8

// macroArgs resolves the calls in the arguments of an expression macro:
// it parses them again as the arguments of a call in a function of their
// own, with the lines of the source (the text before them is on their
// first line), and walks that tree in this body.
func (w *walker) macroArgs(n *sitter.Node, name string) {
	if w.parse == nil || w.nesting >= maxMacroNesting {
		return
	}
	var tt *sitter.Node
	for _, c := range sitter.Children(n) {
		if c.Kind() == "token_tree" {
			tt = c
		}
	}
	if tt == nil {
		return
	}
	text := w.x.text(tt)
	if len(text) < 2 {
		return
	}
	open, close := "__m(", ");}"
	if name == "vec" {
		open, close = "[", "];}"
	}
	src := []byte("fn __m(){" + open + text[1:len(text)-1] + close)
	tree := w.parse(src)
	if tree == nil {
		return
	}
	defer tree.Close()
	body := tree.RootNode()
	if !exprMacros[name] && body.HasError() {
		return // a macro of its own syntax (select! { … }, its DSL): not expressions
	}
	if fns := sitter.Children(body); len(fns) == 1 && fns[0].Kind() == "function_item" {
		body = fieldChild(fns[0], "body")
	}
	if body == nil {
		return
	}
	saved, savedOff := w.x.src, w.lineOff
	w.x.src, w.lineOff = src, savedOff+int(tt.StartPosition().Row)
	w.nesting++
	w.walkMacroBody(body)
	w.nesting--
	w.x.src, w.lineOff = saved, savedOff
}

// walkMacroBody walks the parsed arguments, leaving out the __m call
// wrapped around them.
func (w *walker) walkMacroBody(body *sitter.Node) {
	for _, st := range sitter.Children(body) {
		e := st
		if st.Kind() == "expression_statement" {
			if cs := sitter.Children(st); len(cs) > 0 {
				e = cs[0]
			}
		}
		if e.Kind() == "call_expression" {
			if fn := callee(e); fn != nil && w.x.text(fn) == "__m" {
				w.walk(fieldChild(e, "arguments"))
				continue
			}
		}
		w.walk(e)
	}
}
