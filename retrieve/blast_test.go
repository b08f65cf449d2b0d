package retrieve

import (
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// TestBlastRadiusParallel checks that the parallel blast radius equals one
// graphdb.BlastRadius call.
func TestBlastRadiusParallel(t *testing.T) {
	root := writeTxtar(t, "testdata/repo.txtar")
	g := fakeIndex(t, root)
	var ids []graphdb.NodeID
	for id, n := range g.nodes {
		if n.Kind == graphdb.KindFunction || n.Kind == graphdb.KindMember {
			ids = append(ids, id)
		}
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	old := minParallelTargets
	minParallelTargets = 2
	t.Cleanup(func() { minParallelTargets = old })
	for _, depth := range []int{1, 2, 4} {
		for _, n := range []int{2, 3, len(ids)} {
			want, err := graphdb.BlastRadius(t.Context(), g, ids[:n], depth)
			if err != nil {
				t.Fatal(err)
			}
			got, err := blastRadius(t.Context(), g, ids[:n], depth)
			if err != nil {
				t.Fatal(err)
			}
			// Via may name a different but equally near node; compare the rest.
			clearVia := func(b *graphdb.Blast) {
				for _, rs := range [][]graphdb.Result{b.Direct, b.Transitive, b.Tests} {
					for i := range rs {
						rs[i].Via, rs[i].File, rs[i].Line = "", "", 0
					}
				}
			}
			clearVia(&want)
			clearVia(&got)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("depth %d, %d targets (-want +got):\n%s", depth, n, diff)
			}
		}
	}
}
