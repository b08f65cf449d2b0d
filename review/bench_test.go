package review

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

// The benchmarks run on the Go standard library (GOROOT/src), with the
// graph store and the retrieval index in RELAY_BENCH_DIR (default
// $TMPDIR/relay-bench-std), the same ones the retrieve benchmarks use and
// reuse between runs.
//
//	go test ./review -run '^$' -bench Review500 -benchtime 20x

var (
	stdOnce sync.Once
	stdS    *retrieve.Searcher
	stdG    graphdb.Store
	stdErr  error
	stdRoot string
)

// stdIndex indexes GOROOT/src once (graph and retrieval index) and returns
// its searcher and graph.
func stdIndex(b *testing.B) (*retrieve.Searcher, graphdb.Reader) {
	b.Helper()
	stdOnce.Do(func() {
		ctx := context.Background()
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			stdErr = fmt.Errorf("go env GOROOT: %w", err)
			return
		}
		stdRoot = filepath.Join(strings.TrimSpace(string(out)), "src")
		dir := os.Getenv("RELAY_BENCH_DIR")
		if dir == "" {
			dir = filepath.Join(os.TempDir(), "relay-bench-std")
		}
		if stdG, stdErr = embedded.Open(filepath.Join(dir, "graph"), embedded.Options{}); stdErr != nil {
			return
		}
		if _, err := index.Run(ctx, stdG, index.Options{Root: stdRoot}); err != nil {
			stdErr = fmt.Errorf("index std: %w", err)
			return
		}
		if _, err := retrieve.Build(ctx, stdRoot, stdG, retrieve.BuildOptions{Dir: dir}); err != nil {
			stdErr = fmt.Errorf("build std: %w", err)
			return
		}
		stdS, stdErr = retrieve.Open(stdRoot, stdG, retrieve.OpenOptions{Dir: dir})
	})
	if stdErr != nil {
		b.Fatal(stdErr)
	}
	return stdS, stdG
}

// hubFiles are central std files: their functions have thousands of
// transitive callers (a worst case for review context).
var hubFiles = []string{"net/http/server.go", "net/http/transport.go", "strings/strings.go", "bytes/bytes.go",
	"encoding/json/decode.go", "encoding/json/encode.go", "os/file.go", "net/http/request.go", "fmt/print.go", "bufio/bufio.go"}

// leafFiles are ordinary std files, closer to a typical pull request.
var leafFiles = []string{"net/http/cookiejar/jar.go", "archive/tar/reader.go", "image/png/reader.go", "text/tabwriter/tabwriter.go",
	"encoding/csv/reader.go", "compress/flate/inflate.go", "mime/multipart/multipart.go", "go/doc/comment/parse.go",
	"html/template/escape.go", "net/smtp/smtp.go"}

// benchDiff builds a unified diff of about n changed lines spread evenly
// over files: each hunk replaces one line.
func benchDiff(b *testing.B, root string, n int, files []string) []udiff.FileDiff {
	b.Helper()
	var d strings.Builder
	per := n / len(files) / 2 // each changed line counts twice (- and +)
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			b.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		fmt.Fprintf(&d, "diff --git a/%s b/%s\n--- a/%s\n+++ b/%s\n", f, f, f, f)
		step := len(lines) / (per + 1)
		for k := 1; k <= per; k++ {
			at := k * step // 1-based line number of the changed line
			fmt.Fprintf(&d, "@@ -%d,1 +%d,1 @@\n-%s\n+%s // changed\n", at, at, lines[at-1], lines[at-1])
		}
	}
	diffs, err := udiff.Parse(strings.NewReader(d.String()))
	if err != nil {
		b.Fatal(err)
	}
	return diffs
}

func BenchmarkReview500(b *testing.B) {
	b.Run("hub", func(b *testing.B) { benchReview(b, hubFiles) })
	b.Run("leaf", func(b *testing.B) { benchReview(b, leafFiles) })
}

func benchReview(b *testing.B, files []string) {
	s, g := stdIndex(b)
	diffs := benchDiff(b, stdRoot, 500, files)
	changed := 0
	for _, f := range diffs {
		changed += f.ChangedLines()
	}
	ctx := context.Background()
	for _, depth := range []Depth{DepthFast, DepthStandard, DepthDeep} {
		b.Run(string(depth), func(b *testing.B) {
			var rc Context
			for i := 0; i < b.N; i++ {
				var err error
				rc, err = Build(ctx, g, diffs, Options{Depth: depth, Searcher: s})
				if err != nil {
					b.Fatal(err)
				}
				_ = rc.Markdown(0)
			}
			b.ReportMetric(float64(changed), "diff-lines")
			b.ReportMetric(float64(len(rc.Changed)), "changed-symbols")
			b.ReportMetric(float64(len(rc.Callers)), "callers")
		})
	}
}
