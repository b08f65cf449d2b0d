package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/udiff"
)

// TestEvalCheckout indexes a checkout for eval into its own store (a
// reader over its graph, the search index built), again incrementally,
// and a checkout without source over its empty graph.
func TestEvalCheckout(t *testing.T) {
	t.Parallel()
	root := sampleRepo(t)
	o, _ := testOptions(t, root)
	for range 2 {
		r, closer, err := New(o).EvalCheckout(t.Context(), "")
		if err != nil {
			t.Fatal(err)
		}
		nodes, err := r.FindSymbols(t.Context(), graphdb.SymbolQuery{Name: "NewServer"})
		if err != nil || len(nodes) == 0 {
			t.Errorf("FindSymbols(NewServer) = %v, %v; want the function", nodes, err)
		}
		if err := closer(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, ".relay")); err != nil {
		t.Errorf("no store in the checkout: %v", err)
	}

	docs := t.TempDir()
	if err := os.WriteFile(filepath.Join(docs, "README.md"), []byte("# Deploying\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ = testOptions(t, docs)
	r, closer, err := New(o).EvalCheckout(t.Context(), "")
	if err != nil {
		t.Fatalf("EvalCheckout without source = %v; want its empty graph", err)
	}
	defer closer()
	if st, err := r.Stats(t.Context()); err != nil || st.Files != 0 {
		t.Errorf("graph of a checkout without source: %+v, %v", st, err)
	}
}

// TestGoldFromDiff derives the gold answer of a Go fix from the source;
// nothing is written into the checkout.
func TestGoldFromDiff(t *testing.T) {
	t.Parallel()
	root := sampleRepo(t)
	diff := "--- a/api/api.go\n+++ b/api/api.go\n@@ -25 +25 @@ func NewServer(addr string, users store.Reader, svc *notify.Service) *Server {\n" +
		"-\tmux.HandleFunc(\"/healthz\", healthz)\n+\tmux.HandleFunc(\"/health\", healthz)\n" +
		"--- a/notify/notify_test.go\n+++ b/notify/notify_test.go\n@@ -1 +1 @@\n-x\n+y\n"
	diffs, err := udiff.Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	o, _ := testOptions(t, root)
	gold, err := New(o).GoldFromDiff(t.Context(), diffs)
	if err != nil {
		t.Fatal(err)
	}
	want := eval.Gold{Files: []string{"api/api.go"}, Functions: []string{"api/api.go:NewServer"}, Lines: map[string][]int{"api/api.go": {25}}}
	if d := cmp.Diff(want, gold, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Skipped" }, cmp.Ignore())); d != "" {
		t.Errorf("gold (-want +got):\n%s", d)
	}
	if len(gold.Skipped) != 1 || !strings.Contains(gold.Skipped[0], "notify/notify_test.go") {
		t.Errorf("skipped = %q, want the test file", gold.Skipped)
	}
	if _, err := os.Stat(filepath.Join(root, ".relay")); !os.IsNotExist(err) {
		t.Errorf("GoldFromDiff wrote into the checkout: %v", err)
	}
}
