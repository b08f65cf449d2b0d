package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// TestEmbeddedEndToEnd indexes a sample into the embedded store (what this
// benchmark writes to) and asks the graph questions the tools ask: it
// checks the indexer and the store together, including an incremental run.
func TestEmbeddedEndToEnd(t *testing.T) {
	root := writeSample(t)
	st, err := embedded.Open(filepath.Join(t.TempDir(), "store"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	sum, err := index.Run(ctx, st, index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) != 0 || sum.Languages["Go"].Units == 0 {
		t.Fatalf("summary: packages=%d errors=%v", sum.Languages["Go"].Units, sum.Errors)
	}

	names := func(rs []graphdb.Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Node.QName)
		}
		return out
	}
	tests := []struct {
		op     graphdb.Op
		target string
		want   []string
	}{
		{graphdb.OpCallers, "pricing.Tax", []string{
			"example.com/shop/pricing.Quote", "example.com/shop/pricing.TestBest"}},
		{graphdb.OpImplementations, "pricing.Rule", []string{
			"example.com/shop/pricing.Percent", "example.com/shop/pricing.Flat"}}, // by line
		{graphdb.OpImplementations, "service.Notifier", []string{"example.com/shop/service.LogNotifier"}},
		{graphdb.OpInheritors, "model.Base", []string{"example.com/shop/model.Item", "example.com/shop/model.Order"}},
		// Through instantiations: Table[K, V] pushes V, Ints pushes int,
		// Named gets Push(string) from the embedded Ring[string].
		{graphdb.OpImplementations, "queue.Pusher", []string{
			"example.com/shop/queue.Queue", "example.com/shop/queue.IntPusher", "example.com/shop/queue.Ring",
			"example.com/shop/queue.Ints", "example.com/shop/queue.Named", "example.com/shop/queue.Table"}},
	}
	for _, tt := range tests {
		n, err := graphdb.Resolve(ctx, st, tt.target)
		if err != nil {
			t.Fatalf("resolve %s: %v", tt.target, err)
		}
		rs, err := graphdb.Query(ctx, st, tt.op, n.ID, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, names(rs)); diff != "" {
			t.Errorf("%s %s (-want +got):\n%s", tt.op, tt.target, diff)
		}
	}
	// The call through the interface is stored on the interface method.
	do, err := graphdb.Resolve(ctx, st, "api.API.Do")
	if err != nil {
		t.Fatal(err)
	}
	es, err := st.Neighbors(ctx, do.ID, graphdb.EdgeCalls, graphdb.Outbound, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graphdb.Edge{{From: do.ID, To: "go:example.com/shop/api.Handler.Handle", Kind: graphdb.EdgeCalls, File: "api/api.go", Line: 47}}, es); diff != "" {
		t.Errorf("calls of API.Do (-want +got):\n%s", diff)
	}
	n, err := graphdb.Resolve(ctx, st, "pricing/pricing.go:Percent.Apply")
	if err != nil || n.QName != "example.com/shop/pricing.Percent.Apply" {
		t.Errorf("resolve by location name: %v %v", n.QName, err)
	}

	incrementalTax(t, st, root)
}

// writeSample writes callcheck's sample repository into a new directory.
func writeSample(t *testing.T) string {
	t.Helper()
	return testutil.WriteTxtar(t, filepath.Join("..", "callcheck", "testdata", "sample.txtar"))
}

// incrementalTax adds a caller of pricing.Tax to the indexed sample: pricing
// gains an exported function, so it and the package importing it are
// reloaded, the caller appears, a further run has nothing to do.
func incrementalTax(t *testing.T, st graphdb.Store, root string) {
	ctx := t.Context()
	p := filepath.Join(root, "pricing", "extra.go")
	if err := os.WriteFile(p, []byte("package pricing\n\nfunc Gross(c int) int { return Tax(c) }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := index.Run(ctx, st, index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Languages["Go"].Units != 2 {
		t.Errorf("incremental run reloaded %d packages, want 2", sum.Languages["Go"].Units)
	}
	tax, _ := graphdb.Resolve(ctx, st, "pricing.Tax")
	rs, err := graphdb.Query(ctx, st, graphdb.OpCallers, tax.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rs {
		names = append(names, r.Node.QName)
	}
	if diff := cmp.Diff([]string{"example.com/shop/pricing.Gross", "example.com/shop/pricing.Quote", "example.com/shop/pricing.TestBest"}, names); diff != "" {
		t.Errorf("callers of Tax after the edit (-want +got):\n%s", diff)
	}
	again, err := index.Run(ctx, st, index.Options{Root: root})
	if err != nil || !again.Unchanged {
		t.Errorf("third run: %v unchanged=%v", err, again.Unchanged)
	}
}
