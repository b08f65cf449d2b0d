//go:build cgo

package c

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/cinclude"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// FuzzExtract blanks any input's preprocessor branches (both modes),
// parses it as C, extracts its facts and builds its records against a
// table of them: no panic, and the facts survive their encoding.
func FuzzExtract(f *testing.F) {
	f.Add([]byte("#include \"a.h\"\n#define F(x) g(x)\nstatic int g(int x) { return F(x); }\nstruct s { int (*read)(int); };\nstatic struct s v = { .read = g };\nint m(struct s *p) { return p->read(1) + (*p->read)(2); }\n"))
	f.Add([]byte("#if 0\nint a(void) {\n#else\nint a(void) { {\n#endif\n return 0; }\n#ifdef X\n}\n#elif defined(Y)\n#else\n#endif\n"))
	f.Add([]byte("typedef struct { int a; } t;\nenum e { A = 1, B };\nunion u { int i; };\n#define ALIAS real\nint ALIAS(void) { return ALIAS(); }\n#define B(...) I(__VA_ARGS__, B2, B1)(__VA_ARGS__)\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, mode := range []ppMode{ppKeepAll, ppFirstOnly} {
			text, guards := blank(src, mode)
			if len(text) != len(src) {
				t.Fatalf("blank changed the length: %d, want %d", len(text), len(src))
			}
			p := newParser()
			tree, err := sitter.ParseLimited(t.Context(), p, text, 10*time.Second)
			p.Close()
			if err != nil {
				continue
			}
			root := tree.RootNode()
			if _, err := sitter.IndexTree(root, frontend.DefaultMaxDepth); err != nil {
				tree.Close()
				continue // the frontend does not extract a tree this deep
			}
			fs := extract(text, root, guards)
			tree.Close()
			// Invalid UTF-8 becomes U+FFFD once; after that the facts are stable.
			back, ok := decodeFacts(fs.encode())
			again, ok2 := decodeFacts(back.encode())
			if !ok || !ok2 || !cmp.Equal(back, again) {
				t.Fatalf("facts do not survive their encoding: %s", fs.encode())
			}
			tab := newTable(map[string]*facts{"a.c": fs}, cinclude.NewResolver([]string{"a.c"}, nil))
			build("a.c", graphdb.FileRecord{Path: "a.c"}, fs, tab)
		}
	})
}
