//go:build cgo

package cpp

import (
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract expands any input's macros, parses it as C++ and runs both
// passes of the frontend over it (extract for the declarations, then
// again with resolveFile against a table of them): no panic, and the
// expansion keeps the file's lines.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("#define NS namespace a {\n#define END }\nNS\nclass B : public C<int> { public: virtual int f(int x = 1) const; B(); };\nint B::f(int x) const { this->f(2); auto p = new B(); p->f(); return g(x); }\nEND\n"))
	f.Add([]byte("#define CALL(f, ...) f(__VA_ARGS__)\n#define STR(x) #x\n#define CAT(a, b) a##b\nvoid CAT(h, 1)() { CALL(h1); STR(q); }\ntemplate <typename T> struct S { T t; void m() { t.go(); } };\ntemplate <> struct S<int> {};\n"))
	f.Add([]byte("namespace { static void s() {} }\nusing namespace std;\nstruct A { struct B { void m(); }; };\nvoid A::B::m() { A::B b; b.m(); std::move(b); ::s(); }\n#define R R R\nR\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		ms := newMacroSet(map[string]map[string]macro{"a.cc": scanMacros(src)})
		text := ms.expand(src)
		if got, want := countLines(text), countLines(src); got != want {
			t.Fatalf("expansion has %d lines, the file %d", got, want)
		}
		p := newParser()
		defer p.Close()
		tree, err := sitter.ParseLimited(t.Context(), p, text, 10*time.Second)
		if err != nil {
			return
		}
		defer tree.Close()
		if _, err := sitter.IndexTree(tree.RootNode(), 2000); err != nil {
			return // the runner refuses a tree this deep before extracting it
		}
		decl := extract("a.cc", src, text, tree.RootNode())
		tab := newTable(map[string]*fileScope{"a.cc": decl.scope})
		f := extract("a.cc", src, text, tree.RootNode())
		remap(f, tab.scopes["a.cc"])
		resolveFile(f, tab, newIncludes([]string{"a.cc"}), ms.fp)
	})
}

func countLines(b []byte) int {
	n := 0
	for _, c := range b {
		if c == '\n' {
			n++
		}
	}
	return n
}
