package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// The markers around the generated table in BENCHMARKS.md.
const (
	beginMarker = "<!-- benchtable:begin -->"
	endMarker   = "<!-- benchtable:end -->"
)

var errMarkers = errors.New("the benchtable markers are missing or out of order: put " + beginMarker +
	" and " + endMarker + " on lines of their own near the top, the first before the second")

// splitMarkers returns the text up to and including the begin marker's
// line and the text from the end marker's line on.
func splitMarkers(doc string) (head, tail string, err error) {
	b := strings.Index(doc, beginMarker+"\n")
	e := strings.Index(doc, endMarker)
	if b < 0 || e < 0 || e < b || strings.Count(doc, beginMarker) != 1 || strings.Count(doc, endMarker) != 1 {
		return "", "", errMarkers
	}
	return doc[:b+len(beginMarker)+1], doc[e:], nil
}

// replaceTable puts table between the markers of doc, keeping the rest.
func replaceTable(doc, table string) (string, error) {
	head, tail, err := splitMarkers(doc)
	if err != nil {
		return "", err
	}
	return head + table + tail, nil
}

// evalSet is one eval golden: the file, what it measures and how it is rerun.
type evalSet struct{ file, name, rerun string }

var evalSets = []evalSet{
	{"eval_stats.txt", "dev set (Go)", "`RELAY_DEVSET=… go test ./eval -run TestDevSet`"},
	{"realset_stats.txt", "real fixes (Go)", "`RELAY_REALSET=… go test ./eval -run TestRealSet`"},
	{"realissues_stats.txt", "real issues (Java, JavaScript)", "`RELAY_REALISSUES=… go test ./eval -run TestRealIssues`"},
}

// evalColumns are the golden's columns the table shows, with their headings.
var evalColumns = []struct{ key, head string }{
	{"n", "instances"},
	{"f.any1", "file any@1 %"},
	{"f.all5", "files all@5 %"},
	{"fn.y10", "function any@10 %"},
	{"file.mrr", "file MRR"},
}

// evalRow is the "relay" and "bm25-files" summary lines of one golden.
type evalRow struct {
	set    evalSet
	method string
	cols   map[string]string
}

// evalRows reads the summary of each eval golden under dir. The goldens
// are the figures the eval tests compare against, so they are current by
// construction; the table quotes them rather than rerunning the sets
// (which need corpora outside the repository).
func evalRows(dir string) ([]evalRow, error) {
	var rows []evalRow
	for _, s := range evalSets {
		f, err := os.Open(filepath.Join(dir, s.file))
		if err != nil {
			return nil, fmt.Errorf("read eval golden: %w", err)
		}
		r, err := parseEvalSummary(bufio.NewScanner(f), s)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.file, err)
		}
		rows = append(rows, r...)
	}
	return rows, nil
}

// parseEvalSummary reads the summary table (a "method" heading line, then
// one line a method) and keeps the lines of relay and of the BM25 baseline.
func parseEvalSummary(sc *bufio.Scanner, s evalSet) ([]evalRow, error) {
	var head []string
	var rows []evalRow
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) > 0 && f[0] == "method":
			head = f
		case head != nil && len(f) == 0:
			return finishEval(rows, head)
		case head != nil && (f[0] == "relay" || f[0] == "bm25-files"):
			if len(f) != len(head) {
				return nil, fmt.Errorf("line %q has %d columns, the heading %d", sc.Text(), len(f), len(head))
			}
			r := evalRow{set: s, method: f[0], cols: map[string]string{}}
			for i, k := range head {
				r.cols[k] = f[i]
			}
			rows = append(rows, r)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return finishEval(rows, head)
}

func finishEval(rows []evalRow, head []string) ([]evalRow, error) {
	if head == nil {
		return nil, errors.New("no summary heading (a line starting with \"method\")")
	}
	if len(rows) == 0 {
		return nil, errors.New("no relay or bm25-files line in the summary")
	}
	for _, c := range evalColumns {
		if _, ok := rows[0].cols[c.key]; !ok {
			return nil, fmt.Errorf("no column %q in the summary heading", c.key)
		}
	}
	return rows, nil
}

// render writes the caption and the two tables that go between the markers.
func render(m machine, runs int, rows []row, evals []evalRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\n## Current figures\n\n")
	fmt.Fprintf(&b, "Measured %s on %s (%d cores, %s), %s, commit %s; medians of %d runs, spread min – max; "+
		"1-minute load average %s before and %s after. "+
		"Regenerate with `nice go run ./internal/benchtable` from the repository root (a few minutes; it rewrites only "+
		"this section). The machine is shared, so read the figures as noisy; the dated log below has the "+
		"side-by-side comparisons.\n\n", m.Date, m.CPU, m.Cores, m.Memory, m.GoVersion, m.Commit, runs, m.LoadStart, m.LoadEnd)
	b.WriteString("| figure | median | spread | peak RSS | measured by |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		rss := r.RSS
		if rss == "" {
			rss = "—"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Figure, r.Median, r.Spread, rss, r.By)
	}
	b.WriteString("\nLocalization, from the eval goldens (the figures the eval tests compare against):\n\n| set | method |")
	for _, c := range evalColumns {
		b.WriteString(" " + c.head + " |")
	}
	b.WriteString(" rerun |\n|---|---|" + strings.Repeat("---|", len(evalColumns)) + "---|\n")
	for _, e := range evals {
		fmt.Fprintf(&b, "| %s | %s |", e.set.name, e.method)
		for _, c := range evalColumns {
			fmt.Fprintf(&b, " %s |", e.cols[c.key])
		}
		fmt.Fprintf(&b, " %s |\n", e.set.rerun)
	}
	b.WriteString("\n")
	return b.String()
}

// cpuInfo returns the CPU model and the number of logical processors
// listed in /proc/cpuinfo.
func cpuInfo(s string) (model string, cores int) {
	model = "unknown CPU"
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.TrimSpace(k) {
		case "processor":
			cores++
		case "model name":
			model = strings.Join(strings.Fields(v), " ")
		}
	}
	return model, cores
}

// memInfo returns MemTotal from /proc/meminfo in GiB.
func memInfo(s string) string {
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) >= 2 && f[0] == "MemTotal:" {
			kb, err := strconv.ParseInt(f[1], 10, 64)
			if err == nil {
				return fmt.Sprintf("%d GiB", (kb+1<<19)>>20)
			}
		}
	}
	return "unknown memory"
}
