package retrieve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// The benchmarks run on the Go standard library (GOROOT/src). The graph
// store and the retrieval index are written to RELAY_BENCH_DIR (default
// $TMPDIR/relay-bench-std) and reused by later runs; GOROOT itself is only
// read. First run: the graph index and Build take a few minutes on a small
// machine.
//
//	go test ./retrieve -run '^$' -bench . -benchtime 200x

var (
	stdOnce sync.Once
	stdS    *Searcher
	stdG    graphdb.Store
	stdErr  error
	stdRoot string
)

func stdSearcher(b *testing.B) *Searcher {
	b.Helper()
	stdOnce.Do(func() {
		ctx := context.Background()
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			b.Fatalf("go env GOROOT: %v", err)
		}
		stdRoot = filepath.Join(strings.TrimSpace(string(out)), "src")
		dir := os.Getenv("RELAY_BENCH_DIR")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "relay-bench-std")
		}
		st, err := embedded.Open(filepath.Join(dir, "graph"), embedded.Options{})
		if err != nil {
			// A store from another relay version: start over.
			os.RemoveAll(filepath.Join(dir, "graph"))
			st, err = embedded.Open(filepath.Join(dir, "graph"), embedded.Options{})
		}
		if err != nil {
			stdErr = err
			return
		}
		stdG = st
		t0 := time.Now()
		if _, err := index.Run(ctx, st, index.Options{Root: stdRoot}); err != nil {
			stdErr = fmt.Errorf("index std: %w", err)
			return
		}
		t1 := time.Now()
		bs, err := Build(ctx, stdRoot, st, BuildOptions{Dir: dir})
		if err != nil {
			stdErr = fmt.Errorf("build std: %w", err)
			return
		}
		t2 := time.Now()
		stdS, stdErr = Open(stdRoot, st, OpenOptions{Dir: dir})
		fmt.Fprintf(os.Stderr, "std index: graph %s, retrieval build %s (%d files, %d chunks, %d terms, %d reused), open %s\n",
			t1.Sub(t0).Round(time.Millisecond), t2.Sub(t1).Round(time.Millisecond), bs.Files, bs.Chunks, bs.Terms, bs.Reused, time.Since(t2).Round(time.Millisecond))
	})
	if stdErr != nil {
		b.Fatal(stdErr)
	}
	return stdS
}

// benchQueries are questions a person would ask about the standard library.
var benchQueries = []string{
	"how does the http server handle keep-alive connections and idle timeouts",
	"parse a duration string like 1h30m",
	"gzip reader checksum mismatch error",
	"where are TLS certificates verified against the hostname",
	"json decoder unknown fields",
	"round a float to the nearest even number",
	"walk a directory tree and skip a subdirectory",
	"context cancellation propagates to child contexts",
	"base64 url encoding without padding",
	"sort a slice with a custom less function stable",
	"DNS lookup timeout resolver",
	"utf8 decode invalid rune replacement character",
}

// reportLatency runs fn b.N times over the queries and reports p50/p95.
func reportLatency(b *testing.B, fn func(q string)) {
	durs := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		q := benchQueries[i%len(benchQueries)]
		t0 := time.Now()
		fn(q)
		durs = append(durs, time.Since(t0))
	}
	b.StopTimer()
	sort.Slice(durs, func(i, j int) bool { return durs[i] < durs[j] })
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(durs[len(durs)*95/100].Microseconds())/1000, "p95-ms")
}

func BenchmarkSearchLexical(b *testing.B) {
	s := stdSearcher(b)
	ctx := context.Background()
	reportLatency(b, func(q string) {
		if _, err := s.Search(ctx, q, SearchOptions{}); err != nil {
			b.Fatal(err)
		}
	})
}

func BenchmarkSearchLexicalNoGraph(b *testing.B) {
	s := stdSearcher(b)
	ctx := context.Background()
	reportLatency(b, func(q string) {
		if _, err := s.Search(ctx, q, SearchOptions{NoGraph: true}); err != nil {
			b.Fatal(err)
		}
	})
}

// instantEmbedder returns a fixed query vector at once, so the hybrid
// benchmark measures everything but the embedding call.
type instantEmbedder struct{ v []float32 }

func (e instantEmbedder) Embed(_ context.Context, texts []string, _ InputType) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = e.v
	}
	return out, nil
}

func (instantEmbedder) Model() string { return "instant" }

// BenchmarkSearchHybrid gives every std chunk a random 384-dimension unit
// vector (the size of small embedding models) and measures BM25 + cosine
// top-k + RRF + graph re-ranking, excluding the embedding call.
func BenchmarkSearchHybrid(b *testing.B) {
	base := stdSearcher(b)
	const dim = 384
	rng := rand.New(rand.NewSource(1))
	randVec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return normalize(v)
	}
	s := newSearcher(stdRoot, stdG, base.ix, OpenOptions{})
	s.vecs = make([][]float32, len(s.ix.Chunks))
	for i := range s.vecs {
		s.vecs[i] = randVec()
	}
	s.vecs = packVectors(s.vecs)
	s.emb = instantEmbedder{randVec()}
	ctx := context.Background()
	reportLatency(b, func(q string) {
		res, err := s.Search(ctx, q, SearchOptions{})
		if err != nil || res.Mode != "hybrid" {
			b.Fatal(err, res.Mode)
		}
	})
}

// BenchmarkBuildOneChanged measures an incremental Build of the std index
// after one file changed (simulated by altering that file's recorded key
// in the commit, since GOROOT may be read-only, with the manifest made to
// match the new commit as the build before would have left it): the
// file's segment is rewritten, every other segment only verified.
func BenchmarkBuildOneChanged(b *testing.B) {
	stdSearcher(b)
	dir := os.Getenv("RELAY_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "relay-bench-std")
	}
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		p := filepath.Join(dir, IndexFile)
		c, err := diskindex.ReadCommit(p)
		if err != nil {
			b.Fatal(err)
		}
		for _, s := range c.Segments {
			for j := range s.Files {
				if s.Files[j].Path == "net/http/server.go" {
					s.Files[j].Key = "changed"
				}
			}
		}
		if err := diskindex.WriteCommit(dir, c); err != nil {
			b.Fatal(err)
		}
		m := loadManifest(dir)
		fi, err := os.Stat(p)
		if m == nil || err != nil {
			b.Fatal("no manifest or commit", err)
		}
		m.IndexSize, m.IndexModNs = fi.Size(), fi.ModTime().UnixNano()
		m.Files["net/http/server.go"] = fileStamp{} // as an edit leaves its stamp: not matching
		data, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, manifestFile), data, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := Build(ctx, stdRoot, stdG, BuildOptions{Dir: dir})
		if err != nil {
			b.Fatal(err)
		}
		if st.Changed != 1 {
			b.Fatalf("changed = %d, want 1", st.Changed)
		}
	}
}

// BenchmarkOpen measures opening the std index: reading and checking its
// segments and concatenating them.
func BenchmarkOpen(b *testing.B) {
	stdSearcher(b)
	dir := os.Getenv("RELAY_BENCH_DIR")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "relay-bench-std")
	}
	for i := 0; i < b.N; i++ {
		if _, err := Open(stdRoot, stdG, OpenOptions{Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}
