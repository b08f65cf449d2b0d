//go:build cgo

package rust

import (
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract parses any input as Rust and runs both passes of the
// frontend over it (extract for the declarations, then again with
// resolveFile against a table of them, macro arguments parsed again):
// no panic.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("mod a { pub fn f() {} }\nuse a::{self, f as g};\nstruct S { x: Box<S> }\nimpl S { fn m(&self) -> Option<Self> { self.x.m()?; g(); Self::m(self) } }\n"))
	f.Add([]byte("trait T: U { fn t(&self) { self.u() } }\ntrait U { fn u(&self); }\nimpl<X: T> U for X { fn u(&self) { println!(\"{}\", self.t()); } }\nmacro_rules! m { () => {} }\nfn z() { m!(); vec![z()]; }\ncfg_x! { pub fn y() { z() } cfg_y! { struct Q; impl Q { cfg_z! { fn q(&self) {} } } } }\n"))
	f.Add([]byte("use self::*; use super::super::*; pub use crate::x::y::*; type A = A; fn f() { <A as T>::g(); }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := newParser()
		defer p.Close()
		tree, err := sitter.ParseLimited(t.Context(), p, src, 10*time.Second)
		if err != nil {
			return
		}
		defer tree.Close()
		lay := newLayout([]string{"src/lib.rs"}, nil)
		reparse := func(b []byte) *sitter.Tree {
			tr, err := sitter.ParseLimited(t.Context(), p, b, 10*time.Second)
			if err != nil {
				return nil
			}
			return tr
		}
		decl := extract("src/lib.rs", lay.mods["src/lib.rs"], lay, src, tree.RootNode(), reparse)
		decl.close()
		tab := newTable(map[string]*fileScope{decl.rel: decl.scope}, lay)
		fl := extract("src/lib.rs", lay.mods["src/lib.rs"], lay, src, tree.RootNode(), reparse)
		defer fl.close()
		resolveFile(fl, src, tab, reparse)
	})
}
