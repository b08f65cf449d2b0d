package review

import (
	"context"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
)

// multiGraph is a Store with a "native" multi-source traversal that
// counts its calls.
type multiGraph struct {
	*memstore.Store
	multi int
}

func (g *multiGraph) TraverseMulti(ctx context.Context, starts []graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	g.multi++
	return graphdb.TraverseMultiNeighbors(ctx, g.Store, starts, kinds, dir, depth, limit)
}

// TestBlastRadiusCached checks that the review's cached reader gives the
// blast radius of the backend itself, through the backend's multi-source
// traversal when it has one and through cached Neighbors calls otherwise.
// (graphdb's TestBlastRadiusPerTarget checks BlastRadius against the old
// per-target semantics.)
func TestBlastRadiusCached(t *testing.T) {
	t.Parallel()
	g := testutil.FakeIndex(t, testutil.WriteTxtar(t, "../retrieve/testdata/repo.txtar"))
	var all []graphdb.NodeID
	files, err := g.Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		ns, err := g.FindSymbols(t.Context(), graphdb.SymbolQuery{File: f.Path, Kinds: []graphdb.NodeKind{graphdb.KindFunction, graphdb.KindMember}})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			all = append(all, n.ID)
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	const p = "example.com/m/"
	sets := [][]graphdb.NodeID{
		{p + "storage.computeDelay"},
		{p + "storage.isTransient", p + "storage.computeDelay", p + "server.parseContentLength"},
		{p + "config.Config.Validate", p + "storage.BlobStore.Get", p + "storage.RetryWithBackoff", p + "storage.BlobStore.Put"},
		all,
	}
	native := &multiGraph{Store: g}
	callers := 0
	for _, depth := range []int{1, 2, 4} {
		for _, ids := range sets {
			n := len(ids)
			want, err := graphdb.BlastRadius(t.Context(), g, ids, depth)
			if err != nil {
				t.Fatal(err)
			}
			callers += len(want.Direct) + len(want.Transitive)
			for _, back := range []graphdb.Reader{g, native} {
				before := native.multi
				got, err := graphdb.BlastRadius(t.Context(), newCachedReader(back), ids, depth)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("depth %d, %d targets, backend %T (-want +got):\n%s", depth, n, back, diff)
				}
				if back == native && native.multi != before+1 {
					t.Errorf("depth %d, %d targets: %d native multi-source traversals, want 1", depth, n, native.multi-before)
				}
			}
		}
	}
	if callers < 20 {
		t.Errorf("%d callers over all cases; the test graph is too small", callers)
	}
}
