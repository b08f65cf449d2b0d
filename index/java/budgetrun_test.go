//go:build cgo

package java_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/java"
)

// TestFileBudgets: a Java file over the size limit, or one that
// looks minified, is not parsed: it is listed under Summary.Notes with
// its file node only, and the repository's other Java file is indexed.
// Java files used to be parsed whatever their size.
func TestFileBudgets(t *testing.T) {
	var wide strings.Builder
	wide.WriteString("class Big {")
	for wide.Len() < 70<<10 {
		wide.WriteString(" int m() { return 1; }")
	}
	wide.WriteString("}\n")
	for _, tc := range []struct {
		name string
		opts index.Options
		src  string
		want string
	}{
		{"over the limit", index.Options{MaxFileBytes: 1024}, strings.Repeat("class Big { int m() { return 1; } }\n", 100), "over the 1 KiB file-size limit"},
		{"minified", index.Options{}, wide.String(), "looks minified"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for rel, src := range map[string]string{"Big.java": tc.src, "Ok.java": "class Ok { int ok() { return 1; } }\n"} {
				if err := os.WriteFile(filepath.Join(dir, rel), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			st := indextest.OpenStore()
			tc.opts.Root = dir
			sum, err := index.Run(t.Context(), st, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(sum.Notes) != 1 || sum.Notes[0].Pos != "Big.java" || !strings.Contains(sum.Notes[0].Msg, tc.want) {
				t.Errorf("notes %+v, want Big.java: %s", sum.Notes, tc.want)
			}
			if len(sum.Errors) != 0 {
				t.Errorf("errors %+v, want none", sum.Errors)
			}
			for _, c := range []struct {
				file string
				want int
			}{{"Big.java", 1}, {"Ok.java", 3}} {
				ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: c.file})
				if err != nil {
					t.Fatal(err)
				}
				if len(ns) != c.want {
					t.Errorf("%s: %d nodes, want %d", c.file, len(ns), c.want)
				}
			}
		})
	}
}

// TestWideClass: a class of 100,000 methods, each calling itself
// (3.4 MB, under the size limit), is indexed with every method and call
// within the hang guard. Looking up each called name scanned all the
// class's methods, and each member's doc comment climbed from the first
// member: the run took 40–73 s on a loaded 2-core machine, about 7 s now
// (BENCHMARKS.md).
func TestWideClass(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes a 3.4 MB file")
	}
	dir, rel := java.CorpusFile(t, "java-wide-100000")
	st := indextest.OpenStore()
	sum := runGuarded(t, st, index.Options{Root: dir})
	if len(sum.Errors)+len(sum.Notes) != 0 {
		t.Errorf("%s: diagnostics %+v %+v", rel, sum.Errors, sum.Notes)
	}
	got := indextest.Dump(t, st)
	for _, want := range []string{"node java:Wide.m0 member/method ", "node java:Wide.m99999 member/method ",
		"edge calls java:Wide.m0 -> java:Wide.m0", "edge calls java:Wide.m99999 -> java:Wide.m99999"} {
		if !strings.Contains(got, want) {
			t.Errorf("the index lacks %q", want)
		}
	}
	if n := strings.Count(got, "edge calls java:Wide.m"); n != 100_000 {
		t.Errorf("%d calls, want 100,000", n)
	}
}

// TestBudgetMessagesNameOptions: what a budget reports names the limit
// by its Options field, in Diagnostic.Limit and in the message, and no
// command-line flag: the library's callers (relay index, relay serve)
// name their own settings. The messages used to give relay index's
// flags.
func TestBudgetMessagesNameOptions(t *testing.T) {
	dir := t.TempDir()
	for rel, src := range map[string]string{
		"big.py":    strings.Repeat("x = 1\n", 400),
		"deep.py":   "x = " + strings.Repeat("(", 60) + "1" + strings.Repeat(")", 60) + "\n",
		"Big.java":  "class Big {" + strings.Repeat(" int m() { return 1; }", 100) + "}\n",
		"small.txt": "",
	} {
		if err := os.WriteFile(filepath.Join(dir, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sum, err := index.Run(t.Context(), indextest.OpenStore(), index.Options{Root: dir, MaxFileBytes: 2000, MaxDepth: 50})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]frontend.Diagnostic{}
	for _, d := range append(sum.Notes, sum.Errors...) {
		got[d.Pos] = d
	}
	for _, w := range []struct{ pos, limit string }{{"big.py", "MaxFileBytes"}, {"Big.java", "MaxFileBytes"}, {"deep.py", "MaxDepth"}} {
		d := got[w.pos]
		if d.Limit != w.limit || !strings.Contains(d.Msg, "Options."+w.limit) || strings.Contains(d.Msg, "--") {
			t.Errorf("%s: %+v, want Limit %s named in the message as Options.%[2]s, no flag", w.pos, d, w.limit)
		}
	}
}

// runGuarded indexes with opts into st and fails the test when the run
// fails or takes over java.HangGuard (a hang guard, not a speed target:
// BENCHMARKS.md has those).
func runGuarded(t *testing.T, st graphdb.Store, opts index.Options) index.Summary {
	t.Helper()
	type result struct {
		sum index.Summary
		err error
	}
	done := make(chan result, 1)
	go func() {
		sum, err := index.Run(t.Context(), st, opts)
		done <- result{sum, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			t.Fatalf("index.Run: %v", r.err)
		}
		return r.sum
	case <-time.After(java.HangGuard):
		t.Fatalf("indexing %s took over %v", opts.Root, java.HangGuard)
	}
	return index.Summary{}
}
