package embedded

import (
	"context"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
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
		start, cpu := time.Now(), cpuTime()
		s := writeGraph(b, dir, g)
		b.ReportMetric(time.Since(start).Seconds(), "s/write")
		b.ReportMetric((cpuTime() - cpu).Seconds(), "cpu-s/write")
		s.Close()
	}
}

// The read benchmarks share one std-sized store, written once per test
// binary run.
var bench struct {
	once sync.Once
	dir  string
	g    *synthGraph
	err  error
}

func benchStore(b *testing.B) (string, *synthGraph) {
	b.Helper()
	bench.once.Do(func() {
		bench.g = genGraph(10000, 10, 4)
		bench.dir, bench.err = os.MkdirTemp("", "relay-bench-")
		if bench.err != nil {
			return
		}
		s := writeGraph(b, bench.dir, bench.g)
		bench.err = s.Warm(context.Background())
		s.Close()
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.dir, bench.g
}

func cleanupBenchStore() {
	if bench.dir != "" {
		os.RemoveAll(bench.dir)
	}
}

// sampleTargets picks n callables uniformly among those with at least one
// caller (a query for a function nobody calls costs next to nothing and
// would flatter the percentiles). With a power-law call graph most have a
// handful of callers and a few have thousands, as in std.
func sampleTargets(g *synthGraph, n int) []graphdb.NodeID {
	called := map[graphdb.NodeID]bool{}
	for _, o := range g.owners {
		for _, e := range o.edges {
			if e.Kind == graphdb.EdgeCalls {
				called[e.To] = true
			}
		}
	}
	var pool []graphdb.NodeID
	for _, id := range g.funcs {
		if called[id] {
			pool = append(pool, id)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	out := make([]graphdb.NodeID, n)
	for i := range out {
		out[i] = pool[r.IntN(len(pool))]
	}
	return out
}

// reportLatency adds p50/p90/p99 (ms) of the recorded durations.
func reportLatency(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	q := func(p float64) float64 { return float64(ds[int(p*float64(len(ds)-1))]) / 1e6 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.90), "p90-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

func benchCallers(b *testing.B, dir string, depth int, targets []graphdb.NodeID) {
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.Warm(ctx); err != nil { // in-process: adjacency already loaded
		b.Fatal(err)
	}
	var ds []time.Duration
	hops := 0
	i := 0
	cpu := cpuTime()
	for b.Loop() {
		start := time.Now()
		rs, err := graphdb.Query(ctx, s, graphdb.OpCallers, targets[i%len(targets)], depth, 0)
		if err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(start))
		hops += len(rs)
		i++
	}
	b.ReportMetric(float64(hops)/float64(i), "results/op")
	// Process CPU per query: steadier than wall time on a busy machine.
	b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(i), "cpu-µs/op")
	reportLatency(b, ds)
}

// BenchmarkCallersDepth1 is graphdb.Query(callers, depth 1) from sampled
// callables of a std-sized graph, in process.
func BenchmarkCallersDepth1(b *testing.B) {
	dir, g := benchStore(b)
	benchCallers(b, dir, 1, sampleTargets(g, 1000))
}

// BenchmarkCallersDepth3 is the same at depth 3.
func BenchmarkCallersDepth3(b *testing.B) {
	dir, g := benchStore(b)
	benchCallers(b, dir, 3, sampleTargets(g, 1000))
}

// BenchmarkCallersHub is callers of the biggest hub (tens of thousands of
// callers), depth 1 and 3.
func BenchmarkCallersHub(b *testing.B) {
	dir, g := benchStore(b)
	b.Run("depth1", func(b *testing.B) { benchCallers(b, dir, 1, g.funcs[:1]) })
	b.Run("depth3", func(b *testing.B) { benchCallers(b, dir, 3, g.funcs[:1]) })
}

// BenchmarkOpenQuery is what one `relay graph callers X` does besides
// starting the process: open the store read-only, resolve a target by
// dotted suffix, run callers at depth 1 and 3, close.
func BenchmarkOpenQuery(b *testing.B) {
	dir, g := benchStore(b)
	var suffixes []string
	for _, id := range sampleTargets(g, 200) {
		suffixes = append(suffixes, string(id)[len("go:ex/"):]) // "p012.T123.M4"
	}
	benchOpenQuery(b, dir, suffixes)
}

func benchOpenQuery(b *testing.B, dir string, targets []string) {
	ctx := context.Background()
	for _, depth := range []int{1, 3} {
		b.Run(map[int]string{1: "depth1", 3: "depth3"}[depth], func(b *testing.B) {
			var ds []time.Duration
			i := 0
			for b.Loop() {
				start := time.Now()
				s, err := Open(dir, Options{ReadOnly: true})
				if err != nil {
					b.Fatal(err)
				}
				n, err := graphdb.Resolve(ctx, s, targets[i%len(targets)])
				if err != nil {
					b.Fatal(err)
				}
				if _, err := graphdb.Query(ctx, s, graphdb.OpCallers, n.ID, depth, 0); err != nil {
					b.Fatal(err)
				}
				s.Close()
				ds = append(ds, time.Since(start))
				i++
			}
			reportLatency(b, ds)
		})
	}
}

// BenchmarkStore runs the read benchmarks on an existing store named by
// RELAY_BENCH_STORE, for example the Go standard library indexed with
// `relay index --repo $(go env GOROOT)/src` (RELAY_BENCH_STORE=…/src/.relay).
// Targets are sampled uniformly among callables with at least one caller.
func BenchmarkStore(b *testing.B) {
	dir := os.Getenv("RELAY_BENCH_STORE")
	if dir == "" {
		b.Skip("set RELAY_BENCH_STORE to a store directory")
	}
	ids, qnames := calledIn(b, dir, 1000)
	b.Run("CallersDepth1", func(b *testing.B) { benchCallers(b, dir, 1, ids) })
	b.Run("CallersDepth3", func(b *testing.B) { benchCallers(b, dir, 3, ids) })
	b.Run("OpenQuery", func(b *testing.B) { benchOpenQuery(b, dir, qnames[:min(len(qnames), 200)]) })
}

// calledIn samples n callables of the store in dir that have a caller.
func calledIn(b *testing.B, dir string, n int) ([]graphdb.NodeID, []string) {
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	a, err := s.current(ctx, dirIn)
	if err != nil {
		b.Fatal(err)
	}
	code, _ := edgeKindCode(graphdb.EdgeCalls)
	var pool []uint32
	for sid := uint32(0); sid < a.nsid; sid++ {
		if a.has(sid) && len(a.segment(dirIn, sid, uint32(code))) > 0 {
			pool = append(pool, sid)
		}
	}
	if len(pool) == 0 {
		b.Fatalf("no called functions in %s", dir)
	}
	r := rand.New(rand.NewPCG(3, 4))
	sids := make([]uint32, n)
	for i := range sids {
		sids[i] = pool[r.IntN(len(pool))]
	}
	q, _, err := s.snapshot(ctx, dirIn)
	if err != nil {
		b.Fatal(err)
	}
	defer q.Rollback()
	nodes, err := s.nodesBySid(ctx, q, sids)
	if err != nil {
		b.Fatal(err)
	}
	var ids []graphdb.NodeID
	var qnames []string
	for _, sid := range sids {
		n := nodes[sid]
		ids = append(ids, n.ID)
		if same, err := s.FindSymbols(ctx, graphdb.SymbolQuery{QName: n.QName, Limit: 2}); err == nil && len(same) == 1 {
			qnames = append(qnames, n.QName) // resolves without ambiguity
		}
	}
	return ids, qnames
}

// BenchmarkFindSymbols covers the indexed SQL lookups.
func BenchmarkFindSymbols(b *testing.B) {
	dir, g := benchStore(b)
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	targets := sampleTargets(g, 500)
	for name, q := range map[string]func(id graphdb.NodeID) graphdb.SymbolQuery{
		"id": func(id graphdb.NodeID) graphdb.SymbolQuery { return graphdb.SymbolQuery{ID: id} },
		"suffix": func(id graphdb.NodeID) graphdb.SymbolQuery {
			return graphdb.SymbolQuery{Suffix: string(id)[len("go:ex/p000."):]}
		},
		"name": func(graphdb.NodeID) graphdb.SymbolQuery { return graphdb.SymbolQuery{Name: "M3", Limit: 200} },
	} {
		b.Run(name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				ns, err := s.FindSymbols(ctx, q(targets[i%len(targets)]))
				if err != nil || len(ns) == 0 {
					b.Fatalf("FindSymbols = %d, %v", len(ns), err)
				}
				i++
			}
		})
	}
}

// BenchmarkIncremental is one incremental index run on the std-sized store:
// replace one file (same content) in a transaction and commit, then Warm,
// which rebuilds and saves the adjacency of the new generation. It runs
// last because it moves the shared store to a new generation.
func BenchmarkIncremental(b *testing.B) {
	dir, g := benchStore(b)
	ctx := context.Background()
	s, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	var commits, warms []time.Duration
	i := 0
	for b.Loop() {
		o := g.owners[(i*7919)%len(g.owners)]
		start := time.Now()
		tx, err := s.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
			b.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
		commits = append(commits, time.Since(start))
		start = time.Now()
		if err := s.Warm(ctx); err != nil {
			b.Fatal(err)
		}
		warms = append(warms, time.Since(start))
		i++
	}
	slices.Sort(commits)
	slices.Sort(warms)
	b.ReportMetric(float64(commits[len(commits)/2])/1e6, "commit-p50-ms")
	b.ReportMetric(float64(warms[len(warms)/2])/1e6, "warm-p50-ms")
}
