package tools

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

// Benchmarks on the Go standard library ($(go env GOROOT)/src) compare each
// tool with the raw program it wraps, alternating the two in every
// iteration so a noisy machine slows both alike. Each reports the median of
// both and their ratio (the target is ≤ 1.2):
//
//	go test ./tools -run '^$' -bench . -benchtime 20x

func goroot(b *testing.B) string {
	b.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	return src
}

// sideBySide times ours and raw alternately b.N times and reports medians.
func sideBySide(b *testing.B, ours, raw func()) {
	b.Helper()
	ours()
	raw() // warm the page cache for both
	var to, tr []time.Duration
	b.ResetTimer()
	for range b.N {
		s := time.Now()
		ours()
		to = append(to, time.Since(s))
		s = time.Now()
		raw()
		tr = append(tr, time.Since(s))
	}
	b.StopTimer()
	mo, mr := median(to), median(tr)
	b.ReportMetric(float64(mo.Microseconds())/1000, "relay-ms")
	b.ReportMetric(float64(mr.Microseconds())/1000, "raw-ms")
	b.ReportMetric(float64(mo)/float64(mr), "ratio")
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// rawRun runs a program in dir and discards its output, as a baseline.
func rawRun(b *testing.B, dir, bin string, args ...string) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// Read record by record, as any consumer of rg or fd must.
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 256<<10), 64<<20)
	for sc.Scan() {
	}
	io.Copy(io.Discard, out)
	if err := cmd.Wait(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			b.Fatal(err)
		}
	}
}

func BenchmarkGrepStdlib(b *testing.B) {
	needTools(b)
	src := goroot(b)
	g, err := NewGrep(Options{Root: src})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, pattern string }{
		{"rare", `func \(srv \*Server\) Serve\(`},
		{"common", `context\.Context`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			args, _ := json.Marshal(GrepParams{Pattern: tc.pattern})
			sideBySide(b, func() {
				if _, err := g.Call(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}, func() {
				rawRun(b, src, g.rg, g.args(tc.pattern, "", grepMaxCount(DefaultGrepLimit, DefaultGrepContext), DefaultGrepContext)...)
			})
		})
	}
}

func BenchmarkGlobStdlib(b *testing.B) {
	needTools(b)
	src := goroot(b)
	g, err := NewGlob(Options{Root: src})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct{ name, pattern string }{
		{"names", `*_test.go`},
		{"path", `net/http/**`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			args, _ := json.Marshal(GlobParams{Pattern: tc.pattern})
			fdArgs := []string{"--glob", "--type", "f", "--hidden", "--exclude", ".git", "--exclude", ".relay", "--color", "never", "--print0"}
			if strings.Contains(tc.pattern, "/") {
				fdArgs = append(fdArgs, "--full-path", "--", globEscape(src)+"/"+tc.pattern)
			} else {
				fdArgs = append(fdArgs, "--", tc.pattern)
			}
			sideBySide(b, func() {
				if _, err := g.Call(context.Background(), args); err != nil {
					b.Fatal(err)
				}
			}, func() {
				rawRun(b, src, g.fd, fdArgs...)
			})
		})
	}
}

func BenchmarkRead10kLines(b *testing.B) {
	root := b.TempDir()
	var sb strings.Builder
	for i := range 10_000 {
		fmt.Fprintf(&sb, "\tx := compute(%d, \"some typical line of source code\") // comment %d\n", i, i)
	}
	writeFile(b, root, "big.go", sb.String())
	r := newRead(b, Options{Root: root})
	for _, tc := range []struct{ name, args string }{
		{"first-page", `{"file": "big.go"}`},
		{"last-page", `{"file": "big.go", "start_line": 9001}`},
		{"range-100", `{"file": "big.go", "start_line": 5000, "num_lines": 100}`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				res, err := r.Call(context.Background(), json.RawMessage(tc.args))
				if err != nil || res.IsError {
					b.Fatal(err, res.Content)
				}
			}
		})
	}
}

// BenchmarkGraph measures the graph tool against the store query it makes
// (Resolve + Query) on an embedded store indexed from a generated module:
// the difference is the tool's own cost (arguments, formatting).
func BenchmarkGraph(b *testing.B) {
	root := b.TempDir()
	writeFile(b, root, "go.mod", "module example.com/chain\n\ngo 1.22\n")
	for p := range 10 {
		var sb strings.Builder
		fmt.Fprintf(&sb, "package p%d\n\n", p)
		if p > 0 {
			fmt.Fprintf(&sb, "import \"example.com/chain/p%d\"\n\n", p-1)
		}
		for f := range 50 {
			fmt.Fprintf(&sb, "func F%d() int {\n", f)
			if p > 0 {
				fmt.Fprintf(&sb, "\treturn p%d.F%d() + p%d.F%d()\n}\n\n", p-1, f, p-1, (f+1)%50)
			} else {
				sb.WriteString("\treturn 1\n}\n\n")
			}
		}
		writeFile(b, root, fmt.Sprintf("p%d/p.go", p), sb.String())
	}
	dir := filepath.Join(root, ".relay")
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := index.Run(context.Background(), st, index.Options{Root: root}); err != nil {
		b.Fatal(err)
	}
	st.Close()
	ro, err := embedded.Open(dir, embedded.Options{ReadOnly: true})
	if err != nil {
		b.Fatal(err)
	}
	defer ro.Close()
	g, err := NewGraph(Options{Root: root, Graph: ro})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name, target string
		depth        int
	}{
		{"callers-depth1", "example.com/chain/p0.F7", 1},
		{"callers-depth3", "example.com/chain/p0.F7", 3},
	} {
		args, _ := json.Marshal(GraphParams{Operation: "callers", Target: tc.target, Depth: tc.depth})
		ctx := context.Background()
		b.Run(tc.name+"/query", func(b *testing.B) {
			for b.Loop() {
				n, err := graphdb.Resolve(ctx, ro, tc.target)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := graphdb.Query(ctx, ro, graphdb.OpCallers, n.ID, tc.depth, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tc.name+"/tool", func(b *testing.B) {
			for b.Loop() {
				res, err := g.Call(ctx, args)
				if err != nil || res.IsError {
					b.Fatal(err, res.Content)
				}
			}
		})
	}
}
