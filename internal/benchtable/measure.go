package main

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/tools/benchmark/parse"
)

// bench runs the measurements; every child inherits this process's
// niceness, so `nice go run ./internal/benchtable` keeps them all nice.
type bench struct {
	ctx  context.Context
	log  *slog.Logger
	runs int
	work string
}

// row is one line of the table.
type row struct {
	Figure, Median, Spread, RSS, By string
}

// sample is one run of a child process.
type sample struct {
	wall time.Duration
	rss  int64 // bytes
	out  string
}

func (b *bench) measure() ([]row, error) {
	bin := filepath.Join(b.work, "bin")
	for _, p := range []string{"benchstd", "benchpy"} {
		if _, err := b.goCmd(nil, "build", "-o", filepath.Join(bin, p), "./index/internal/"+p); err != nil {
			return nil, err
		}
	}
	goroot, err := output(b.ctx, "go", "env", "GOROOT")
	if err != nil {
		return nil, err
	}
	graph := filepath.Join(b.work, "graph")
	std, err := b.stdIndex(filepath.Join(bin, "benchstd"), filepath.Join(goroot, "src"), graph)
	if err != nil {
		return nil, err
	}
	py, err := b.pyIndex(filepath.Join(bin, "benchpy"))
	if err != nil {
		return nil, err
	}
	rows := append(std, py)
	store, err := b.goBench([]string{"RELAY_BENCH_STORE=" + graph}, "./graphdb/embedded", "^BenchmarkStore$", "1s")
	if err != nil {
		return nil, err
	}
	for _, sub := range []struct{ name, figure string }{
		{"BenchmarkStore/CallersDepth1", "callers of a std function, depth 1, p50 (embedded store, adjacency loaded)"},
		{"BenchmarkStore/CallersDepth3", "callers of a std function, depth 3, p50 (embedded store, adjacency loaded)"},
		{"BenchmarkStore/OpenQuery/depth1", "open the std store, resolve a qname, callers depth 1, p50"},
	} {
		rows = append(rows, benchRow(store, sub.name, "p50-ms", sub.figure, "`RELAY_BENCH_STORE=… go test ./graphdb/embedded -bench BenchmarkStore`"))
	}
	build, err := b.goBench([]string{"RELAY_BUILD_STORE=" + graph}, "./retrieve", "^BenchmarkBuildCold$", "1x")
	if err != nil {
		return nil, err
	}
	rows = append(rows, benchRow(build, "BenchmarkBuildCold", "ns/op", "search index build of std, cold (`retrieve.Build`)", "`RELAY_BUILD_STORE=… go test ./retrieve -bench BuildCold`"))
	search, err := b.goBench([]string{"RELAY_BENCH_DIR=" + b.work}, "./retrieve", "^BenchmarkSearch(Lexical|Hybrid)$", "200x")
	if err != nil {
		return nil, err
	}
	rows = append(rows,
		benchRow(search, "BenchmarkSearchLexical", "p50-ms", "search query on std, p50: BM25 + graph re-rank", "`RELAY_BENCH_DIR=… go test ./retrieve -bench SearchLexical`"),
		benchRow(search, "BenchmarkSearchHybrid", "p50-ms", "search query on std, p50: hybrid, 384-d vectors (embedding call excluded)", "`RELAY_BENCH_DIR=… go test ./retrieve -bench SearchHybrid`"))
	return rows, nil
}

// stdIndex indexes GOROOT/src cold into a fresh store each run (the last
// one stays for the benchmarks after it), then re-indexes it unchanged.
func (b *bench) stdIndex(exe, src, graph string) ([]row, error) {
	var cold, same []sample
	for i := range b.runs {
		if err := os.RemoveAll(graph); err != nil {
			return nil, fmt.Errorf("remove the previous store: %w", err)
		}
		s, err := b.child(exe, "-step", "index", src, graph)
		if err != nil {
			return nil, err
		}
		b.log.Info("std cold index", "run", i+1, "wall", s.wall.Round(time.Millisecond), "rss_mib", s.rss>>20)
		cold = append(cold, s)
	}
	for i := range b.runs {
		s, err := b.child(exe, "-step", "index", src, graph)
		if err != nil {
			return nil, err
		}
		b.log.Info("std no-change re-index", "run", i+1, "wall", s.wall.Round(time.Millisecond))
		same = append(same, s)
	}
	counts := fields(cold[len(cold)-1].out, `files=(\d+)`, `nodes=(\d+)`, `edges=(\d+)`)
	by := "`benchstd -step index $(go env GOROOT)/src STORE` (index/internal/benchstd)"
	return []row{
		sampleRow(fmt.Sprintf("Go std library (GOROOT/src: %s files, %s nodes, %s edges): cold graph index", counts[0], counts[1], counts[2]), cold, by),
		sampleRow("Go std library: no-change re-index", same, by),
	}, nil
}

