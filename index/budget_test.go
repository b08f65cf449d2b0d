//go:build cgo

package index

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/relayhq/relay/index/internal/frontend"

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
