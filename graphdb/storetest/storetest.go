// Package storetest is the conformance suite every graphdb.Store backend
// passes: the embedded store always, ArangoDB when a server is configured.
//
// A backend test calls
//
//	storetest.Run(t, func(t *testing.T) graphdb.Store { return openEmptyStore(t) })
//
// where open returns a new, empty store and registers its cleanup with
// t.Cleanup. The suite seeds a small fixture graph (two packages, a call
// cycle, a dangling edge, three nodes named Serve, a test file and a
// pseudo-owner) and checks every Reader and Tx method and every clause of
// the contract in graphdb/store.go, plus graphdb.Query, graphdb.Resolve and
// graphdb.BlastRadius on top of the backend, and agreement of a native
// graphdb.Traverser and graphdb.MultiTraverser with the portable
// graphdb.TraverseNeighbors and graphdb.TraverseMultiNeighbors.
//
// Behaviour that not every backend can offer is behind Features; crash
// safety is tested by each backend itself (it needs process control).
package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
)

// Features switch off checks a backend cannot honour. The zero value checks
// everything.
type Features struct {
	// NoSecondBeginLocked skips the check that a second Begin on the same
	// store, while a Tx is open, fails with graphdb.ErrLocked.
	NoSecondBeginLocked bool
	// NoClosedErrors skips the check that calls after Close fail with
	// graphdb.ErrClosed.
	NoClosedErrors bool
}

// Run runs the whole suite with every feature checked.
func Run(t *testing.T, open func(t *testing.T) graphdb.Store) {
	RunFeatures(t, open, Features{})
}

// RunFeatures runs the suite with the given features switched off.
func RunFeatures(t *testing.T, open func(t *testing.T) graphdb.Store, f Features) {
	seeded := func(t *testing.T) graphdb.Store {
		t.Helper()
		s := open(t)
		seed(t, s)
		return s
	}
	t.Run("Node", func(t *testing.T) { testNode(t, seeded(t)) })
	t.Run("Neighbors", func(t *testing.T) { testNeighbors(t, seeded(t)) })
	t.Run("FindSymbols", func(t *testing.T) { testFindSymbols(t, seeded(t)) })
	t.Run("Files", func(t *testing.T) { testFiles(t, seeded(t)) })
	t.Run("Stats", func(t *testing.T) { testStats(t, seeded(t)) })
	t.Run("Meta", func(t *testing.T) { testMeta(t, seeded(t)) })
	t.Run("Empty", func(t *testing.T) { testEmpty(t, open(t)) })
	t.Run("ReplaceFile", func(t *testing.T) { testReplaceFile(t, seeded(t)) })
	t.Run("DeleteFile", func(t *testing.T) { testDeleteFile(t, seeded(t)) })
	t.Run("DanglingEdges", func(t *testing.T) { testDangling(t, seeded(t)) })
	t.Run("Rollback", func(t *testing.T) { testRollback(t, seeded(t)) })
	t.Run("Isolation", func(t *testing.T) { testIsolation(t, seeded(t)) })
	t.Run("OwnedByAnother", func(t *testing.T) { testOwnedByAnother(t, seeded(t)) })
	t.Run("BadInput", func(t *testing.T) { testBadInput(t, seeded(t)) })
	t.Run("TxFinished", func(t *testing.T) { testTxFinished(t, seeded(t)) })
	if !f.NoSecondBeginLocked {
		t.Run("SecondBegin", func(t *testing.T) { testSecondBegin(t, seeded(t)) })
	}
	t.Run("ConcurrentReaders", func(t *testing.T) { testConcurrentReaders(t, seeded(t)) })
	t.Run("Traverse", func(t *testing.T) { testTraverse(t, seeded(t)) })
	t.Run("Scan", func(t *testing.T) { testScan(t, seeded(t)) })
	t.Run("TraverseAfterWrite", func(t *testing.T) { testTraverseAfterWrite(t, seeded(t)) })
	t.Run("TraverseMulti", func(t *testing.T) { testTraverseMulti(t, seeded(t)) })
	t.Run("Query", func(t *testing.T) { testQuery(t, seeded(t)) })
	t.Run("Resolve", func(t *testing.T) { testResolve(t, seeded(t)) })
	t.Run("BlastRadius", func(t *testing.T) { testBlastRadius(t, seeded(t)) })
	if !f.NoClosedErrors {
		t.Run("Closed", func(t *testing.T) { testClosed(t, open(t)) })
	}
}

