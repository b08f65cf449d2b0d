//go:build cgo

package java

import (
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract parses any input as Java and runs both passes of the
// frontend over it (extract for the declarations, then again with
// resolveFile against a table of them): no panic, whatever the input's
// nesting, since the walks bound their own depth (limits.go).
func FuzzExtract(f *testing.F) {
	f.Add([]byte("package p;\nimport java.util.*;\n/** A. */\npublic class A<T> extends B implements C {\n  T t;\n  A(int n) { this(); }\n  A() { super(); }\n  void m(List<String> xs) { xs.forEach(x -> x.length()); new A<>().m(null); }\n}\n"))
	f.Add([]byte("enum E { X { void f() {} }, Y; void f() {} }\nrecord R(int a) { R { f(g(h(a))); } }\n@interface N { int v() default 1; }\n"))
	f.Add([]byte("class D { Object g() { return new Object() { Object h() { return (((f(f(1))))); } }; } int f(int x) { return x; } }\n"))
	f.Add([]byte("class O { class I { class J extends O.I { void m() { O.this.toString(); try (var r = open()) { for (var e : r) e.m(); } } } } }"))
	f.Fuzz(func(t *testing.T, src []byte) {
		p := newParser()
		defer p.Close()
		tree, err := sitter.ParseLimited(t.Context(), p, src, 10*time.Second)
		if err != nil {
			return
		}
		defer tree.Close()
		decl := extract("A.java", src, tree.RootNode())
		tab := newTable(map[string]*fileScope{decl.rel: decl.scope})
		f := extract("A.java", src, tree.RootNode())
		resolveFile(f, src, tab)
	})
}
