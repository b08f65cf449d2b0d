package arango

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/relayhq/relay/graphdb"
)

// benchRegion is a call graph of n functions with about 4 calls each, the
// shape a depth-4 callers query hands to bfs on a large repository.
func benchRegion(n int) (map[graphdb.NodeID]graphdb.Node, []graphdb.Edge) {
	r := rand.New(rand.NewPCG(1, 2))
	nodes := make(map[graphdb.NodeID]graphdb.Node, n)
	id := func(i int) graphdb.NodeID { return graphdb.NodeID(fmt.Sprintf("go:bench/p%d.F%d", i%50, i)) }
	for i := range n {
		nodes[id(i)] = graphdb.Node{ID: id(i), Kind: graphdb.KindFunction, QName: string(id(i))[3:], File: fmt.Sprintf("p%d/f.go", i%50), StartLine: i}
	}
	var edges []graphdb.Edge
	for i := range n {
		for range 4 {
			edges = append(edges, graphdb.Edge{From: id(i), To: id(r.IntN(n)), Kind: graphdb.EdgeCalls, File: fmt.Sprintf("p%d/f.go", i%50), Line: i})
		}
	}
	return nodes, edges
}

// BenchmarkBFS measures the in-memory replay that turns a traversal
// region into the exact answer (the part of Traverse that is not the AQL
// query).
func BenchmarkBFS(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		nodes, edges := benchRegion(n)
		b.Run(fmt.Sprintf("region=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				hops := bfs("go:bench/p0.F0", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 4, 0, nodes, edges)
				if len(hops) == 0 {
					b.Fatal("no hops")
				}
			}
		})
	}
}

// BenchmarkDocKey measures the id → _key mapping done for every node and
// edge written.
func BenchmarkDocKey(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = docKey("go:github.com/relayhq/relay/graphdb/arango.Store.Traverse")
	}
}

// BenchmarkServer measures writes and reads against a real server; it runs
// only with RELAY_ARANGO_URL set.
func BenchmarkServer(b *testing.B) {
	s := openFresh(b, freshURL(b, serverURL(b)), Options{})
	ctx := context.Background()
	const files, perFile = 50, 40
	tx, err := s.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	for f := range files {
		path := fmt.Sprintf("p/f%d.go", f)
		var ns []graphdb.Node
		var es []graphdb.Edge
		for i := range perFile {
			id := graphdb.NodeID(fmt.Sprintf("go:p.F%d_%d", f, i))
			ns = append(ns, graphdb.Node{ID: id, Kind: graphdb.KindFunction, Name: fmt.Sprintf("F%d_%d", f, i), QName: string(id)[3:], File: path, StartLine: i + 1})
			es = append(es, graphdb.Edge{From: id, To: graphdb.NodeID(fmt.Sprintf("go:p.F%d_%d", (f+1)%files, i)), Kind: graphdb.EdgeCalls, File: path, Line: i + 1})
		}
		if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: path, Language: "go"}, ns, es); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.Run("Node", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Node(ctx, "go:p.F3_7"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Neighbors", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Neighbors(ctx, "go:p.F3_7", graphdb.EdgeCalls, graphdb.Inbound, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Traverse4", func(b *testing.B) {
		for b.Loop() {
			if _, err := s.Traverse(ctx, "go:p.F3_7", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 4, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
