package storetest

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

func testNode(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	for id, want := range fixtureNodes() {
		got, err := s.Node(ctx, id)
		if err != nil {
			t.Errorf("Node(%s): %v", id, err)
			continue
		}
		if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
			t.Errorf("Node(%s) mismatch (-want +got):\n%s", id, diff)
		}
	}
	if got := mustNode(t, s, idServer); got.Attrs["go.methodset"] != "Serve" || got.Attrs["go.size"] != "24" {
		t.Errorf("Node(%s).Attrs = %v, want the stored attributes", idServer, got.Attrs)
	}
	for _, id := range []graphdb.NodeID{idGone, "", "go:ex/a.server"} {
		_, err := s.Node(ctx, id)
		wantErrIs(t, "Node("+string(id)+")", err, graphdb.ErrNotFound)
	}
}

func testNeighbors(t *testing.T, s graphdb.Store) {
	tests := []struct {
		name  string
		id    graphdb.NodeID
		kind  graphdb.EdgeKind
		dir   graphdb.Direction
		limit int
		want  []graphdb.Edge
	}{
		{"callers sorted by site", idHelper, graphdb.EdgeCalls, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idServe, idHelper, graphdb.EdgeCalls, "a.go", 14),
			edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28),
		}},
		{"callees hide dangling", idMain, graphdb.EdgeCalls, graphdb.Outbound, 0, []graphdb.Edge{
			edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6),
			edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7),
			edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8),
		}},
		{"limit", idMain, graphdb.EdgeCalls, graphdb.Outbound, 2, []graphdb.Edge{
			edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6),
			edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7),
		}},
		{"limit counts visible edges only", idMain, graphdb.EdgeCalls, graphdb.Outbound, 3, []graphdb.Edge{
			edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6),
			edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7),
			edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8),
		}},
		{"self loop both ways", idLoop, graphdb.EdgeCalls, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8),
			edge(idLoop, idLoop, graphdb.EdgeCalls, "b.go", 18),
		}},
		{"callers across files", idMain, graphdb.EdgeCalls, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idLoop, idMain, graphdb.EdgeCalls, "b.go", 19),
			edge(idTest, idMain, graphdb.EdgeCalls, "b_test.go", 5),
		}},
		{"members", idServer, graphdb.EdgeParent, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idAddr, idServer, graphdb.EdgeParent, "a.go", 4),
			edge(idServe, idServer, graphdb.EdgeParent, "a.go", 12),
		}},
		{"implements from pseudo-owner", idHandler, graphdb.EdgeImplements, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idServer, idHandler, graphdb.EdgeImplements, "a.go", 3),
		}},
		{"inherits", idServer, graphdb.EdgeInherits, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idWrapper, idServer, graphdb.EdgeInherits, "a.go", 38),
		}},
		{"returns", idNew, graphdb.EdgeReturns, graphdb.Outbound, 0, []graphdb.Edge{
			edge(idNew, idServer, graphdb.EdgeReturns, "a.go", 26),
		}},
		{"param_of", idServer, graphdb.EdgeParamOf, graphdb.Outbound, 0, []graphdb.Edge{
			edge(idServer, idHelper, graphdb.EdgeParamOf, "a.go", 32),
		}},
		{"imports", idModA, graphdb.EdgeImports, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idFileB, idModA, graphdb.EdgeImports, "b.go", 3),
		}},
		{"decorated_by", idHelper, graphdb.EdgeDecoratedBy, graphdb.Outbound, 0, []graphdb.Edge{
			edge(idHelper, idNew, graphdb.EdgeDecoratedBy, "a.go", 31),
		}},
		{"other kind is separate", idHelper, graphdb.EdgeInherits, graphdb.Inbound, 0, nil},
		{"references inbound", idHelper, graphdb.EdgeReferences, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idMain, idHelper, graphdb.EdgeReferences, "b.go", 10),
		}},
		{"references outbound", idMain, graphdb.EdgeReferences, graphdb.Outbound, 0, []graphdb.Edge{
			edge(idMain, idHelper, graphdb.EdgeReferences, "b.go", 10),
		}},
		{"missing node keeps edges from stored nodes", idGone, graphdb.EdgeCalls, graphdb.Inbound, 0, []graphdb.Edge{
			edge(idMain, idGone, graphdb.EdgeCalls, "b.go", 9),
		}},
		{"edges of a missing node are its own", "go:ex/never", graphdb.EdgeCalls, graphdb.Outbound, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Neighbors(t.Context(), tc.id, tc.kind, tc.dir, tc.limit)
			if err != nil {
				t.Fatalf("Neighbors: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, nodeOpts); diff != "" {
				t.Errorf("Neighbors(%s, %s, %s, %d) mismatch (-want +got):\n%s", tc.id, tc.kind, tc.dir, tc.limit, diff)
			}
		})
	}
}

