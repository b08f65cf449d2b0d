package arango

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
)

// randGraph is a random graph twice: in the in-memory store (memstore,
// which honours the Neighbors contract: sorted, far end must exist), so
// graphdb.TraverseNeighbors on it is the reference answer bfs must
// reproduce, and as the raw maps bfs takes.
type randGraph struct {
	*memstore.Store
	nodes map[graphdb.NodeID]graphdb.Node
	edges []graphdb.Edge
}

// region returns what traverseQuery hands to bfs: the nodes reachable
// along kinds (here: every stored node, a superset, which bfs must
// tolerate) and every edge of those kinds.
func (g *randGraph) region(kinds []graphdb.EdgeKind) (map[graphdb.NodeID]graphdb.Node, []graphdb.Edge) {
	want := map[graphdb.EdgeKind]bool{}
	for _, k := range kinds {
		want[k] = true
	}
	var es []graphdb.Edge
	for _, e := range g.edges {
		if want[e.Kind] {
			es = append(es, e)
		}
	}
	// Shuffle: the server returns edges in index order, not sorted.
	rand.Shuffle(len(es), func(i, j int) { es[i], es[j] = es[j], es[i] })
	return g.nodes, es
}

// randomGraph builds n nodes (some ids left unstored, so edges dangle),
// with multi-edges, self-loops, shared call sites and several kinds.
func randomGraph(t *testing.T, r *rand.Rand, n, m int) *randGraph {
	g := &randGraph{nodes: map[graphdb.NodeID]graphdb.Node{}}
	id := func(i int) graphdb.NodeID { return graphdb.NodeID(fmt.Sprintf("go:p.F%d", i)) }
	for i := range n {
		if r.IntN(8) == 0 {
			continue // missing node
		}
		g.nodes[id(i)] = graphdb.Node{ID: id(i), Kind: graphdb.KindFunction, Name: fmt.Sprintf("F%d", i),
			QName: fmt.Sprintf("p.F%d", i), File: fmt.Sprintf("f%d.go", i%3), StartLine: i}
	}
	kinds := []graphdb.EdgeKind{graphdb.EdgeCalls, graphdb.EdgeImplements, graphdb.EdgeParamOf}
	for range m {
		e := graphdb.Edge{From: id(r.IntN(n)), To: id(r.IntN(n)), Kind: kinds[r.IntN(len(kinds))],
			File: fmt.Sprintf("f%d.go", r.IntN(3)), Line: r.IntN(6)}
		g.edges = append(g.edges, e)
		if r.IntN(10) == 0 { // same site, another kind
			e.Kind = kinds[r.IntN(len(kinds))]
			g.edges = append(g.edges, e)
		}
	}
	g.Store = testutil.Graph(t, nil, slices.Collect(maps.Values(g.nodes)), g.edges)
	return g
}

func TestBFSMatchesTraverseNeighbors(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	kindSets := [][]graphdb.EdgeKind{
		{graphdb.EdgeCalls},
		{graphdb.EdgeCalls, graphdb.EdgeImplements},
		{graphdb.EdgeParamOf, graphdb.EdgeCalls, graphdb.EdgeImplements},
		{graphdb.EdgeImplements, graphdb.EdgeCalls, graphdb.EdgeImplements},
	}
	checked := 0
	for seed := range 10 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		g := randomGraph(t, r, 8+r.IntN(25), 10+r.IntN(80))
		for start := range 8 {
			startID := graphdb.NodeID(fmt.Sprintf("go:p.F%d", start))
			for _, kinds := range kindSets {
				for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
					for depth := 0; depth <= 4; depth++ {
						for _, limit := range []int{0, 2} {
							want, err := graphdb.TraverseNeighbors(ctx, g, startID, kinds, dir, depth, limit)
							if err != nil {
								t.Fatal(err)
							}
							nodes, edges := g.region(kinds)
							got := bfs(startID, kinds, dir, depth, limit, nodes, edges)
							if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
								t.Fatalf("seed %d start %s kinds %v %s depth %d limit %d (-TraverseNeighbors +bfs):\n%s",
									seed, startID, kinds, dir, depth, limit, diff)
							}
							checked++
						}
					}
				}
			}
		}
	}
	t.Logf("%d traversals agree", checked)
}

// TestBFSIgnoresExtraNodes: the server may hand bfs more nodes and edges
// than are reachable (another traversal's region); the answer must not
// change.
func TestBFSIgnoresExtraNodes(t *testing.T) {
	t.Parallel()
	n := func(id string) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.KindFunction, Name: id}
	}
	call := func(from, to string, line int) graphdb.Edge {
		return graphdb.Edge{From: graphdb.NodeID(from), To: graphdb.NodeID(to), Kind: graphdb.EdgeCalls, File: "a.go", Line: line}
	}
	nodes := map[graphdb.NodeID]graphdb.Node{"a": n("a"), "b": n("b"), "c": n("c"), "x": n("x"), "y": n("y")}
	edges := []graphdb.Edge{
		call("b", "c", 9), call("a", "c", 5), call("a", "b", 7), // reachable
		call("x", "y", 1), call("y", "a", 2), // unreachable from a outbound
		call("a", "gone", 1), // dangling
		{From: "a", To: "x", Kind: graphdb.EdgeImplements, File: "a.go", Line: 1}, // other kind
	}
	got := bfs("a", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 3, 0, nodes, edges)
	want := []graphdb.Hop{
		{Node: n("c"), Depth: 1, Via: "a", Edge: call("a", "c", 5)},
		{Node: n("b"), Depth: 1, Via: "a", Edge: call("a", "b", 7)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("bfs (-want +got):\n%s", diff)
	}
}
