//go:build cgo

package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"

	"github.com/relayhq/relay/graphdb"
)

// TestParseEachRecoversPanic: a panic while extracting one file is that
// file's error; the other files are extracted and the run goes on.
func TestParseEachRecoversPanic(t *testing.T) {
	var mu sync.Mutex
	var diags []Diagnostic
	j := &frontend.Job{Workers: 2, Progress: func(Progress) {}, Diag: func(d Diagnostic) {
		mu.Lock()
		diags = append(diags, d)
		mu.Unlock()
	}}
	rels := []string{"a.py", "bad.py", "c.py"}
	got, err := frontend.ParseEach(t.Context(), j, rels, 0, len(rels), func() int { return 0 }, func(int) {}, func(_ int, rel string) *string {
		if rel == "bad.py" {
			var parts []string
			_ = parts[len(rel)] // an index out of range: the kind of bug a file can reach
		}
		return &rel
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range got {
		names = append(names, *s)
	}
	if strings.Join(names, ",") != "a.py,c.py" {
		t.Errorf("extracted %v, want a.py and c.py", names)
	}
	if len(diags) != 1 || diags[0].Pos != "bad.py" || !strings.Contains(diags[0].Msg, "index out of range") || !strings.Contains(diags[0].Msg, "budget_test.go") {
		t.Errorf("diagnostics %+v, want bad.py's panic with where it happened", diags)
	}
}

// TestParseLimitedStops: a cancelled context and a deadline stop a parse
// in progress, and the parser parses the next file.
func TestParseLimitedStops(t *testing.T) {
	big := []byte(strings.Repeat("def f(a, b):\n    return a.b(c, d[e])\n", 200_000))
	p := newPyParser()
	defer p.Close()
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		timeout time.Duration
		want    error
	}{
		{"cancelled", cancelled, 0, context.Canceled},
		{"deadline", t.Context(), time.Nanosecond, sitter.ErrParseDeadline},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := sitter.ParseLimited(tc.ctx, p, big, tc.timeout)
			if tree != nil {
				tree.Close()
				t.Fatal("the parse ran to its end")
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			tree, err = sitter.ParseLimited(t.Context(), p, []byte("def ok():\n    return 1\n"), 0)
			if err != nil {
				t.Fatal(err)
			}
			defer tree.Close()
			if got := tree.RootNode().ToSexp(); strings.Contains(got, "ERROR") || !strings.Contains(got, "function_definition") {
				t.Errorf("the next parse: %s", got)
			}
		})
	}
}

// TestBudgetChangeReindexes: a file over the size limit is noted with
// its file node only; a run with a larger limit extracts it, though its
// content did not change.
func TestBudgetChangeReindexes(t *testing.T) {
	dir := t.TempDir()
	var src strings.Builder
	for i := range 100 {
		fmt.Fprintf(&src, "def f%d():\n    return %d\n", i, i)
	}
	if err := os.WriteFile(dir+"/big.py", []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openStore(t)
	sum, err := Run(t.Context(), st, Options{Root: dir, MaxFileBytes: 1024})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Notes) != 1 || sum.Notes[0].Pos != "big.py" || !strings.Contains(sum.Notes[0].Msg, "over the 1 KiB file-size limit") {
		t.Errorf("notes %v, want big.py over the limit", sum.Notes)
	}
	count := func() int {
		ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: "big.py", Kinds: []graphdb.NodeKind{graphdb.KindFunction}})
		if err != nil {
			t.Fatal(err)
		}
		return len(ns)
	}
	if n := count(); n != 0 {
		t.Errorf("%d functions of a file over the limit", n)
	}
	if sum, err = Run(t.Context(), st, Options{Root: dir}); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 100 || sum.Unchanged || len(sum.Notes) != 0 {
		t.Errorf("with the default limit: %d functions (want 100), unchanged %v, notes %v", n, sum.Unchanged, sum.Notes)
	}
}

func TestIsMinified(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want bool
	}{
		{"small one line", strings.Repeat("x", 60<<10), false},
		{"large one line", strings.Repeat("x", 100<<10), true},
		{"large, long lines", strings.Repeat(strings.Repeat("x", 2000)+"\n", 100), true},
		{"large source", strings.Repeat("def f():\n    return 1\n", 10_000), false},
	} {
		if got := frontend.IsMinified([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestSkip(t *testing.T) {
	minified := []byte(strings.Repeat("x", 100<<10))
	for _, tc := range []struct {
		name string
		b    frontend.Budgets
		data []byte
		want string
	}{
		{"default, minified", budgetsOf(Options{}), minified, "looks minified"},
		{"over the limit", budgetsOf(Options{MaxFileBytes: 1024}), []byte(strings.Repeat("x\n", 1000)), "over the 1 KiB file-size limit"},
		{"limit off", budgetsOf(Options{MaxFileBytes: -1}), minified, ""},
		{"small", budgetsOf(Options{}), []byte("x = 1\n"), ""},
	} {
		got, _ := tc.b.Skip(tc.data)
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// FuzzSitterExtract parses any input as Python or TypeScript within the
// budgets and extracts it: no panic, a depth error only past the limit,
// and the parents indexTree records agree with tree-sitter's own.
func FuzzSitterExtract(f *testing.F) {
	f.Add([]byte("def f():\n    return a.b.c(d)\n\nclass C(B):\n    def m(self):\n        return self.n()\n"), false)
	f.Add([]byte("function g() { return f(f(f(0))); }\nnamespace N { namespace M { export const x = 1; } }\n"), true)
	f.Add([]byte("x = "+strings.Repeat("(", 300)+"1"+strings.Repeat(")", 300)), false)
	f.Add([]byte("/** doc */\nexport class A extends B { m(x) { if (x instanceof C) { x.n(); } } }\n"), true)
	f.Fuzz(func(t *testing.T, src []byte, ts bool) {
		p, rel := newPyParser(), "a.py"
		if ts {
			p, rel = newTSParser(sitter.NewLanguage(tsts.LanguageTypescript())), "a.ts"
		}
		defer p.Close()
		tree, err := sitter.ParseLimited(t.Context(), p, src, 10*time.Second)
		if err != nil {
			return
		}
		defer tree.Close()
		const depth = 200
		up, err := sitter.IndexTree(tree.RootNode(), depth)
		if err != nil {
			if !errors.Is(err, sitter.ErrTooDeep) {
				t.Fatalf("indexTree: %v", err)
			}
			return
		}
		checkParents(t, tree.RootNode(), up)
		if ts {
			extractTS(rel, "a", src, tree.RootNode(), up)
		} else {
			extractPy(rel, "a", false, src, tree.RootNode(), up)
		}
		sitter.SyntaxErrors(tree.RootNode())
	})
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
