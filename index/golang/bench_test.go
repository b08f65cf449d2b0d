package golang_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/internal/indextest"
)

// BenchmarkRunSample indexes the realistic multi-package sample (cold, into
// an in-memory store): go list, type checking of the sample and its
// standard-library dependencies, extraction.
func BenchmarkRunSample(b *testing.B) {
	root := indextest.ExtractTxtar(b, "../internal/callcheck/testdata/sample.txtar")
	for b.Loop() {
		if _, err := index.Run(b.Context(), indextest.OpenStore(), index.Options{Root: root}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunNoChange measures a run over an unchanged tree: scan and hash
// only.
func BenchmarkRunNoChange(b *testing.B) {
	root := indextest.ExtractTxtar(b, "../internal/callcheck/testdata/sample.txtar")
	st := indextest.OpenStore()
	if _, err := index.Run(b.Context(), st, index.Options{Root: root}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		sum, err := index.Run(b.Context(), st, index.Options{Root: root})
		if err != nil || !sum.Unchanged {
			b.Fatalf("run: %v unchanged=%v", err, sum.Unchanged)
		}
	}
}

// BenchmarkRunGOROOT indexes $(go env GOROOT)/src (std and cmd, with tests)
// into an in-memory store, so it times the indexer without a backend. It is
// heavy and runs only with RELAY_BENCH_GOROOT=1:
//
//	RELAY_BENCH_GOROOT=1 go test ./index/golang -run '^$' -bench RunGOROOT -benchtime 1x
//
// index/internal/benchstd measures the same with the embedded store,
// against go/packages, with peak RSS and incremental runs.
func BenchmarkRunGOROOT(b *testing.B) {
	if os.Getenv("RELAY_BENCH_GOROOT") != "1" {
		b.Skip("set RELAY_BENCH_GOROOT=1 to index GOROOT/src")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for b.Loop() {
		sum, err := index.Run(b.Context(), indextest.OpenStore(), index.Options{Root: root})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(sum.Languages["Go"].Units), "packages")
		b.ReportMetric(float64(sum.Stats.TotalNodes()), "nodes")
		b.ReportMetric(float64(sum.Stats.TotalEdges()), "edges")
	}
}
