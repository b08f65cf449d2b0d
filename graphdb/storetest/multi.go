package storetest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// startSets are the start lists multi-source traversals are checked with:
// overlapping reach, duplicates, a start reachable from another, ids that
// are only mentioned (the dangling idGone) or never stored at all.
func startSets() [][]graphdb.NodeID {
	sets := [][]graphdb.NodeID{
		nil,
		{idHelper, idLoop},
		{idLoop, idHelper},
		{idServe, idNew},
		{idNew, idServe},
		{idHelper, idNew, idHelper},
		{idGone, idMain},
		{"go:ex/never", idHelper},
		{"go:ex/never"},
		{idServer, idHandler, idHServe, idTest},
	}
	for id := range fixtureNodes() {
		sets = append(sets, []graphdb.NodeID{id})
	}
	return append(sets, allIDs())
}

// agreeMulti checks graphdb.TraverseMulti (native when the backend has it)
// against the portable graphdb.TraverseMultiNeighbors for every start set,
// kind set, direction, depth and limit.
func agreeMulti(t *testing.T, s graphdb.Store) {
	t.Helper()
	ctx := t.Context()
	for _, starts := range startSets() {
		for _, kinds := range kindSets() {
			for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
				for _, depth := range []int{0, 1, 2, 4} {
					for _, limit := range []int{0, 3} {
						want, err := graphdb.TraverseMultiNeighbors(ctx, s, starts, kinds, dir, depth, limit)
						if err != nil {
							t.Fatalf("TraverseMultiNeighbors: %v", err)
						}
						got, err := graphdb.TraverseMulti(ctx, s, starts, kinds, dir, depth, limit)
						if err != nil {
							t.Fatalf("TraverseMulti(%v, %v, %s, %d, %d): %v", starts, kinds, dir, depth, limit, err)
						}
						if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
							t.Fatalf("TraverseMulti(%v, %v, %s, depth %d, limit %d) disagrees with TraverseMultiNeighbors (-want +got):\n%s",
								starts, kinds, dir, depth, limit, diff)
						}
					}
				}
			}
		}
	}
}

func testTraverseMulti(t *testing.T, s graphdb.Store) {
	agreeMulti(t, s)
	nodes := fixtureNodes()
	hop := func(id graphdb.NodeID, depth int, via graphdb.NodeID, e graphdb.Edge) graphdb.Hop {
		return graphdb.Hop{Node: nodes[id], Depth: depth, Via: via, Edge: e}
	}
	calls := []graphdb.EdgeKind{graphdb.EdgeCalls}
	// Callers of helper and loop: Main is 2 hops up from helper (through
	// Serve) but 1 from loop, and keeps depth 1 although helper's callers
	// are expanded first.
	helperLoop := []graphdb.Hop{
		hop(idServe, 1, idHelper, edge(idServe, idHelper, graphdb.EdgeCalls, "a.go", 14)),
		hop(idNew, 1, idHelper, edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28)),
		hop(idMain, 1, idLoop, edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8)),
		hop(idBServe, 2, idServe, edge(idBServe, idServe, graphdb.EdgeCalls, "b.go", 28)),
		hop(idTest, 2, idMain, edge(idTest, idMain, graphdb.EdgeCalls, "b_test.go", 5)),
	}
	tests := []struct {
		name   string
		starts []graphdb.NodeID
		kinds  []graphdb.EdgeKind
		dir    graphdb.Direction
		depth  int
		limit  int
		want   []graphdb.Hop
	}{
		{"overlapping callers, smallest depth wins", []graphdb.NodeID{idHelper, idLoop}, calls, graphdb.Inbound, 2, 0, helperLoop},
		{"depth limit", []graphdb.NodeID{idHelper, idLoop}, calls, graphdb.Inbound, 1, 0, helperLoop[:3]},
		{"hop limit", []graphdb.NodeID{idHelper, idLoop}, calls, graphdb.Inbound, 4, 2, helperLoop[:2]},
		{"duplicate starts count once", []graphdb.NodeID{idHelper, idLoop, idHelper, idLoop}, calls, graphdb.Inbound, 2, 0, helperLoop},
		// Main calls both Serve and New: the earlier start claims it, and
		// Serve, a caller of New, is a start and so never returned.
		{"equal distance: first start wins", []graphdb.NodeID{idServe, idNew}, calls, graphdb.Inbound, 1, 0, []graphdb.Hop{
			hop(idMain, 1, idServe, edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7)),
			hop(idBServe, 1, idServe, edge(idBServe, idServe, graphdb.EdgeCalls, "b.go", 28)),
		}},
		{"equal distance: order reversed", []graphdb.NodeID{idNew, idServe}, calls, graphdb.Inbound, 1, 0, []graphdb.Hop{
			hop(idMain, 1, idNew, edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6)),
			hop(idBServe, 1, idServe, edge(idBServe, idServe, graphdb.EdgeCalls, "b.go", 28)),
		}},
		// Only inherits and param_of are followed: Wrapper embeds Server;
		// helper's only param_of neighbour is Server, a start; its callers
		// are not reached.
		{"kinds filter", []graphdb.NodeID{idServer, idHelper}, []graphdb.EdgeKind{graphdb.EdgeParamOf, graphdb.EdgeInherits}, graphdb.Inbound, 2, 0, []graphdb.Hop{
			hop(idWrapper, 1, idServer, edge(idWrapper, idServer, graphdb.EdgeInherits, "a.go", 38)),
		}},
		// loop → loop and loop ⇄ Main are cycles; the dangling Main → gone.F
		// is skipped; helper is claimed by New, expanded before Serve.
		{"callees through cycles", []graphdb.NodeID{idLoop, idTest}, calls, graphdb.Outbound, 3, 0, []graphdb.Hop{
			hop(idMain, 1, idLoop, edge(idLoop, idMain, graphdb.EdgeCalls, "b.go", 19)),
			hop(idBServe, 1, idTest, edge(idTest, idBServe, graphdb.EdgeCalls, "b_test.go", 6)),
			hop(idNew, 2, idMain, edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6)),
			hop(idServe, 2, idMain, edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7)),
			hop(idHelper, 3, idNew, edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28)),
		}},
		{"unknown start reaches nothing", []graphdb.NodeID{"go:ex/never", idHelper}, calls, graphdb.Inbound, 1, 0, []graphdb.Hop{
			hop(idServe, 1, idHelper, edge(idServe, idHelper, graphdb.EdgeCalls, "a.go", 14)),
			hop(idNew, 1, idHelper, edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28)),
		}},
		{"only unknown starts", []graphdb.NodeID{"go:ex/never", "go:ex/nowhere"}, calls, graphdb.Inbound, 3, 0, nil},
		{"no starts", nil, calls, graphdb.Inbound, 3, 0, nil},
		{"depth 0", []graphdb.NodeID{idHelper, idLoop}, calls, graphdb.Inbound, 0, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := graphdb.TraverseMulti(t.Context(), s, tc.starts, tc.kinds, tc.dir, tc.depth, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, nodeOpts); diff != "" {
				t.Errorf("TraverseMulti mismatch (-want +got):\n%s", diff)
			}
		})
	}
	// One start is Traverse.
	for _, start := range allIDs() {
		want, err := graphdb.Traverse(t.Context(), s, start, graphdb.EdgeKinds, graphdb.Inbound, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, err := graphdb.TraverseMulti(t.Context(), s, []graphdb.NodeID{start}, graphdb.EdgeKinds, graphdb.Inbound, 3, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
			t.Errorf("TraverseMulti from %s alone differs from Traverse (-want +got):\n%s", start, diff)
		}
	}
}
