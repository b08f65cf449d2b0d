package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// bNew is a new version of b.go: loop is gone, Main calls helper directly,
// and a new function Run appears.
func bNew() owner {
	main := node(idMain, graphdb.KindFunction, "", "Main", "ex/b.Main", "b.go:Main", "b.go", 5, 12)
	main.Exported = true
	run := node("go:ex/b.Run", graphdb.KindFunction, "", "Run", "ex/b.Run", "b.go:Run", "b.go", 14, 20)
	run.Exported = true
	return owner{
		file: graphdb.FileRecord{Path: "b.go", Hash: "h-b2", Language: "go", Module: "ex/b", Size: 250},
		nodes: []graphdb.Node{
			node(idFileB, graphdb.KindFile, "", "b.go", "b.go", "b.go", "b.go", 1, 20),
			main,
			run,
			node(idBServe, graphdb.KindFunction, "", "Serve", "ex/b.Serve", "b.go:Serve", "b.go", 22, 24),
		},
		edges: []graphdb.Edge{
			edge(idMain, idHelper, graphdb.EdgeCalls, "b.go", 6),
			edge("go:ex/b.Run", idMain, graphdb.EdgeCalls, "b.go", 15),
		},
	}
}

func testReplaceFile(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	b := bNew()
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error { return tx.ReplaceFile(ctx, b.file, b.nodes, b.edges) })

	if _, err := s.Node(ctx, idLoop); !errors.Is(err, graphdb.ErrNotFound) {
		t.Errorf("Node(loop) after replacing b.go: %v, want ErrNotFound", err)
	}
	got, err := s.FindSymbols(ctx, graphdb.SymbolQuery{File: "b.go"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.nodes, got, nodeOpts); diff != "" {
		t.Errorf("nodes of b.go after replace (-want +got):\n%s", diff)
	}
	callees, err := s.Neighbors(ctx, idMain, graphdb.EdgeCalls, graphdb.Outbound, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graphdb.Edge{edge(idMain, idHelper, graphdb.EdgeCalls, "b.go", 6)}, callees); diff != "" {
		t.Errorf("callees of Main after replace (-want +got):\n%s", diff)
	}
	// Edges owned by other files that point at b.go's surviving ids stay.
	callers, err := s.Neighbors(ctx, idMain, graphdb.EdgeCalls, graphdb.Inbound, 0)
	if err != nil {
		t.Fatal(err)
	}
	wantCallers := []graphdb.Edge{
		edge("go:ex/b.Run", idMain, graphdb.EdgeCalls, "b.go", 15),
		edge(idTest, idMain, graphdb.EdgeCalls, "b_test.go", 5),
	}
	if diff := cmp.Diff(wantCallers, callers); diff != "" {
		t.Errorf("callers of Main after replace (-want +got):\n%s", diff)
	}
	files, err := s.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Path == "b.go" {
			if diff := cmp.Diff(b.file, f, nodeOpts); diff != "" {
				t.Errorf("file record of b.go after replace (-want +got):\n%s", diff)
			}
		}
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := fixtureStats()
	want.Nodes[graphdb.KindFunction] += 0 // loop removed, Run added
	want.Edges[graphdb.EdgeCalls] -= 7 - 2
	want.Edges[graphdb.EdgeParent]--
	want.Edges[graphdb.EdgeImports]--
	want.Edges[graphdb.EdgeReferences]--
	if diff := cmp.Diff(normStats(want), normStats(st)); diff != "" {
		t.Errorf("Stats after replace (-want +got):\n%s", diff)
	}

	// Replacing with the original content restores the original graph.
	before := fixture()[2]
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, before.file, before.nodes, before.edges)
	})
	fresh := take(t, s)
	if diff := cmp.Diff(fixtureStats(), fresh.Stats); diff != "" {
		t.Errorf("Stats after restoring b.go (-want +got):\n%s", diff)
	}

	// Replacing the same owner twice in one transaction keeps the last.
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		if err := tx.ReplaceFile(ctx, b.file, b.nodes, b.edges); err != nil {
			return err
		}
		return tx.ReplaceFile(ctx, before.file, before.nodes, before.edges)
	})
	if diff := cmp.Diff(fresh, take(t, s), nodeOpts); diff != "" {
		t.Errorf("graph after double replace in one Tx (-want +got):\n%s", diff)
	}

	// An id may move from one owner to another within one transaction.
	moved := node(idLoop, graphdb.KindFunction, "", "loop", "ex/b.loop", "c.go:loop", "c.go", 1, 3)
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		if err := tx.ReplaceFile(ctx, b.file, b.nodes, b.edges); err != nil {
			return err
		}
		return tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "c.go", Language: "go"}, []graphdb.Node{moved}, nil)
	})
	if got := mustNode(t, s, idLoop); got.File != "c.go" {
		t.Errorf("Node(loop).File after move = %q, want c.go", got.File)
	}
}

