package golang_test

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// genericChain returns a Go file declaring a chain of n generic types, each
// instantiating the previous one inside itself: go/types expands T<n> about
// 2^(n+1) levels deep (24 levels overflow its stack; `go vet` dies on it).
func genericChain(pkg string, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// Package %s declares a chain of generic types that nest exponentially.\npackage %s\n\n", pkg, pkg)
	b.WriteString("// T0 holds a P.\ntype T0[P any] struct{ f P }\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "// T%d nests T%d in itself.\ntype T%d[P any] struct{ f T%d[T%d[P]] }\n\n", i, i-1, i, i-1, i-1)
	}
	fmt.Fprintf(&b, "// Use instantiates the last type.\nfunc Use() { var x T%d[int]; _ = x }\n", n)
	return b.String()
}

// TestScreenGenerics: the estimate refuses the chains that cost the type
// checker noticeable time or stack and accepts real generic code.
func TestScreenGenerics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		refused   string // the type named, "" when accepted
	}{
		{"chain of 11", genericChain("p", 11), ""},
		{"chain of 12", genericChain("p", 12), "T12"},
		{"chain of 24", genericChain("p", 24), "T24"},
		{"chain of 200 saturates", genericChain("p", 200), "T100"}, // the first saturated name in sorted order
		{"recursive list", "package p\ntype L[T any] struct{ v T; next *L[T] }\n", ""},
		{"recursive instantiation", "package p\ntype R[T any] struct{ next *R[R[T]] }\n", ""},
		{"nested containers", "package p\nimport \"iter\"\ntype Opt[T any] struct{ v *T }\ntype List[T any] []T\n" +
			"type M[K comparable, V any] map[K]List[Opt[V]]\ntype S[K comparable, V any] struct{ m M[K, M[K, V]]; it iter.Seq2[K, Opt[V]] }\n", ""},
		{"a defined type over two long chains", genericChain("p", 11) + "type X T11[T11[int]]\n", "X"},
		{"constraint union", "package p\ntype Num interface{ ~int | ~float64 }\ntype V[T Num] struct{ x [4]T }\n", ""},
		{"through a map, a func and a list instantiation", "package p\ntype A[K comparable, V any] struct{ f func(A0[A0[V, K], K]) }\ntype A0[V any, K comparable] map[K][]V\n" +
			"type B[K comparable, V any] map[K]A[K, A[K, A[K, V]]]\ntype C[K comparable, V any] struct{ b B[K, B[K, B[K, V]]] }\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parser.ParseFile(token.NewFileSet(), "p.go", tc.src, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			_, err = golang.ScreenGenerics([]*ast.File{f}, nil, nil)
			switch {
			case tc.refused == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.refused != "" && (err == nil || !strings.Contains(err.Error(), "generic type "+tc.refused+" ")):
				t.Errorf("screenGenerics = %v, want %s refused", err, tc.refused)
			}
		})
	}
}

// envGenericChild names, in the child process of TestGenericChainContained,
// the repository it indexes.
const envGenericChild = "RELAY_TEST_GENERIC_CHAIN_REPO"

