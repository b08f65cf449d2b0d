//go:build cgo

package index

import (
	"context"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/pathcorpus"
)

// pathologicalHangGuard bounds one run of TestPathologicalFiles: a hang
// guard, far above what any kind takes (figures in BENCHMARKS.md); before
// the budgets, attribute chains ran for minutes.
const pathologicalHangGuard = 5 * time.Minute

// pathologicalRSS bounds the growth of the test process's RSS over one
// run: before the budgets a 20 MB bundle took 2.6 GB, 5,000 nested
// namespaces 1.7 GB. Now the largest, a million nested calls, takes about
// 700 MB, most of it tree-sitter's tree.
const pathologicalRSS = 1 << 30

// hierarchyRSS bounds the 10,000-class hierarchy's run, which took
// 160 MB with bounded method resolution orders and about 1 GB before
// (each class held its whole ancestry).
const hierarchyRSS = 512 << 20

// TestPathologicalFiles indexes each Python and TypeScript/JavaScript
// kind of the pathological corpus with the default budgets: the run ends
// (no stack overflow, no hang), within bounded memory, with the file's
// diagnostic (or, for the kinds that are only large, its declarations),
// and the repository's other files indexed.
func TestPathologicalFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes files of up to 20 MB")
	}
	want := map[string]string{ // the kind's (first) diagnostic; "" when its declarations are indexed
		"py-parens-1e6":          "nesting too deep",
		"py-attr-chain-25000":    "nesting too deep",
		"py-nested-classes-1800": "syntax error", // tree-sitter-python nests about 256 indentation levels
		"py-hierarchy-10000":     "",
		"py-wide-100000":         "",
		"ts-calls-1e6":           "nesting too deep",
		"ts-calls-20000":         "nesting too deep",
		"ts-calls-50000":         "nesting too deep",
		"ts-namespaces-1300":     "", // just under the depth limit: extracted
		"ts-namespaces-5000":     "nesting too deep",
		"ts-namespaces-20000":    "nesting too deep",
		"ts-wide-100000":         "",
		"js-bundle-20MB":         "over the 4.0 MiB file-size limit",
		"js-bundle-2MB":          "looks minified",
	}
	seen := 0
	for _, k := range pathcorpus.Kinds() {
		diag, ok := want[k.Name]
		if !ok {
			continue
		}
		seen++
		t.Run(k.Name, func(t *testing.T) {
			dir := t.TempDir()
			if err := k.Write(dir); err != nil {
				t.Fatal(err)
			}
			st := newMemStore()
			// No parse timeout: a loaded machine may take longer than
			// the default 30 s on the deepest files, and what is checked
			// here is the depth limit and memory (the hang guard stays).
			sum, grew := runMeasured(t, st, Options{Root: dir, ParseTimeout: -1})
			limit := int64(pathologicalRSS)
			if k.Name == "py-hierarchy-10000" {
				limit = hierarchyRSS
			}
			if grew > limit {
				t.Errorf("RSS grew by %d MiB, want at most %d MiB", grew>>20, limit>>20)
			}
			var about []string
			for _, d := range append(sum.Errors, sum.Notes...) {
				if d.Pos == k.File || strings.HasPrefix(d.Pos, k.File+":") {
					about = append(about, d.Msg)
				}
			}
			switch {
			case diag == "" && len(about) > 0:
				t.Errorf("%s: unexpected diagnostics %q", k.File, about)
			case diag != "" && (len(about) == 0 || !strings.Contains(about[0], diag)):
				t.Errorf("%s: diagnostics %q, want one saying %q", k.File, about, diag)
			}
			nodes, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: k.File})
			if err != nil {
				t.Fatal(err)
			}
			if diag == "" && len(nodes) < 1000 {
				t.Errorf("%s: %d nodes, want its declarations", k.File, len(nodes))
			}
			if diag != "" && len(nodes) == 0 {
				t.Errorf("%s: no node; want its file node", k.File)
			}
			ok, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{Name: "ok", Kinds: []graphdb.NodeKind{graphdb.KindFunction}})
			if err != nil {
				t.Fatal(err)
			}
			if wantOK := map[bool]int{true: 2, false: 1}[k.Lang == "typescript"]; len(ok) != wantOK {
				t.Errorf("functions named ok: %d, want %d (the repository's other files indexed)", len(ok), wantOK)
			}
		})
	}
	if seen != len(want) {
		t.Errorf("%d of the %d kinds found in the corpus", seen, len(want))
	}
}

// runMeasured runs Run under the hang guard and returns its summary and
// how much the process's RSS grew at most meanwhile (0 where /proc is
// missing).
func runMeasured(t *testing.T, st graphdb.Store, opts Options) (Summary, int64) {
	t.Helper()
	debug.FreeOSMemory()
	base := rss()
	var peak int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, rss())
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), pathologicalHangGuard)
	defer cancel()
	sum, err := Run(ctx, st, opts)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum, max(peak-base, 0)
}

// rss is the process's resident set size in bytes, 0 where unknown.
func rss() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