func testDeleteFile(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		if err := tx.DeleteFile(ctx, "b_test.go"); err != nil {
			return err
		}
		if err := tx.DeleteFile(ctx, "never-indexed.go"); err != nil {
			return fmt.Errorf("deleting a missing owner must not fail: %w", err)
		}
		return tx.DeleteFile(ctx, "@go/implements")
	})
	if _, err := s.Node(ctx, idTest); !errors.Is(err, graphdb.ErrNotFound) {
		t.Errorf("Node(TestMain) after delete: %v, want ErrNotFound", err)
	}
	callers, err := s.Neighbors(ctx, idMain, graphdb.EdgeCalls, graphdb.Inbound, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]graphdb.Edge{edge(idLoop, idMain, graphdb.EdgeCalls, "b.go", 19)}, callers); diff != "" {
		t.Errorf("callers of Main after deleting b_test.go (-want +got):\n%s", diff)
	}
	impls, err := s.Neighbors(ctx, idHandler, graphdb.EdgeImplements, graphdb.Inbound, 0)
	if err != nil || len(impls) != 0 {
		t.Errorf("implements after deleting the pseudo-owner = %v, %v; want none", impls, err)
	}
	files, err := s.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if diff := cmp.Diff([]string{"@modules", "a.go", "b.go"}, paths); diff != "" {
		t.Errorf("Files after delete (-want +got):\n%s", diff)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Files != 3 || st.TotalNodes() != 15 || st.TotalEdges() != 21 {
		t.Errorf("Stats after delete = %+v; want 3 files, 15 nodes, 21 edges", st)
	}
}

// testDangling: an edge may point at a node another owner no longer
// declares; it is hidden while the node is gone and visible again when the
// node comes back.
func testDangling(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	callees := func() []graphdb.Edge {
		t.Helper()
		es, err := s.Neighbors(ctx, idMain, graphdb.EdgeCalls, graphdb.Outbound, 0)
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := callees()
	a := fixture()[1]
	var withoutNew []graphdb.Node
	for _, n := range a.nodes {
		if n.ID != idNew {
			withoutNew = append(withoutNew, n)
		}
	}
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, a.file, withoutNew, a.edges)
	})
	want := []graphdb.Edge{
		edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7),
		edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8),
	}
	if diff := cmp.Diff(want, callees()); diff != "" {
		t.Errorf("callees of Main with New gone (-want +got):\n%s", diff)
	}
	hops, err := graphdb.Traverse(ctx, s, idMain, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 3, 0)
	if err != nil {
		t.Fatalf("Traverse with dangling edges: %v", err)
	}
	for _, h := range hops {
		if h.Node.ID == idNew || h.Node.ID == idGone {
			t.Errorf("Traverse reached missing node %s", h.Node.ID)
		}
	}
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, a.file, a.nodes, a.edges)
	})
	if diff := cmp.Diff(before, callees()); diff != "" {
		t.Errorf("callees of Main with New back (-want +got):\n%s", diff)
	}
}

func testRollback(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	before := take(t, s, "go:ex/b.Run")
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b := bNew()
	if err := tx.ReplaceFile(ctx, b.file, b.nodes, b.edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.DeleteFile(ctx, "a.go"); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetMeta(ctx, "indexer", "rolled-back"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatalf("Rollback: %v", err)
	}
	if diff := cmp.Diff(before, take(t, s, "go:ex/b.Run"), nodeOpts); diff != "" {
		t.Errorf("graph after Rollback (-want +got):\n%s", diff)
	}
	if v, _ := s.Meta(ctx, "indexer"); v != "fixture-1" {
		t.Errorf("Meta after Rollback = %q, want fixture-1", v)
	}
	// The store takes a new writer after a rollback.
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error { return tx.SetMeta(ctx, "after", "yes") })
}

// testIsolation: nothing a Tx writes is visible before Commit, and readers
// are not blocked by an open writer.
func testIsolation(t *testing.T, s graphdb.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	before := take(t, s, "go:ex/b.Run")
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	b := bNew()
	if err := tx.ReplaceFile(ctx, b.file, b.nodes, b.edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.DeleteFile(ctx, "b_test.go"); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetMeta(ctx, "indexer", "pending"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, take(t, s, "go:ex/b.Run"), nodeOpts); diff != "" {
		t.Errorf("graph visible during an open Tx (-want +got):\n%s", diff)
	}
	if v, _ := s.Meta(ctx, "indexer"); v != "fixture-1" {
		t.Errorf("Meta during an open Tx = %q, want fixture-1", v)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Node(ctx, "go:ex/b.Run"); err != nil {
		t.Errorf("Node(Run) after Commit: %v", err)
	}
	if v, _ := s.Meta(ctx, "indexer"); v != "pending" {
		t.Errorf("Meta after Commit = %q, want pending", v)
	}
}

func testOwnedByAnother(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	before := take(t, s)
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	stolen := node(idNew, graphdb.KindFunction, "", "New", "ex/a.New", "c.go:New", "c.go", 1, 2)
	err = tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "c.go"}, []graphdb.Node{stolen}, nil)
	if err == nil {
		t.Fatal("ReplaceFile with an id owned by a.go succeeded")
	}
	t.Logf("owned by another: %v", err)
	dup := node("go:ex/c.X", graphdb.KindFunction, "", "X", "ex/c.X", "c.go:X", "c.go", 1, 2)
	if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "c.go"}, []graphdb.Node{dup, dup}, nil); err == nil {
		t.Error("ReplaceFile with the same id twice succeeded")
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, take(t, s), nodeOpts); diff != "" {
		t.Errorf("graph after failed writes and Rollback (-want +got):\n%s", diff)
	}
}

