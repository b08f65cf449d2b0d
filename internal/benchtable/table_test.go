package main

import (
	"bufio"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReplaceTable(t *testing.T) {
	for _, tc := range []struct {
		name, doc, want string
		err             bool
	}{
		{
			name: "replaces only between the markers",
			doc:  "# Benchmarks\n" + beginMarker + "\nold table\n" + endMarker + "\n\n## log\nkept\n",
			want: "# Benchmarks\n" + beginMarker + "\nNEW\n" + endMarker + "\n\n## log\nkept\n",
		},
		{
			name: "empty section",
			doc:  beginMarker + "\n" + endMarker + "\nlog\n",
			want: beginMarker + "\nNEW\n" + endMarker + "\nlog\n",
		},
		{name: "no markers", doc: "# Benchmarks\nlog\n", err: true},
		{name: "end before begin", doc: endMarker + "\n" + beginMarker + "\n", err: true},
		{name: "two begin markers", doc: beginMarker + "\n" + beginMarker + "\n" + endMarker + "\n", err: true},
		{name: "begin marker not on its own line", doc: "x " + beginMarker + " y\n" + endMarker + "\n", err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replaceTable(tc.doc, "NEW\n")
			if tc.err {
				if err == nil {
					t.Fatalf("replaceTable = %q, want an error", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestParseBench(t *testing.T) {
	out := `goos: linux
BenchmarkStore/CallersDepth1-2         	   50000	     23456 ns/op
BenchmarkStore/CallersDepth1-2         	   50000	     21000 ns/op
BenchmarkSearchLexical-2   	     200	   6000000 ns/op	         5.600 p50-ms	        13.10 p95-ms
BenchmarkSearchLexical-2   	     200	   6100000 ns/op	         5.800 p50-ms	        12.00 p95-ms
BenchmarkStore
--- SKIP: BenchmarkX
PASS
`
	got, err := parseBench(out)
	if err != nil {
		t.Fatal(err)
	}
	want := benchSet{
		"BenchmarkStore/CallersDepth1": {"ns/op": {23456, 21000}},
		"BenchmarkSearchLexical":       {"ns/op": {6e6, 6.1e6}, "p50-ms": {5.6, 5.8}, "p95-ms": {13.1, 12}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	r := benchRow(got, "BenchmarkSearchLexical", "p50-ms", "q", "by")
	if r.Median != "**5.7 ms**" || r.Spread != "5.6 ms – 5.8 ms" {
		t.Errorf("benchRow = %+v, want median 5.7 ms, spread 5.6 ms – 5.8 ms", r)
	}
	if r := benchRow(got, "BenchmarkMissing", "ns/op", "q", "by"); !strings.Contains(r.Median, "not measured") {
		t.Errorf("benchRow of a missing benchmark = %+v, want \"not measured\"", r)
	}
}

func TestMedianSpread(t *testing.T) {
	for _, tc := range []struct {
		in          []float64
		med, lo, hi float64
	}{
		{[]float64{3}, 3, 3, 3},
		{[]float64{9, 1, 5}, 5, 1, 9},
		{[]float64{4, 1, 3, 2}, 2.5, 1, 4},
	} {
		med, lo, hi := medianSpread(tc.in)
		if med != tc.med || lo != tc.lo || hi != tc.hi {
			t.Errorf("medianSpread(%v) = %v, %v, %v; want %v, %v, %v", tc.in, med, lo, hi, tc.med, tc.lo, tc.hi)
		}
	}
}

// TestEvalGoldens reads the repository's eval goldens: their summary
// format is what the table quotes.
func TestEvalGoldens(t *testing.T) {
	rows, err := evalRows("../../eval/testdata")
	if err != nil {
		t.Fatal(err)
	}
	relay := 0
	for _, r := range rows {
		if r.method == "relay" {
			relay++
		}
	}
	if relay != len(evalSets) {
		t.Errorf("%d relay lines in %d goldens, want one each", relay, len(evalSets))
	}
}

func TestParseEvalSummary(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // the error's text, "" for none
	}{
		{"ok", "# x\n\nmethod n f.any1 f.all5 fn.y10 file.mrr\nrelay 3 1 2 3 0.5\n\n# per instance\nrelay x\n", ""},
		{"no heading", "relay 3 1 2 3 0.5\n", "no summary heading"},
		{"no relay line", "method n f.any1 f.all5 fn.y10 file.mrr\nother 3 1 2 3 0.5\n", "no relay or bm25-files line"},
		{"missing column", "method n f.any1\nrelay 3 1\n", `no column "f.all5"`},
		{"short line", "method n f.any1 f.all5 fn.y10 file.mrr\nrelay 3 1\n", "columns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := parseEvalSummary(bufio.NewScanner(strings.NewReader(tc.text)), evalSets[0])
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && (len(rows) != 1 || rows[0].cols["file.mrr"] != "0.5"):
				t.Errorf("rows = %+v, want one relay row with file.mrr 0.5", rows)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestMachineInfo(t *testing.T) {
	model, cores := cpuInfo("processor\t: 0\nmodel name\t: AMD EPYC  7B13\n\nprocessor\t: 1\nmodel name\t: AMD EPYC  7B13\n")
	if model != "AMD EPYC 7B13" || cores != 2 {
		t.Errorf("cpuInfo = %q, %d; want AMD EPYC 7B13, 2", model, cores)
	}
	if got := memInfo("MemTotal:       24641348 kB\nMemFree: 1 kB\n"); got != "23 GiB" {
		t.Errorf("memInfo = %q, want 23 GiB", got)
	}
	if got := thousands("104632"); got != "104,632" {
		t.Errorf("thousands = %q", got)
	}
}

func TestRender(t *testing.T) {
	m := machine{Date: "2026-11-27", CPU: "AMD EPYC 7B13", Cores: 2, Memory: "23 GiB", GoVersion: "go1.26.8", Commit: "abc1234", LoadStart: "0.50", LoadEnd: "1.20"}
	rows := []row{{Figure: "cold index", Median: "**8.00 s**", Spread: "7.00 s – 9.00 s", RSS: "800 MiB", By: "`benchstd`"}, {Figure: "query", Median: "**5.0 ms**", Spread: "4.0 ms – 6.0 ms", By: "`go test`"}}
	evals := []evalRow{{set: evalSets[0], method: "relay", cols: map[string]string{"n": "33", "f.any1": "66.7", "f.all5": "100.0", "fn.y10": "93.9", "file.mrr": "0.819"}}}
	got := render(m, 3, rows, evals)
	for _, want := range []string{
		"Measured 2026-11-27 on AMD EPYC 7B13 (2 cores, 23 GiB), go1.26.8, commit abc1234; medians of 3 runs",
		"load average 0.50 before and 1.20 after",
		"| cold index | **8.00 s** | 7.00 s – 9.00 s | 800 MiB | `benchstd` |",
		"| query | **5.0 ms** | 4.0 ms – 6.0 ms | — | `go test` |",
		"| dev set (Go) | relay | 33 | 66.7 | 100.0 | 93.9 | 0.819 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("render lacks %q; got\n%s", want, got)
		}
	}
}