func testFindSymbols(t *testing.T, s graphdb.Store) {
	fn := []graphdb.NodeKind{graphdb.KindFunction}
	tests := []struct {
		name string
		q    graphdb.SymbolQuery
		want []graphdb.NodeID
	}{
		{"empty query matches nothing", graphdb.SymbolQuery{}, nil},
		{"kinds alone select nothing", graphdb.SymbolQuery{Kinds: fn}, nil},
		{"id", graphdb.SymbolQuery{ID: idNew}, []graphdb.NodeID{idNew}},
		{"missing id", graphdb.SymbolQuery{ID: idGone}, nil},
		{"qname", graphdb.SymbolQuery{QName: "ex/a.Server.Serve"}, []graphdb.NodeID{idServe}},
		{"qname is exact", graphdb.SymbolQuery{QName: "Server.Serve"}, nil},
		{"suffix type.method", graphdb.SymbolQuery{Suffix: "Server.Serve"}, []graphdb.NodeID{idServe}},
		{"suffix pkg.type.method", graphdb.SymbolQuery{Suffix: "a.Server.Serve"}, []graphdb.NodeID{idServe}},
		{"suffix whole qname", graphdb.SymbolQuery{Suffix: "ex/a.Server.Serve"}, []graphdb.NodeID{idServe}},
		{"suffix respects segment boundary", graphdb.SymbolQuery{Suffix: "erver.Serve"}, nil},
		{"suffix name", graphdb.SymbolQuery{Suffix: "Serve"}, []graphdb.NodeID{idServe, idHServe, idBServe}},
		{"suffix after slash", graphdb.SymbolQuery{Suffix: "a"}, []graphdb.NodeID{idModA}},
		{"suffix with dot in name", graphdb.SymbolQuery{Suffix: "b.go"}, []graphdb.NodeID{idFileB}},
		{"suffix and kinds", graphdb.SymbolQuery{Suffix: "Serve", Kinds: fn}, []graphdb.NodeID{idBServe}},
		{"name", graphdb.SymbolQuery{Name: "Serve"}, []graphdb.NodeID{idServe, idHServe, idBServe}},
		{"name is exact", graphdb.SymbolQuery{Name: "serve"}, nil},
		{"name and kinds", graphdb.SymbolQuery{Name: "Serve", Kinds: []graphdb.NodeKind{graphdb.KindMember}}, []graphdb.NodeID{idServe, idHServe}},
		{"name and two kinds", graphdb.SymbolQuery{Name: "Serve", Kinds: []graphdb.NodeKind{graphdb.KindFunction, graphdb.KindType}}, []graphdb.NodeID{idBServe}},
		{"loc", graphdb.SymbolQuery{Loc: "a.go:Server.Serve"}, []graphdb.NodeID{idServe}},
		{"file sorted by line", graphdb.SymbolQuery{File: "a.go"}, []graphdb.NodeID{idFileA, idServer, idAddr, idServe, idHandler, idHServe, idNew, idHelper, idWrapper}},
		{"file with limit", graphdb.SymbolQuery{File: "a.go", Limit: 3}, []graphdb.NodeID{idFileA, idServer, idAddr}},
		{"file and kinds", graphdb.SymbolQuery{File: "b.go", Kinds: fn}, []graphdb.NodeID{idMain, idLoop, idBServe}},
		{"suffix full module path", graphdb.SymbolQuery{Suffix: "ex/b", Kinds: []graphdb.NodeKind{graphdb.KindModule}}, []graphdb.NodeID{idModB}},
		{"fields are ANDed", graphdb.SymbolQuery{Name: "Serve", File: "b.go"}, []graphdb.NodeID{idBServe}},
		{"conflicting fields", graphdb.SymbolQuery{Name: "Serve", QName: "ex/a.New"}, nil},
		{"across files sorted by file", graphdb.SymbolQuery{Suffix: "Main"}, []graphdb.NodeID{idMain}},
		{"limit on suffix", graphdb.SymbolQuery{Suffix: "Serve", Limit: 2}, []graphdb.NodeID{idServe, idHServe}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.FindSymbols(t.Context(), tc.q)
			if err != nil {
				t.Fatalf("FindSymbols: %v", err)
			}
			if diff := cmp.Diff(tc.want, ids(got), nodeOpts); diff != "" {
				t.Errorf("FindSymbols(%+v) mismatch (-want +got):\n%s", tc.q, diff)
			}
		})
	}
	// Module nodes have no file and line 0: they tie and sort by qname.
	got, err := s.FindSymbols(t.Context(), graphdb.SymbolQuery{Suffix: "ex/a", Kinds: []graphdb.NodeKind{graphdb.KindModule}})
	if err != nil || len(got) != 1 {
		t.Fatalf("FindSymbols(module ex/a) = %v, %v", ids(got), err)
	}
	want := fixtureNodes()
	for _, n := range got {
		if diff := cmp.Diff(want[n.ID], n, nodeOpts); diff != "" {
			t.Errorf("FindSymbols returned node %s mismatch (-want +got):\n%s", n.ID, diff)
		}
	}
}

