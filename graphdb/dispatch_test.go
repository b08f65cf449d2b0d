package graphdb_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

// dispatchGraph: F calls I.M through the interface; T implements I; G calls F.
func dispatchGraph(t *testing.T) graphdb.Store {
	t.Helper()
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := func(id, kind, sub string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.NodeKind(kind), SubKind: sub, Name: id[len(id)-1:], QName: "p." + id, Language: "go", File: "a.go", StartLine: line}
	}
	nodes := []graphdb.Node{
		n("I", "type", "interface", 1), n("I.M", "member", "method", 2),
		n("T", "type", "struct", 4), n("T.M", "member", "method", 5), n("T.x", "member", "field", 6),
		n("F", "function", "", 8), n("G", "function", "", 12),
	}
	nodes[4].Name = "M" // a field named like the method must not count
	edges := []graphdb.Edge{
		{From: "I.M", To: "I", Kind: graphdb.EdgeParent},
		{From: "T.M", To: "T", Kind: graphdb.EdgeParent},
		{From: "T.x", To: "T", Kind: graphdb.EdgeParent},
		{From: "T", To: "I", Kind: graphdb.EdgeImplements},
		{From: "F", To: "I.M", Kind: graphdb.EdgeCalls, File: "a.go", Line: 9},
		{From: "G", To: "F", Kind: graphdb.EdgeCalls, File: "a.go", Line: 13},
	}
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "a.go"}, nodes, edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

type row struct {
	ID       graphdb.NodeID
	Depth    int
	Relation string
}

func rows(rs []graphdb.Result) []row {
	var out []row
	for _, r := range rs {
		out = append(out, row{r.Node.ID, r.Depth, r.Relation})
	}
	return out
}

func TestQueryDispatch(t *testing.T) {
	t.Parallel()
	st := dispatchGraph(t)
	tests := []struct {
		name   string
		op     graphdb.Op
		target graphdb.NodeID
		depth  int
		want   []row
	}{
		{"callers of concrete method through interface", graphdb.OpCallers, "T.M", 2, []row{
			{"F", 1, "calls via interface p.I.M"}, {"G", 2, "calls"},
		}},
		{"callers of interface method are direct", graphdb.OpCallers, "I.M", 1, []row{{"F", 1, "calls"}}},
		{"callees include possible dispatch targets", graphdb.OpCallees, "F", 1, []row{
			{"I.M", 1, "called by"}, {"T.M", 1, "may dispatch to (via p.I.M)"},
		}},
		{"a field is no method", graphdb.OpCallers, "T.x", 1, nil},
		{"missing target", graphdb.OpCallers, "nope", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := graphdb.Query(t.Context(), st, tt.op, tt.target, tt.depth, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	b, err := graphdb.BlastRadius(t.Context(), st, []graphdb.NodeID{"T.M"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Direct) != 1 || b.Direct[0].Node.ID != "F" || len(b.Transitive) != 1 {
		t.Errorf("blast radius of T.M: direct %v transitive %v; want F direct, G transitive", rows(b.Direct), rows(b.Transitive))
	}
}