// seed writes the fixture in one transaction.
func seed(t *testing.T, s graphdb.Store) {
	t.Helper()
	write(t, s, func(ctx context.Context, tx graphdb.Tx) error {
		for _, o := range fixture() {
			if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
				return err
			}
		}
		return tx.SetMeta(ctx, "indexer", "fixture-1")
	})
}

// write runs fn in a transaction and commits it, failing t on any error.
func write(t *testing.T, s graphdb.Store, fn func(ctx context.Context, tx graphdb.Tx) error) {
	t.Helper()
	ctx := t.Context()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatalf("Begin: %v", err)
	}
	if err := fn(ctx, tx); err != nil {
		tx.Rollback()
		t.Fatalf("write: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// mustNode fetches a node or fails.
func mustNode(t *testing.T, r graphdb.Reader, id graphdb.NodeID) graphdb.Node {
	t.Helper()
	n, err := r.Node(t.Context(), id)
	if err != nil {
		t.Fatalf("Node(%s): %v", id, err)
	}
	return n
}

// ids lists node ids in order.
func ids(ns []graphdb.Node) []graphdb.NodeID {
	out := []graphdb.NodeID{}
	for _, n := range ns {
		out = append(out, n.ID)
	}
	return out
}

// nodeOpts compares nodes treating nil and empty Attrs alike.
var nodeOpts = cmp.Options{cmpopts.EquateEmpty()}

func wantErrIs(t *testing.T, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("%s: error %v, want one wrapping %v", what, err, target)
	}
}

// snapshot is everything a reader can see, as comparable values.
type snapshot struct {
	Files []graphdb.FileRecord
	Nodes []graphdb.Node
	Edges []graphdb.Edge
	Stats graphdb.Stats
}

// take reads the whole visible graph: every node of every file (and the
// pseudo-owners' file-less nodes, via the given extra ids), and every
// outbound edge of those nodes.
func take(t *testing.T, r graphdb.Reader, extra ...graphdb.NodeID) snapshot {
	t.Helper()
	ctx := t.Context()
	var sn snapshot
	files, err := r.Files(ctx)
	if err != nil {
		t.Fatalf("Files: %v", err)
	}
	sn.Files = files
	seen := map[graphdb.NodeID]bool{}
	add := func(n graphdb.Node) {
		if !seen[n.ID] {
			seen[n.ID] = true
			sn.Nodes = append(sn.Nodes, n)
		}
	}
	for _, f := range []string{"a.go", "b.go", "b_test.go", "c.go"} {
		ns, err := r.FindSymbols(ctx, graphdb.SymbolQuery{File: f})
		if err != nil {
			t.Fatalf("FindSymbols(File %s): %v", f, err)
		}
		for _, n := range ns {
			add(n)
		}
	}
	for _, id := range append([]graphdb.NodeID{idModA, idModB}, extra...) {
		n, err := r.Node(ctx, id)
		if errors.Is(err, graphdb.ErrNotFound) {
			continue
		}
		if err != nil {
			t.Fatalf("Node(%s): %v", id, err)
		}
		add(n)
	}
	for _, n := range sn.Nodes {
		for _, k := range graphdb.EdgeKinds {
			es, err := r.Neighbors(ctx, n.ID, k, graphdb.Outbound, 0)
			if err != nil {
				t.Fatalf("Neighbors(%s, %s): %v", n.ID, k, err)
			}
			sn.Edges = append(sn.Edges, es...)
		}
	}
	graphdb.SortEdges(sn.Edges)
	st, err := r.Stats(ctx)
	if err != nil {
		t.Fatalf("Stats: %v", err)
	}
	sn.Stats = normStats(st)
	return sn
}

// normStats drops zero counts so backends may report absent kinds either way.
func normStats(st graphdb.Stats) graphdb.Stats {
	out := graphdb.Stats{Files: st.Files, Nodes: map[graphdb.NodeKind]int{}, Edges: map[graphdb.EdgeKind]int{}}
	for k, v := range st.Nodes {
		if v != 0 {
			out.Nodes[k] = v
		}
	}
	for k, v := range st.Edges {
		if v != 0 {
			out.Edges[k] = v
		}
	}
	return out
}
