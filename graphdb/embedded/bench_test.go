package embedded

import (
	"context"
	"testing"
	"time"
)

// writeGraph writes g into a fresh store in one transaction.
func writeGraph(tb testing.TB, dir string, g *synthGraph) *Store {
	tb.Helper()
	s, err := Open(dir, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	tx, err := s.Begin(ctx)
	if err != nil {
		tb.Fatal(err)
	}
	for _, o := range g.owners {
		if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
			tb.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkWrite writes a std-sized graph (10k files, ~110k nodes, ~500k
// edges) into an empty store in one transaction, as a full index run does.
func BenchmarkWrite(b *testing.B) {
	g := genGraph(10000, 10, 4)
	b.ReportMetric(float64(g.nodes), "nodes")
	b.ReportMetric(float64(g.edges), "edges")
	for b.Loop() {
		b.StopTimer()
		dir := b.TempDir()
		b.StartTimer()
		start := time.Now()
		s := writeGraph(b, dir, g)
		b.ReportMetric(time.Since(start).Seconds(), "s/write")
		s.Close()
	}
}

// cleanupBenchStore removes the shared benchmark store (see benchStore).
func cleanupBenchStore() {}
