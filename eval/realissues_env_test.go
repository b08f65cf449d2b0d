package eval_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
)

// TestRealIssues measures localization on real tracker issues of Java and
// JavaScript projects with their merged fixes (a Multi-SWE-bench subset:
// jackson-core, gson, mockito, dayjs; instances.jsonl and git bundles in
// the folder RELAY_REALISSUES names). The data stays outside the
// repository; only the summary figures are golden, in
// testdata/realissues_stats.txt (compared as TestDevSet's, -update
// records a run). Checkouts and their indexes are cached under
// RELAY_REALISSUES_CACHE (default: a folder in the system temp dir), so a
// rerun only re-localizes:
//
//	RELAY_REALISSUES=/work/shared/realissues go test ./eval -run TestRealIssues -v
//
// Every derived gold function must be a node of the checkout's graph.
// Languages without a graph frontend (Java today) are scored on files
// only; once one lands, the function columns fill in and the golden
// figures ask for -update.
func TestRealIssues(t *testing.T) {
	set := os.Getenv("RELAY_REALISSUES")
	if set == "" {
		t.Skip("set RELAY_REALISSUES=DIR (instances.jsonl and bundles) to run the real-issue evaluation")
	}
	cache := os.Getenv("RELAY_REALISSUES_CACHE")
	if cache == "" {
		cache = filepath.Join(os.TempDir(), "relay-realissues")
	}
	ctx := t.Context()
	roots := map[string]string{} // instance id → checkout (<cache>/checkouts/<id>-<commit>)
	prepare := func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
		if base := filepath.Base(root); len(base) > 41 {
			roots[base[:len(base)-41]] = root
		}
		st, err := embedded.Open(embedded.DefaultDir(root), embedded.Options{Rebuild: true})
		if err != nil {
			return nil, nil, err
		}
		if _, err := index.Run(ctx, st, index.Options{Root: root}); err != nil && !errors.Is(err, index.ErrNoSource) {
			st.Close()
			return nil, nil, err
		}
		if _, err := retrieve.Build(ctx, root, st, retrieve.BuildOptions{}); err != nil {
			st.Close()
			return nil, nil, err
		}
		return st, st.Close, nil
	}
	rep, err := eval.RunRealIssues(ctx, eval.RealOptions{Set: set, Cache: cache, Prepare: prepare})
	if err != nil {
		t.Fatal(err)
	}
	// Gold functions must exist, or the function scores mean nothing.
	for _, in := range rep.Instances {
		if len(in.GoldFunctions) == 0 {
			continue
		}
		root := roots[in.ID]
		g, release, err := prepare(ctx, root)
		if err != nil {
			t.Fatalf("%s: %v", in.ID, err)
		}
		for _, loc := range in.GoldFunctions {
			if ns, err := g.FindSymbols(ctx, graphdb.SymbolQuery{Loc: loc}); err != nil || len(ns) == 0 {
				t.Errorf("%s: gold function %s is not in the graph (%v)", in.ID, loc, err)
			}
		}
		release()
	}
	for _, r := range rep.Results {
		if r.Error != "" {
			t.Errorf("%s (%s): %s", r.ID, r.Method, r.Error)
		}
	}
	out := rep.Figures("Real-issue localization (go test ./eval -run TestRealIssues with RELAY_REALISSUES set); summary only: the instances stay outside the repository", false)
	t.Logf("%s", out)
	checkFigures(t, "testdata/realissues_stats.txt", out)
}
