package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// allIDs is every fixture node plus an id that is never stored.
func allIDs() []graphdb.NodeID {
	out := []graphdb.NodeID{idGone}
	for id := range fixtureNodes() {
		out = append(out, id)
	}
	return out
}

// kindSets are the edge-kind combinations traversals are checked with.
func kindSets() [][]graphdb.EdgeKind {
	sets := [][]graphdb.EdgeKind{
		graphdb.EdgeKinds,
		{graphdb.EdgeCalls, graphdb.EdgeImplements},
		{graphdb.EdgeReturns, graphdb.EdgeParamOf, graphdb.EdgeCalls},
	}
	for _, k := range graphdb.EdgeKinds {
		sets = append(sets, []graphdb.EdgeKind{k})
	}
	return sets
}

// agree checks graphdb.Traverse (native when the backend has it) against
// the portable graphdb.TraverseNeighbors for every start, kind set,
// direction, depth and limit.
func agree(t *testing.T, s graphdb.Store) {
	t.Helper()
	ctx := t.Context()
	for _, start := range allIDs() {
		for _, kinds := range kindSets() {
			for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
				for _, depth := range []int{0, 1, 2, 4} {
					for _, limit := range []int{0, 3} {
						want, err := graphdb.TraverseNeighbors(ctx, s, start, kinds, dir, depth, limit)
						if err != nil {
							t.Fatalf("TraverseNeighbors: %v", err)
						}
						got, err := graphdb.Traverse(ctx, s, start, kinds, dir, depth, limit)
						if err != nil {
							t.Fatalf("Traverse(%s, %v, %s, %d, %d): %v", start, kinds, dir, depth, limit, err)
						}
						if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
							t.Fatalf("Traverse(%s, %v, %s, depth %d, limit %d) disagrees with TraverseNeighbors (-want +got):\n%s",
								start, kinds, dir, depth, limit, diff)
						}
					}
				}
			}
		}
	}
}