// pyIndex indexes python3's standard library cold into a fresh store each run.
func (b *bench) pyIndex(exe string) (row, error) {
	lib, err := output(b.ctx, "python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`)
	if err != nil {
		return row{}, fmt.Errorf("find the Python stdlib (install python3): %w", err)
	}
	store := filepath.Join(b.work, "pystore")
	var cold []sample
	for i := range b.runs {
		if err := os.RemoveAll(store); err != nil {
			return row{}, fmt.Errorf("remove the previous store: %w", err)
		}
		s, err := b.child(exe, "-step", lib, store)
		if err != nil {
			return row{}, err
		}
		b.log.Info("python cold index", "run", i+1, "wall", s.wall.Round(time.Millisecond), "rss_mib", s.rss>>20)
		cold = append(cold, s)
	}
	c := fields(cold[len(cold)-1].out, `parsed (\d+)`, `nodes (\d+)`, `edges (\d+)`)
	return sampleRow(fmt.Sprintf("Python stdlib (%s, %s files parsed, %s nodes, %s edges): cold graph index", filepath.Base(lib), c[0], c[1], c[2]),
		cold, "`benchpy -step LIB STORE` (index/internal/benchpy)"), nil
}

// child runs one step and takes its wall time and peak RSS.
func (b *bench) child(exe string, args ...string) (sample, error) {
	cmd := exec.CommandContext(b.ctx, exe, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	out, err := cmd.Output()
	s := sample{wall: time.Since(start), out: strings.TrimSpace(string(out))}
	if err != nil {
		return s, fmt.Errorf("%s %s: %w", filepath.Base(exe), strings.Join(args, " "), err)
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.rss = ru.Maxrss * 1024
	}
	return s, nil
}

// goCmd runs the go command with env added and returns its standard output.
func (b *bench) goCmd(env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(b.ctx, "go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return string(out), fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// goBench runs the benchmarks matching re in pkg -runs times.
func (b *bench) goBench(env []string, pkg, re, benchtime string) (benchSet, error) {
	b.log.Info("go test -bench", "pkg", pkg, "bench", re, "count", b.runs)
	out, err := b.goCmd(env, "test", pkg, "-run", "^$", "-bench", re, "-benchtime", benchtime, "-count", strconv.Itoa(b.runs))
	if err != nil {
		return nil, err
	}
	set, err := parseBench(out)
	if err != nil {
		return nil, fmt.Errorf("go test %s -bench %s: %w", pkg, re, err)
	}
	if len(set) == 0 {
		return nil, fmt.Errorf("go test %s -bench %s ran no benchmark (skipped? output:\n%s)", pkg, re, out)
	}
	return set, nil
}

// benchSet maps a benchmark's name (without the -GOMAXPROCS suffix) to
// each unit's values, one per run.
type benchSet map[string]map[string][]float64

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseBench reads go test's output: each benchmark line through
// x/tools' parser, then the line's other value/unit pairs (custom
// metrics) that the parser does not keep.
func parseBench(out string) (benchSet, error) {
	set := benchSet{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "Benchmark") {
			continue
		}
		bm, err := parse.ParseLine(line)
		if err != nil {
			continue // a "BenchmarkX" line with no figures: a sub-benchmark's header or a log line
		}
		name := procsSuffix.ReplaceAllString(bm.Name, "")
		if set[name] == nil {
			set[name] = map[string][]float64{}
		}
		f := strings.Fields(line)
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return nil, fmt.Errorf("benchmark line %q: value %q: %w", line, f[i], err)
			}
			set[name][f[i+1]] = append(set[name][f[i+1]], v)
		}
	}
	return set, sc.Err()
}

// benchRow is a row of one benchmark's unit: the median over the runs.
func benchRow(set benchSet, name, unit, figure, by string) row {
	vals := set[name][unit]
	if len(vals) == 0 {
		return row{Figure: figure, Median: "not measured (" + name + " reported no " + unit + ")", By: by}
	}
	toDur := func(v float64) time.Duration {
		if unit == "p50-ms" {
			return time.Duration(v * float64(time.Millisecond))
		}
		return time.Duration(v)
	}
	med, lo, hi := medianSpread(vals)
	return row{Figure: figure, Median: "**" + fmtDur(toDur(med)) + "**", Spread: fmtDur(toDur(lo)) + " – " + fmtDur(toDur(hi)), By: by}
}

// sampleRow is a row of child runs: median wall time and median peak RSS.
func sampleRow(figure string, ss []sample, by string) row {
	var walls, rss []float64
	for _, s := range ss {
		walls = append(walls, float64(s.wall))
		rss = append(rss, float64(s.rss))
	}
	med, lo, hi := medianSpread(walls)
	r, _, _ := medianSpread(rss)
	return row{
		Figure: figure,
		Median: "**" + fmtDur(time.Duration(med)) + "**",
		Spread: fmtDur(time.Duration(lo)) + " – " + fmtDur(time.Duration(hi)),
		RSS:    fmt.Sprintf("%d MiB", int64(r)>>20),
		By:     by,
	}
}

// medianSpread returns the median (the mean of the two middle values for
// an even count), the least and the greatest of vals, which is not empty.
func medianSpread(vals []float64) (med, lo, hi float64) {
	s := slices.Clone(vals)
	slices.Sort(s)
	n := len(s)
	med = s[n/2]
	if n%2 == 0 {
		med = (s[n/2-1] + s[n/2]) / 2
	}
	return med, s[0], s[n-1]
}

// fmtDur prints a duration with three significant figures or so.
func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond))
	}
}

// fields returns the first submatch of each pattern in s, "?" where one
// does not match (the step's output line changed).
func fields(s string, patterns ...string) []string {
	out := make([]string, len(patterns))
	for i, p := range patterns {
		out[i] = "?"
		if m := regexp.MustCompile(p).FindStringSubmatch(s); m != nil {
			out[i] = thousands(m[1])
		}
	}
	return out
}

// thousands puts commas in a run of digits: 104632 → 104,632.
func thousands(digits string) string {
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