func testBadInput(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	tests := []struct {
		name  string
		f     graphdb.FileRecord
		nodes []graphdb.Node
		edges []graphdb.Edge
	}{
		{"empty path", graphdb.FileRecord{}, nil, nil},
		{"empty node id", graphdb.FileRecord{Path: "c.go"}, []graphdb.Node{{Kind: graphdb.KindFunction, Name: "X"}}, nil},
		{"empty edge end", graphdb.FileRecord{Path: "c.go"}, nil, []graphdb.Edge{{From: idNew, Kind: graphdb.EdgeCalls}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tx, err := s.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback()
			if err := tx.ReplaceFile(ctx, tc.f, tc.nodes, tc.edges); err == nil {
				t.Errorf("ReplaceFile(%s) succeeded", tc.name)
			}
		})
	}
}

func testTxFinished(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := tx.SetMeta(ctx, "k", "v"); err == nil {
		t.Error("SetMeta after Commit succeeded")
	}
	if err := tx.Commit(); err == nil {
		t.Error("second Commit succeeded")
	}
	if v, _ := s.Meta(ctx, "k"); v != "" {
		t.Errorf("Meta(k) = %q after a write on a finished Tx", v)
	}
}

func testSecondBegin(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tx2, err := s.Begin(ctx)
	if err == nil {
		tx2.Rollback()
		t.Fatal("second Begin while a Tx is open succeeded")
	}
	wantErrIs(t, "second Begin", err, graphdb.ErrLocked)
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	tx3, err := s.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin after Rollback: %v", err)
	}
	tx3.Rollback()
}

// testConcurrentReaders: readers running during a large write always see
// either the whole old graph or the whole new one.
func testConcurrentReaders(t *testing.T, s graphdb.Store) {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	const n = 1000
	var nodes []graphdb.Node
	var edges []graphdb.Edge
	for i := range n {
		id := graphdb.NodeID(fmt.Sprintf("go:ex/big.F%d", i))
		nodes = append(nodes, node(id, graphdb.KindFunction, "", fmt.Sprintf("F%d", i), fmt.Sprintf("ex/big.F%d", i), "", "big.go", i+1, i+1))
		edges = append(edges, edge(id, idHelper, graphdb.EdgeCalls, "big.go", i+1))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ns, err := s.FindSymbols(ctx, graphdb.SymbolQuery{File: "big.go"})
				if err != nil {
					errs <- err
					return
				}
				es, err := s.Neighbors(ctx, idHelper, graphdb.EdgeCalls, graphdb.Inbound, 0)
				if err != nil {
					errs <- err
					return
				}
				if len(ns) != 0 && len(ns) != n {
					errs <- fmt.Errorf("reader saw %d of %d new nodes: a half-committed write", len(ns), n)
					return
				}
				if len(es) != 2 && len(es) != 2+n {
					errs <- fmt.Errorf("reader saw %d callers of helper, want 2 or %d", len(es), 2+n)
					return
				}
			}
		})
	}
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		for i := 0; i < 2; i++ { // rewrite the same owner within the Tx
			if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "big.go", Language: "go"}, nodes, edges); err != nil {
				return err
			}
		}
		return nil
	})
	time.Sleep(50 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	got, err := s.FindSymbols(ctx, graphdb.SymbolQuery{File: "big.go"})
	if err != nil || len(got) != n {
		t.Errorf("after Commit FindSymbols(big.go) = %d nodes, %v; want %d", len(got), err, n)
	}
}

func testClosed(t *testing.T, s graphdb.Store) {
	ctx := t.Context()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	_, err := s.Node(ctx, idNew)
	wantErrIs(t, "Node after Close", err, graphdb.ErrClosed)
	_, err = s.FindSymbols(ctx, graphdb.SymbolQuery{Name: "New"})
	wantErrIs(t, "FindSymbols after Close", err, graphdb.ErrClosed)
	_, err = s.Begin(ctx)
	wantErrIs(t, "Begin after Close", err, graphdb.ErrClosed)
}
