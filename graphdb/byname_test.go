package graphdb_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
)

// TestByName: calls_by_name edges are never callers or callees in Query
// (nor in traversals over calls); ByName lists them after the exact
// answer, one result per node at its first site, leaving out the exact
// callers and the target.
func TestByName(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	n := func(id string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.KindFunction, Name: id, QName: "m." + id, Language: "python", File: "m.py", StartLine: line}
	}
	nodes := []graphdb.Node{n("T", 1), n("A", 10), n("B", 20), n("C", 30), n("D", 40)}
	edges := []graphdb.Edge{
		{From: "A", To: "T", Kind: graphdb.EdgeCalls, File: "m.py", Line: 11},
		{From: "A", To: "T", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 12}, // an exact caller too
		{From: "C", To: "T", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 33},
		{From: "C", To: "T", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 31},
		{From: "B", To: "T", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 21},
		{From: "T", To: "T", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 2},
		{From: "T", To: "D", Kind: graphdb.EdgeCallsByName, File: "m.py", Line: 3},
		{From: "B", To: "A", Kind: graphdb.EdgeCalls, File: "m.py", Line: 22},
	}
	st := memstore.New()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "m.py"}, nodes, edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	type res struct {
		ID       graphdb.NodeID
		Relation string
		Line     int
	}
	flat := func(rs []graphdb.Result) []res {
		var out []res
		for _, r := range rs {
			out = append(out, res{r.Node.ID, r.Relation, r.Line})
		}
		return out
	}
	tests := []struct {
		name        string
		op          graphdb.Op
		target      graphdb.NodeID
		exact, more []res
	}{
		{"callers", graphdb.OpCallers, "T",
			[]res{{"A", "calls", 11}, {"B", "calls", 22}}, // depth 2 below
			[]res{{"C", graphdb.RelCallerByName, 31}}},
		{"callees", graphdb.OpCallees, "T", nil, []res{{"D", graphdb.RelCalleeByName, 3}}},
		{"callees of a by-name caller", graphdb.OpCallees, "C", nil, []res{{"T", graphdb.RelCalleeByName, 31}}},
		{"other operations", graphdb.OpImplementations, "T", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			exact, err := graphdb.Query(ctx, st, tc.op, tc.target, 2, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.exact, flat(exact)); diff != "" {
				t.Errorf("Query (-want +got)\n%s", diff)
			}
			more, err := graphdb.ByName(ctx, st, tc.op, tc.target, exact)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.more, flat(more)); diff != "" {
				t.Errorf("ByName (-want +got)\n%s", diff)
			}
		})
	}
	hops, err := graphdb.Traverse(ctx, st, "T", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 3, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hops) != 2 {
		t.Errorf("traversal over calls reached %d nodes, want A and B only: %+v", len(hops), hops)
	}
}
