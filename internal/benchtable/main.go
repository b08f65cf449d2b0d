// Command benchtable regenerates the table of current figures at the top of
// BENCHMARKS.md: it runs a chosen set of the project's existing bench
// programs and benchmarks, takes medians, reads the localization figures from
// the eval goldens, and rewrites only the text between the two markers
// (<!-- benchtable:begin --> and <!-- benchtable:end -->), with the date, the
// machine, the Go version and the commit in the table's caption. Everything
// below the markers (the dated log) is left as it is.
//
//	nice go run ./internal/benchtable            # from the repository root; a few minutes on 2 cores
//	go run ./internal/benchtable -runs 5 -doc BENCHMARKS.md
//
// What it runs, each -runs times (3 by default), on the Go standard library
// (GOROOT/src, read in place) and the Python standard library (python3's
// stdlib, read in place), every step in its own process:
//
//   - index/internal/benchstd -step index: a cold graph index of GOROOT/src
//     into a fresh embedded store, then a no-change re-index;
//   - index/internal/benchpy -step: a cold graph index of the Python stdlib;
//   - go test ./graphdb/embedded -bench BenchmarkStore: traversals on the
//     std store the cold index wrote;
//   - go test ./retrieve -bench BenchmarkBuildCold: a full search index build
//     over that store;
//   - go test ./retrieve -bench BenchmarkSearch(Lexical|Hybrid): query latency.
//
// Wall time and peak RSS of the index steps are taken by this program from
// the child's rusage; the benchmarks' figures come from their own output.
// Nothing in the test suite runs this program: the benchmarks need minutes
// and a quiet machine, and CI has neither.
//
// Parsing: go test's benchmark lines are read with
// golang.org/x/tools/benchmark/parse (already a dependency); that parser
// keeps only the four standard units, so the custom metrics the search
// benchmarks report (p50-ms, p95-ms) are read from the same line's
// value/unit pairs here rather than adding golang.org/x/perf to go.mod.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	doc := flag.String("doc", "BENCHMARKS.md", "the file whose table to rewrite (between the benchtable markers)")
	runs := flag.Int("runs", 3, "runs of each measurement; the table shows the median")
	work := flag.String("work", "", "work in this directory and keep it (default: a temporary directory, removed)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(context.Background(), log, *doc, *runs, *work); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, log *slog.Logger, doc string, runs int, work string) error {
	if runs < 1 {
		return fmt.Errorf("-runs %d: give at least 1", runs)
	}
	if _, err := os.Stat("go.mod"); err != nil {
		return errors.New("run benchtable from the repository root (go.mod not found here)")
	}
	old, err := os.ReadFile(doc)
	if err != nil {
		return fmt.Errorf("read %s: %w", doc, err)
	}
	if _, _, err := splitMarkers(string(old)); err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	if work == "" {
		d, err := os.MkdirTemp("", "benchtable-")
		if err != nil {
			return fmt.Errorf("make work directory: %w", err)
		}
		defer os.RemoveAll(d)
		work = d
	} else if err := os.MkdirAll(work, 0o755); err != nil {
		return fmt.Errorf("make work directory: %w", err)
	}
	// The caption names the tree the programs are built from: take it first.
	m, err := describeMachine(ctx, doc)
	if err != nil {
		return err
	}
	evals, err := evalRows("eval/testdata")
	if err != nil {
		return err
	}
	b := &bench{ctx: ctx, log: log, runs: runs, work: work}
	rows, err := b.measure()
	if err != nil {
		return err
	}
	m.LoadEnd = loadAverage()
	out, err := replaceTable(string(old), render(m, runs, rows, evals))
	if err != nil {
		return fmt.Errorf("%s: %w", doc, err)
	}
	if err := os.WriteFile(doc, []byte(out), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", doc, err)
	}
	log.Info("table written", "doc", doc, "rows", len(rows)+len(evals))
	return nil
}

// machine is the caption: when, where and what was measured.
type machine struct {
	Date, CPU, Memory, GoVersion, Commit string
	Cores                                int
	// LoadStart and LoadEnd are the 1-minute load averages before and
	// after the measurements: how shared the machine was.
	LoadStart, LoadEnd string
}

func describeMachine(ctx context.Context, doc string) (machine, error) {
	m := machine{Date: time.Now().UTC().Format("2006-01-02"), CPU: "unknown CPU", Memory: "unknown memory", LoadStart: loadAverage()}
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		m.CPU, m.Cores = cpuInfo(string(data))
	}
	if data, err := os.ReadFile("/proc/meminfo"); err == nil {
		m.Memory = memInfo(string(data))
	}
	v, err := output(ctx, "go", "env", "GOVERSION")
	if err != nil {
		return m, err
	}
	m.GoVersion = v
	c, err := output(ctx, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		return m, err
	}
	// The doc itself is about to change; any other change makes the
	// figures those of a tree no commit holds, and the caption says so.
	dirty, err := output(ctx, "git", "status", "--porcelain", "--untracked-files=no", "--", ".", ":!"+filepath.ToSlash(doc))
	if err != nil {
		return m, err
	}
	m.Commit = c
	if dirty != "" {
		m.Commit += " with uncommitted changes"
	}
	return m, nil
}

// loadAverage is the 1-minute load average from /proc/loadavg, "?" where
// there is none.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(data)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "?"
}

// output runs a command and returns its trimmed standard output.
func output(ctx context.Context, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