func testTraverse(t *testing.T, s graphdb.Store) {
	agree(t, s)
	nodes := fixtureNodes()
	hop := func(id graphdb.NodeID, depth int, via graphdb.NodeID, e graphdb.Edge) graphdb.Hop {
		return graphdb.Hop{Node: nodes[id], Depth: depth, Via: via, Edge: e}
	}
	tests := []struct {
		name  string
		start graphdb.NodeID
		kinds []graphdb.EdgeKind
		dir   graphdb.Direction
		depth int
		limit int
		want  []graphdb.Hop
	}{
		{"callees through a cycle", idLoop, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 3, 0, []graphdb.Hop{
			hop(idMain, 1, idLoop, edge(idLoop, idMain, graphdb.EdgeCalls, "b.go", 19)),
			hop(idNew, 2, idMain, edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6)),
			hop(idServe, 2, idMain, edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7)),
			hop(idHelper, 3, idNew, edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28)),
		}},
		{"callers with limit", idHelper, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 5, 3, []graphdb.Hop{
			hop(idServe, 1, idHelper, edge(idServe, idHelper, graphdb.EdgeCalls, "a.go", 14)),
			hop(idNew, 1, idHelper, edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28)),
			hop(idMain, 2, idServe, edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7)),
		}},
		{"mixed kinds merged by site", idServer, []graphdb.EdgeKind{graphdb.EdgeParamOf, graphdb.EdgeImplements}, graphdb.Outbound, 1, 0, []graphdb.Hop{
			hop(idHandler, 1, idServer, edge(idServer, idHandler, graphdb.EdgeImplements, "a.go", 3)),
			hop(idHelper, 1, idServer, edge(idServer, idHelper, graphdb.EdgeParamOf, "a.go", 32)),
		}},
		{"depth 0", idHelper, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 0, 0, nil},
		{"start not returned on self loop", idLoop, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 1, 0, []graphdb.Hop{
			hop(idMain, 1, idLoop, edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8)),
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := graphdb.Traverse(t.Context(), s, tc.start, tc.kinds, tc.dir, tc.depth, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, nodeOpts); diff != "" {
				t.Errorf("Traverse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// testTraverseAfterWrite: a native traversal index must follow commits.
func testTraverseAfterWrite(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	count := func() int {
		t.Helper()
		hops, err := graphdb.Traverse(ctx, s, idHelper, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		return len(hops)
	}
	if got := count(); got != 2 {
		t.Fatalf("callers of helper = %d, want 2", got)
	}
	b := bNew()
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error { return tx.ReplaceFile(ctx, b.file, b.nodes, b.edges) })
	if got := count(); got != 3 {
		t.Errorf("callers of helper after b.go calls it = %d, want 3", got)
	}
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error { return tx.DeleteFile(ctx, "a.go") })
	hops, err := graphdb.Traverse(ctx, s, idMain, graphdb.EdgeKinds, graphdb.Outbound, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hops {
		if h.Node.File == "a.go" {
			t.Errorf("Traverse reached %s of deleted a.go", h.Node.ID)
		}
	}
	agree(t, s)
	agreeMulti(t, s)
}

func testQuery(t *testing.T, s graphdb.Store) {
	res := queryResult(fixtureNodes())
	tests := []struct {
		op     graphdb.Op
		target graphdb.NodeID
		depth  int
		limit  int
		want   []graphdb.Result
	}{
		{graphdb.OpCallers, idHelper, 1, 0, []graphdb.Result{
			res(idServe, 1, "calls", idHelper, "a.go", 14),
			res(idNew, 1, "calls", idHelper, "a.go", 28),
			res(idMain, 1, graphdb.RelReferenced, idHelper, "b.go", 10),
		}},
		{graphdb.OpCallers, idHelper, 3, 0, []graphdb.Result{
			res(idServe, 1, "calls", idHelper, "a.go", 14),
			res(idNew, 1, "calls", idHelper, "a.go", 28),
			res(idMain, 2, "calls", idServe, "b.go", 7),
			res(idBServe, 2, "calls", idServe, "b.go", 28),
			res(idLoop, 3, "calls", idMain, "b.go", 19),
			res(idTest, 3, "calls", idMain, "b_test.go", 5),
			res(idMain, 1, graphdb.RelReferenced, idHelper, "b.go", 10),
		}},
		{graphdb.OpCallers, idLoop, 1, 0, []graphdb.Result{
			res(idMain, 1, "calls", idLoop, "b.go", 8),
			res(idLoop, 1, graphdb.RelRecursive, idLoop, "b.go", 18),
		}},
		{graphdb.OpCallees, idLoop, 1, 0, []graphdb.Result{
			res(idMain, 1, "called by", idLoop, "b.go", 19),
			res(idLoop, 1, graphdb.RelRecursive, idLoop, "b.go", 18),
		}},
		{graphdb.OpCallers, idHelper, 3, 2, []graphdb.Result{
			res(idServe, 1, "calls", idHelper, "a.go", 14),
			res(idNew, 1, "calls", idHelper, "a.go", 28),
		}},
		{graphdb.OpCallees, idMain, 2, 0, []graphdb.Result{
			res(idServe, 1, "called by", idMain, "b.go", 7),
			res(idNew, 1, "called by", idMain, "b.go", 6),
			res(idLoop, 1, "called by", idMain, "b.go", 8),
			res(idHelper, 2, "called by", idNew, "a.go", 28),
		}},
		{graphdb.OpImplementations, idHandler, 2, 0, []graphdb.Result{
			res(idServer, 1, "implements (only *Server: pointer receivers)", idHandler, "a.go", 3),
		}},
		{graphdb.OpMethods, idServer, 5, 0, []graphdb.Result{
			res(idAddr, 1, "member of", idServer, "a.go", 4),
			res(idServe, 1, "member of", idServer, "a.go", 12),
		}},
		{graphdb.OpUsages, idServer, 1, 0, []graphdb.Result{
			res(idNew, 1, "returns", idServer, "a.go", 26),
			res(idHelper, 1, "takes as parameter", idServer, "a.go", 32),
		}},
		{graphdb.OpInheritors, idServer, 3, 0, []graphdb.Result{
			res(idWrapper, 1, "inherits/embeds", idServer, "a.go", 38),
		}},
		{graphdb.OpCallers, "go:ex/never", 2, 0, nil},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s/%s/depth%d/limit%d", tc.op, tc.target, tc.depth, tc.limit), func(t *testing.T) {
			got, err := graphdb.Query(t.Context(), s, tc.op, tc.target, tc.depth, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, nodeOpts); diff != "" {
				t.Errorf("Query mismatch (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := graphdb.Query(t.Context(), s, graphdb.Op("friends"), idHelper, 1, 0); err == nil {
		t.Error("Query with an unknown op succeeded")
	}
	testQueryDispatch(t, s)
}

// queryResult returns a constructor of the Results Query gives for nodes.
func queryResult(nodes map[graphdb.NodeID]graphdb.Node) func(id graphdb.NodeID, depth int, rel string, via graphdb.NodeID, file string, line int) graphdb.Result {
	return func(id graphdb.NodeID, depth int, rel string, via graphdb.NodeID, file string, line int) graphdb.Result {
		return graphdb.Result{Node: nodes[id], Depth: depth, Relation: rel, Via: via, File: file, Line: line}
	}
}

// testQueryDispatch: d.go calls Handler.Serve, which Server.Serve
// implements, so D is a caller of Server.Serve and Server.Serve a possible
// callee of D. It adds d.go to s.
func testQueryDispatch(t *testing.T, s graphdb.Store) {
	res := queryResult(fixtureNodes())
	d := node("go:ex/d.D", graphdb.KindFunction, "", "D", "ex/d.D", "d.go:D", "d.go", 3, 6)
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "d.go", Language: "go"}, []graphdb.Node{d},
			[]graphdb.Edge{edge(d.ID, idHServe, graphdb.EdgeCalls, "d.go", 4)})
	})
	callers, err := graphdb.Query(t.Context(), s, graphdb.OpCallers, idServe, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCallers := []graphdb.Result{
		res(idMain, 1, "calls", idServe, "b.go", 7),
		res(idBServe, 1, "calls", idServe, "b.go", 28),
		{Node: d, Depth: 1, Relation: "calls via interface ex/a.Handler.Serve", Via: idServe, File: "d.go", Line: 4},
	}
	if diff := cmp.Diff(wantCallers, callers, nodeOpts); diff != "" {
		t.Errorf("callers of Server.Serve through Handler (-want +got):\n%s", diff)
	}
	callees, err := graphdb.Query(t.Context(), s, graphdb.OpCallees, d.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCallees := []graphdb.Result{
		res(idServe, 1, "may dispatch to (via ex/a.Handler.Serve)", d.ID, "d.go", 4),
		res(idHServe, 1, "called by", d.ID, "d.go", 4),
	}
	if diff := cmp.Diff(wantCallees, callees, nodeOpts); diff != "" {
		t.Errorf("callees of D through Handler (-want +got):\n%s", diff)
	}
}

func testResolve(t *testing.T, s graphdb.Store) {
	tests := []struct {
		target     string
		want       graphdb.NodeID
		wantErr    error
		candidates []graphdb.NodeID
	}{
		{target: "go:ex/a.New", want: idNew},
		{target: "ex/a.New", want: idNew},
		{target: "a.go:Server.Serve", want: idServe},
		{target: "Server.Serve", want: idServe},
		{target: "*Server.Serve", want: idServe},
		{target: "a.Server.Serve", want: idServe},
		{target: "  helper ", want: idHelper},
		{target: "addr", want: idAddr},
		{target: "Serve", wantErr: graphdb.ErrAmbiguous, candidates: []graphdb.NodeID{idServe, idHServe, idBServe}},
		{target: "nowhere.Serve", wantErr: graphdb.ErrNotFound, candidates: []graphdb.NodeID{idServe, idHServe, idBServe}},
		{target: "zzz", wantErr: graphdb.ErrNotFound},
		{target: "", wantErr: graphdb.ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.target, func(t *testing.T) {
			got, err := graphdb.Resolve(t.Context(), s, tc.target)
			if tc.wantErr == nil {
				if err != nil {
					t.Fatalf("Resolve(%q): %v", tc.target, err)
				}
				if got.ID != tc.want {
					t.Errorf("Resolve(%q) = %s, want %s", tc.target, got.ID, tc.want)
				}
				return
			}
			wantErrIs(t, "Resolve("+tc.target+")", err, tc.wantErr)
			var amb *graphdb.AmbiguousError
			if tc.target != "" {
				if !errors.As(err, &amb) {
					t.Fatalf("Resolve(%q) error %T, want *graphdb.AmbiguousError", tc.target, err)
				}
				if diff := cmp.Diff(tc.candidates, ids(amb.Candidates), nodeOpts); diff != "" {
					t.Errorf("Resolve(%q) candidates (-want +got):\n%s", tc.target, diff)
				}
			}
		})
	}
}

func testBlastRadius(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	nodes := fixtureNodes()
	res := func(id graphdb.NodeID, depth int, via graphdb.NodeID, file string, line int) graphdb.Result {
		return graphdb.Result{Node: nodes[id], Depth: depth, Relation: "calls", Via: via, File: file, Line: line}
	}
	got, err := graphdb.BlastRadius(ctx, s, []graphdb.NodeID{idHelper}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Main uses helper as a value: a direct referrer (references count).
	test := res(idTest, 2, idMain, "b_test.go", 5)
	ref := res(idMain, 1, idHelper, "b.go", 10)
	ref.Relation = graphdb.RelReferenced
	want := graphdb.Blast{
		Targets: []graphdb.Node{nodes[idHelper]},
		Direct: []graphdb.Result{
			res(idServe, 1, idHelper, "a.go", 14),
			res(idNew, 1, idHelper, "a.go", 28),
			ref,
		},
		Transitive: []graphdb.Result{
			res(idLoop, 2, idMain, "b.go", 19),
			res(idBServe, 2, idServe, "b.go", 28),
			test,
		},
		Files:    []string{"a.go", "b.go", "b_test.go"},
		Tests:    []graphdb.Result{test},
		MaxDepth: graphdb.DefaultBlastDepth,
		Risk:     graphdb.RiskScore(3, 3, 3, false, false),
	}
	if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
		t.Errorf("BlastRadius(helper) mismatch (-want +got):\n%s", diff)
	}

	// Two targets: a target is never its own caller, and each caller keeps
	// its smallest depth over both targets.
	got, err = graphdb.BlastRadius(ctx, s, []graphdb.NodeID{idHelper, idNew, idHelper}, 2)
	if err != nil {
		t.Fatal(err)
	}
	depths := map[graphdb.NodeID]int{}
	for _, r := range append(got.Direct, got.Transitive...) {
		depths[r.Node.ID] = r.Depth
	}
	wantDepths := map[graphdb.NodeID]int{idServe: 1, idMain: 1, idBServe: 2, idLoop: 2, idTest: 2}
	if diff := cmp.Diff(wantDepths, depths); diff != "" {
		t.Errorf("BlastRadius(helper, New) depths (-want +got):\n%s", diff)
	}
	if len(got.Targets) != 2 {
		t.Errorf("BlastRadius targets = %v, want helper and New once each", ids(got.Targets))
	}

	_, err = graphdb.BlastRadius(ctx, s, []graphdb.NodeID{idGone}, 1)
	wantErrIs(t, "BlastRadius(missing)", err, graphdb.ErrNotFound)

	// Interface dispatch: D calls Handler.Serve, so D is a direct caller
	// of Server.Serve (credited to it), at the same depth as Serve's and
	// helper's own callers, and nothing above D is reached.
	d := node("go:ex/d.D", graphdb.KindFunction, "", "D", "ex/d.D", "d.go:D", "d.go", 3, 6)
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "d.go", Language: "go"}, []graphdb.Node{d},
			[]graphdb.Edge{edge(d.ID, idHServe, graphdb.EdgeCalls, "d.go", 4)})
	})
	got, err = graphdb.BlastRadius(ctx, s, []graphdb.NodeID{idHelper, idServe}, 2)
	if err != nil {
		t.Fatal(err)
	}
	test = res(idTest, 2, idMain, "b_test.go", 5)
	want = graphdb.Blast{
		Targets: []graphdb.Node{nodes[idHelper], nodes[idServe]},
		Direct: []graphdb.Result{
			res(idNew, 1, idHelper, "a.go", 28),
			ref, // Main reaches helper (the first target) by its reference before Serve by its call
			res(idBServe, 1, idServe, "b.go", 28),
			{Node: d, Depth: 1, Relation: "calls via interface ex/a.Handler.Serve", Via: idServe, File: "d.go", Line: 4},
		},
		Transitive: []graphdb.Result{
			res(idLoop, 2, idMain, "b.go", 19),
			test,
		},
		Files:    []string{"a.go", "b.go", "b_test.go", "d.go"},
		Tests:    []graphdb.Result{test},
		MaxDepth: 2,
		Risk:     graphdb.RiskScore(4, 2, 4, true, false),
	}
	if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
		t.Errorf("BlastRadius(helper, Server.Serve) through Handler mismatch (-want +got):\n%s", diff)
	}
}