// TestGenericChainContained: a 24-level chain of generic types used to
// crash go/types with a fatal stack overflow, ending the run (exit status
// 2, a goroutine dump). It is now that package's error: the chain's
// declarations are indexed from syntax, the package importing it reports
// it not type-checked, and the rest of the repository is indexed with its
// types. The run happens in a child process (the test binary) so that a
// crash fails this test instead of the whole test binary.
func TestGenericChainContained(t *testing.T) {
	if repo := os.Getenv(envGenericChild); repo != "" {
		sum, err := index.Run(context.Background(), indextest.OpenStore(), index.Options{Root: repo})
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		fmt.Println(indextest.SummaryText(sum))
		return
	}
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	chain := genericChain("chain", 24)
	testutil.WriteFile(t, root, "chain/chain.go", chain)
	testutil.WriteFile(t, root, "user/user.go", "package user\n\nimport \"example.com/m/chain\"\n\n// U uses the chain.\nfunc U() { chain.Use() }\n")
	// A chain split across packages: a's 11 levels pass the screen, b's
	// instantiations of them compound (the checker expands imported
	// types as well), and b used to crash it as the single file did.
	testutil.WriteFile(t, root, "split/a/a.go", genericChain("a", 11))
	split := "// Package b continues a's chain.\npackage b\n\nimport \"example.com/m/split/a\"\n\n// U0 nests a.T11 in itself.\ntype U0[P any] struct{ f a.T11[a.T11[P]] }\n\n"
	for i := 1; i <= 9; i++ {
		split += fmt.Sprintf("// U%d nests U%d in itself.\ntype U%d[P any] struct{ f U%d[U%d[P]] }\n\n", i, i-1, i, i-1, i-1)
	}
	testutil.WriteFile(t, root, "split/b/b.go", split+"// X instantiates the last type.\nvar X U9[int]\n")
	testutil.WriteFile(t, root, "ok/ok.go", "package ok\n\n// A calls B.\nfunc A() { B() }\n\n// B is called.\nfunc B() {}\n")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute) // hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestGenericChainContained$", "-test.count=1")
	cmd.Env = append(os.Environ(), envGenericChild+"="+root)
	out, err := cmd.CombinedOutput()
	if err != nil {
		if len(out) > 4000 {
			out = out[:4000]
		}
		t.Fatalf("indexing a %d-byte file with a 24-level generic chain failed: %v\n%s", len(chain), err, out)
	}
	for _, want := range []string{
		"diagnostic example.com/m/chain: not type-checked: generic type T24 expands",
		"diagnostic example.com/m/split/b: not type-checked: generic type U9 expands",
		"example.com/m/user: user/user.go:3:8: could not import example.com/m/chain (package example.com/m/chain was not type-checked",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	// The chain's files, indexed from syntax, and the rest, with types,
	// are in the graph.
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	indextest.DumpHolds(t, "generic chain", indextest.Dump(t, st), []string{
		"qname=example.com/m/chain.T24",
		"qname=example.com/m/split/a.T11",
		"qname=example.com/m/split/b.U9",
		"edge calls go:example.com/m/ok.A -> go:example.com/m/ok.B",
	}, nil)
}

// TestCheckPanicContained: a panic while type-checking or extracting one
// package is that package's error; its files are indexed from syntax and
// the other packages as usual.
func TestCheckPanicContained(t *testing.T) {
	frontend.TestHookExtract = func(lang, pkgPath string) {
		if lang == "go" && pkgPath == "example.com/m/bad" {
			panic("boom")
		}
	}
	t.Cleanup(func() { frontend.TestHookExtract = nil })
	root := t.TempDir()
	testutil.WriteFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	testutil.WriteFile(t, root, "bad/bad.go", "package bad\n\n// Bad panics the checker.\nfunc Bad() {}\n")
	testutil.WriteFile(t, root, "ok/ok.go", "package ok\n\n// A calls B.\nfunc A() { B() }\n\n// B is called.\nfunc B() {}\n")
	st := indextest.OpenStore()
	sum := indexrun.Run(t, st, root, false)
	if s := indextest.SummaryText(sum); !strings.Contains(s, "diagnostic example.com/m/bad: not type-checked: the type checker or the extraction failed (boom)") {
		t.Errorf("summary lacks the panic:\n%s", s)
	}
	indextest.DumpHolds(t, "panic", indextest.Dump(t, st), []string{
		"qname=example.com/m/bad.Bad",
		"edge calls go:example.com/m/ok.A -> go:example.com/m/ok.B",
	}, nil)
}

// BenchmarkGenericChain times go/types on the longest chain the screen
// admits (11 levels, growth 4094) and on one level more, and the screen on
// the 24-level chain it refuses.
func BenchmarkGenericChain(b *testing.B) {
	parse := func(b *testing.B, n int) (*token.FileSet, *ast.File) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "p.go", genericChain("p", n), parser.SkipObjectResolution)
		if err != nil {
			b.Fatal(err)
		}
		return fset, f
	}
	for _, n := range []int{11, 12} {
		b.Run(fmt.Sprintf("typecheck-%d", n), func(b *testing.B) {
			fset, f := parse(b, n)
			for b.Loop() {
				conf := types.Config{Error: func(error) {}}
				_, _ = conf.Check("p", fset, []*ast.File{f}, nil)
			}
		})
	}
	b.Run("screen-24", func(b *testing.B) {
		_, f := parse(b, 24)
		for b.Loop() {
			if _, err := golang.ScreenGenerics([]*ast.File{f}, nil, nil); err == nil {
				b.Fatal("not refused")
			}
		}
	})
}