func testFiles(t *testing.T, s graphdb.Store) {
	got, err := s.Files(t.Context())
	if err != nil {
		t.Fatalf("Files: %v", err)
	}
	var want []graphdb.FileRecord
	for _, path := range []string{"@go/implements", "@modules", "a.go", "b.go", "b_test.go"} {
		for _, o := range fixture() {
			if o.file.Path == path {
				want = append(want, o.file)
			}
		}
	}
	if diff := cmp.Diff(want, got, nodeOpts); diff != "" {
		t.Errorf("Files mismatch (-want +got):\n%s", diff)
	}
}

func fixtureStats() graphdb.Stats {
	st := graphdb.Stats{Nodes: map[graphdb.NodeKind]int{}, Edges: map[graphdb.EdgeKind]int{}}
	for _, o := range fixture() {
		st.Files++
		for _, n := range o.nodes {
			st.Nodes[n.Kind]++
		}
		for _, e := range o.edges {
			st.Edges[e.Kind]++
		}
	}
	return st
}

func testStats(t *testing.T, s graphdb.Store) {
	got, err := s.Stats(t.Context())
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	want := fixtureStats()
	if diff := cmp.Diff(want, normStats(got)); diff != "" {
		t.Errorf("Stats mismatch (-want +got):\n%s", diff)
	}
	if got.TotalNodes() != 16 || got.TotalEdges() != 24 {
		t.Errorf("Stats totals = %d nodes, %d edges; want 16, 24 (dangling edges are stored and counted)", got.TotalNodes(), got.TotalEdges())
	}
}

func testMeta(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	get := func(key string) string {
		t.Helper()
		v, err := s.Meta(ctx, key)
		if err != nil {
			t.Fatalf("Meta(%q): %v", key, err)
		}
		return v
	}
	if got := get("indexer"); got != "fixture-1" {
		t.Errorf("Meta(indexer) = %q, want fixture-1", got)
	}
	if got := get("unset"); got != "" {
		t.Errorf("Meta(unset) = %q, want empty", got)
	}
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		if err := tx.SetMeta(ctx, "indexer", "fixture-2"); err != nil {
			return err
		}
		return tx.SetMeta(ctx, "multi\nline", "a value with\nnewlines and ünïcode")
	})
	if got := get("indexer"); got != "fixture-2" {
		t.Errorf("Meta(indexer) after overwrite = %q, want fixture-2", got)
	}
	if got := get("multi\nline"); got != "a value with\nnewlines and ünïcode" {
		t.Errorf("Meta(multi) = %q", got)
	}
}

func testEmpty(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	if _, err := s.Node(ctx, idNew); err == nil {
		t.Error("Node on an empty store succeeded")
	}
	if es, err := s.Neighbors(ctx, idNew, graphdb.EdgeCalls, graphdb.Inbound, 0); err != nil || len(es) != 0 {
		t.Errorf("Neighbors on an empty store = %v, %v", es, err)
	}
	if ns, err := s.FindSymbols(ctx, graphdb.SymbolQuery{Name: "New"}); err != nil || len(ns) != 0 {
		t.Errorf("FindSymbols on an empty store = %v, %v", ns, err)
	}
	if fs, err := s.Files(ctx); err != nil || len(fs) != 0 {
		t.Errorf("Files on an empty store = %v, %v", fs, err)
	}
	st, err := s.Stats(ctx)
	if err != nil || st.Files != 0 || st.TotalNodes() != 0 || st.TotalEdges() != 0 {
		t.Errorf("Stats on an empty store = %+v, %v", st, err)
	}
	if v, err := s.Meta(ctx, "indexer"); err != nil || v != "" {
		t.Errorf("Meta on an empty store = %q, %v", v, err)
	}
	hops, err := graphdb.Traverse(ctx, s, idNew, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 3, 0)
	if err != nil || len(hops) != 0 {
		t.Errorf("Traverse on an empty store = %v, %v", hops, err)
	}
}
