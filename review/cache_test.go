package review

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
)

// countingReader counts the calls that reach the backend.
type countingReader struct {
	*memstore.Store
	calls int
}

func (c *countingReader) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	c.calls++
	return c.Store.Node(ctx, id)
}

func (c *countingReader) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	c.calls++
	return c.Store.FindSymbols(ctx, q)
}

func TestCachedReader(t *testing.T) {
	t.Parallel()
	g := testutil.FakeIndex(t, testutil.WriteTxtar(t, "../retrieve/testdata/repo.txtar"))
	back := &countingReader{Store: g}
	c := newCachedReader(back)
	ctx := t.Context()
	id := graphdb.NodeID("example.com/m/storage.RetryWithBackoff")
	for range 3 {
		n, err := c.Node(ctx, id)
		if err != nil || n.Name != "RetryWithBackoff" {
			t.Fatalf("Node = %+v, %v", n, err)
		}
		if _, err := c.Node(ctx, "nope"); !errors.Is(err, graphdb.ErrNotFound) {
			t.Fatalf("missing node: err = %v", err)
		}
		if _, err := c.FindSymbols(ctx, graphdb.SymbolQuery{Name: "Put"}); err != nil {
			t.Fatal(err)
		}
	}
	if back.calls != 3 {
		t.Errorf("backend calls = %d, want 3 (one per distinct question)", back.calls)
	}
	for _, op := range []graphdb.Op{graphdb.OpCallers, graphdb.OpCallees} {
		want, err := graphdb.Query(ctx, g, op, id, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graphdb.Query(ctx, c, op, id, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s through the cache (-want +got):\n%s", op, diff)
		}
	}
}
