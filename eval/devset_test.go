package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve"
)

// TestDevSet measures localization on the dev set in testdata/devset
// (real Go modules from the module cache, hand-written problem
// statements). It indexes 33 checkouts, so it runs only when RELAY_DEVSET
// names a directory for the checkouts (kept between runs):
//
//	RELAY_DEVSET=/tmp/devset go test ./eval -run TestDevSet -v
//
// It checks that every gold function exists in the graph, prints the
// relay pipeline, its ablations and the BM25-over-files baseline side by
// side, and writes per-instance results to testdata/eval_stats.txt.
func TestDevSet(t *testing.T) {
	dir := os.Getenv("RELAY_DEVSET")
	if dir == "" {
		t.Skip("set RELAY_DEVSET=DIR to run the dev-set evaluation (indexes 33 module checkouts)")
	}
	evalSet(t, "Dev-set", "testdata/devset/instances.jsonl", dir, "testdata/eval_stats.txt", "RELAY_DEVSET")
}

// TestRealSet measures localization on real fixes of real Go projects
// (testdata/realset: changelog entries as problem statements, gold from
// the diff between the release and the one before it, see its README):
//
//	RELAY_REALSET=/tmp/realset go test ./eval -run TestRealSet -v
//
// It compares its figures with the golden ones in testdata/realset_stats.txt
// as TestDevSet does (-update records a new run).
func TestRealSet(t *testing.T) {
	dir := os.Getenv("RELAY_REALSET")
	if dir == "" {
		t.Skip("set RELAY_REALSET=DIR to run the real-fix evaluation (indexes every instance's module checkout)")
	}
	evalSet(t, "Real-fix", "testdata/realset/instances.jsonl", dir, "testdata/realset_stats.txt", "RELAY_REALSET")
}

func evalSet(t *testing.T, name, instancesPath, dir, statsPath, env string) {
	ctx := t.Context()
	f, err := os.Open(instancesPath)
	if err != nil {
		t.Fatal(err)
	}
	insts, err := eval.LoadInstances(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := eval.MaterializeCheckouts(ctx, insts, dir); err != nil {
		t.Fatal(err)
	}
	prepare := prepareCheckout
	checkGoldInGraph(t, insts, dir)
	variants := []struct {
		name string
		opts retrieve.SearchOptions
	}{
		{"relay", retrieve.SearchOptions{}},
		{"relay-nograph", retrieve.SearchOptions{NoGraph: true}},
		{"graph-w0.5", retrieve.SearchOptions{GraphWeight: 0.5}},
		{"graph-w0.25", retrieve.SearchOptions{GraphWeight: 0.25}},
	}
	var table strings.Builder
	var stats strings.Builder
	for i, v := range variants {
		rep, err := eval.Run(ctx, insts, eval.Options{Checkouts: dir, Prepare: prepare, Baseline: i == 0, Search: v.opts})
		if err != nil {
			t.Fatal(err)
		}
		for j := range rep.Summaries {
			if rep.Summaries[j].Method == eval.MethodRelay {
				rep.Summaries[j].Method = v.name
			}
		}
		lines := strings.Split(strings.TrimSpace(rep.Table()), "\n")
		if i == 0 {
			table.WriteString(lines[0] + "\n")
		}
		for _, l := range lines[1 : len(lines)-1] {
			table.WriteString(l + "\n")
		}
		if i == 0 {
			for _, r := range rep.Results {
				if r.Method != eval.MethodRelay {
					continue
				}
				fmt.Fprintf(&stats, "%-20s file_rr=%.2f file_all@5=%v func_any@10=%v func_rr=%.2f top_files=%s\n",
					r.ID, r.FileRR, r.FileAll[5], r.FuncAny[10], r.FuncRR, strings.Join(first(r.Pred.Files, 3), ","))
			}
		}
	}
	t.Logf("%s (%d instances):\n%s", name, len(insts), table.String())
	out := fmt.Sprintf("# %s localization (go test ./eval -run %s with %s set)\n\n", name, t.Name(), env) + table.String() + "\n# relay, per instance\n" + stats.String()
	checkFigures(t, statsPath, out)
}

// checkFigures compares a run's figures with the golden ones in statsPath
// (eval.CompareFigures): a worse rank or figure fails, a better one asks
// for -update, which rewrites the file.
func checkFigures(t *testing.T, statsPath, out string) {
	t.Helper()
	if testutil.Update() {
		if err := os.WriteFile(statsPath, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	golden, err := os.ReadFile(statsPath)
	if err != nil {
		t.Fatalf("%v (run with -update to record the figures)", err)
	}
	ch, err := eval.CompareFigures(string(golden), out)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range ch.Worse {
		t.Errorf("worse than %s: %s", statsPath, w)
	}
	if len(ch.Better) > 0 {
		t.Logf("better than %s (record with -update):\n%s", statsPath, strings.Join(ch.Better, "\n"))
	}
	if t.Failed() {
		t.Logf("figures of this run:\n%s", out)
	}
}

func first(xs []string, n int) []string {
	if len(xs) > n {
		return xs[:n]
	}
	return xs
}

// prepareCheckout indexes a checkout into its embedded store (a store of
// another schema version is disposable and rebuilt) and builds its search
// index.
func prepareCheckout(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
	st, err := embedded.Open(embedded.DefaultDir(root), embedded.Options{})
	if err != nil {
		// A store of another schema version: the checkout is disposable.
		os.RemoveAll(embedded.DefaultDir(root))
		st, err = embedded.Open(embedded.DefaultDir(root), embedded.Options{})
	}
	if err != nil {
		return nil, nil, err
	}
	if _, err := index.Run(ctx, st, index.Options{Root: root}); err != nil {
		st.Close()
		return nil, nil, err
	}
	if _, err := retrieve.Build(ctx, root, st, retrieve.BuildOptions{}); err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, st.Close, nil
}

// checkGoldInGraph fails the test for a gold function the checkout's
// graph does not hold: the scores would mean nothing.
func checkGoldInGraph(t *testing.T, insts []eval.Instance, dir string) {
	t.Helper()
	ctx := t.Context()
	for _, in := range insts {
		g, release, err := prepareCheckout(ctx, filepath.Join(dir, in.ID))
		if err != nil {
			t.Fatalf("%s: %v", in.ID, err)
		}
		for _, loc := range in.GoldFunctions {
			ns, err := g.FindSymbols(ctx, graphdb.SymbolQuery{Loc: loc})
			if err != nil || len(ns) == 0 {
				t.Errorf("%s: gold function %s is not in the graph (%v)", in.ID, loc, err)
			}
		}
		release()
	}
}
