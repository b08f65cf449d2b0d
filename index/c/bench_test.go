//go:build cgo

package c_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

// BenchmarkIndex indexes the repository at RELAY_BENCH_C (a copy of it:
// the largest .c file is edited) into an embedded store, graph only (a
// Java repository there gives the cold figure beside it):
// cold, a full index into a new store; one_file_changed, a statement
// added to (then removed from) the largest .c file's last function and
// the repository indexed again incrementally. BENCHMARKS.md, section "C
// frontend (issue 22)".
func BenchmarkIndex(b *testing.B) {
	src := os.Getenv("RELAY_BENCH_C")
	if src == "" {
		b.Skip("RELAY_BENCH_C names no C repository")
	}
	root := filepath.Join(b.TempDir(), "repo")
	if err := os.CopyFS(root, os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.Run("cold", func(b *testing.B) {
		defer cpu(b)()
		for b.Loop() {
			st, err := embedded.Open(filepath.Join(b.TempDir(), "graph"), embedded.Options{})
			if err != nil {
				b.Fatal(err)
			}
			sum, err := index.Run(ctx, st, index.Options{Root: root})
			if err != nil {
				b.Fatal(err)
			}
			st.Close()
			files := sum.Files
			b.ReportMetric(float64(files), "files")
			b.ReportMetric(float64(files)/sum.Duration.Seconds(), "files/s")
		}
	})
	b.Run("one_file_changed", func(b *testing.B) {
		st, err := embedded.Open(filepath.Join(b.TempDir(), "graph"), embedded.Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		if _, err := index.Run(ctx, st, index.Options{Root: root}); err != nil {
			b.Fatal(err)
		}
		file := largestC(b, root)
		orig, err := os.ReadFile(file)
		if err != nil {
			b.Fatal(err)
		}
		end := strings.LastIndex(string(orig), "}")
		edited := string(orig[:end]) + "  (void)0;\n" + string(orig[end:])
		i := 0
		defer cpu(b)()
		for b.Loop() {
			data := edited
			if i%2 == 1 {
				data = string(orig)
			}
			i++
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				b.Fatal(err)
			}
			sum, err := index.Run(ctx, st, index.Options{Root: root})
			if err != nil {
				b.Fatal(err)
			}
			if sum.Changed != 1 {
				b.Fatalf("re-indexed %d files, want 1", sum.Changed)
			}
		}
	})
}

// cpu reports the process's CPU time (user and system) per operation
// when the returned func runs: the figure a shared machine's load does
// not move.
func cpu(b *testing.B) func() {
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	return func() {
		var after syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
		d := time.Duration(after.Utime.Nano() - before.Utime.Nano() + after.Stime.Nano() - before.Stime.Nano())
		b.ReportMetric(d.Seconds()/float64(b.N), "cpu-s/op")
	}
}

// largestC returns the largest .c file under root.
func largestC(b *testing.B, root string) string {
	var best string
	var size int64
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".c") {
			return err
		}
		if fi, err := d.Info(); err == nil && fi.Size() > size {
			best, size = p, fi.Size()
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if best == "" {
		b.Skipf("no .c file under %s", root)
	}
	return best
}
