package eval

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCompareFigures runs the golden comparison of TestDevSet and
// TestRealSet (which need their module checkouts) on the committed figures
// and edited copies of them, one rule per case.
func TestCompareFigures(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/eval_stats.txt")
	if err != nil {
		t.Fatal(err)
	}
	golden := string(data)
	edit := func(old, new string) string {
		t.Helper()
		if strings.Count(golden, old) != 1 {
			t.Fatalf("%q occurs %d times in the golden figures", old, strings.Count(golden, old))
		}
		return strings.Replace(golden, old, new, 1)
	}
	const (
		relayRow = "relay             33   51.5  100.0   100.0   66.7  100.0   100.0   69.7   78.8   87.9   93.9    0.819    0.724    0.025"
		pflag01  = "pflag-01             file_rr=0.20 file_all@5=true func_any@10=false func_rr=0.00 top_files=ip_slice.go,bool_slice.go,ipnet_slice.go\n"
		pflag03  = "pflag-03             file_rr=1.00 file_all@5=true func_any@10=true func_rr=1.00 top_files=flag.go,verify/all.sh,errors.go"
	)
	tests := []struct {
		name   string
		got    string
		worse  []string
		better []string
	}{
		{name: "unchanged", got: golden},
		{name: "seconds are not compared",
			got: edit(relayRow, strings.Replace(relayRow, "0.025", "9.999", 1))},
		{name: "a file ranked lower fails",
			got:   edit(pflag03, strings.Replace(pflag03, "file_rr=1.00", "file_rr=0.50", 1)),
			worse: []string{"instance pflag-03: file_rr 0.50, golden 1.00 (ranked lower)"}},
		{name: "a function ranked lower fails",
			got:   edit(pflag03, strings.Replace(pflag03, "func_rr=1.00", "func_rr=0.33", 1)),
			worse: []string{"instance pflag-03: func_rr 0.33, golden 1.00 (ranked lower)"}},
		{name: "a lost hit fails",
			got:   edit(pflag03, strings.Replace(pflag03, "func_any@10=true", "func_any@10=false", 1)),
			worse: []string{"instance pflag-03: func_any@10 false, golden true"}},
		{name: "a better rank asks for -update",
			got:    edit(pflag01, strings.Replace(pflag01, "file_rr=0.20", "file_rr=0.25", 1)),
			better: []string{"instance pflag-01: file_rr 0.25, golden 0.20"}},
		{name: "other top files at equal ranks ask for -update",
			got:    edit(pflag03, strings.Replace(pflag03, "flag.go,verify/all.sh,errors.go", "flag.go,errors.go,verify/all.sh", 1)),
			better: []string{"instance pflag-03: top_files flag.go,errors.go,verify/all.sh, golden flag.go,verify/all.sh,errors.go (ranks unchanged)"}},
		{name: "a lower summary figure fails, a higher one asks for -update",
			got:    edit(relayRow, strings.Replace(strings.Replace(relayRow, "51.5", "45.5", 1), "0.724", "0.730", 1)),
			worse:  []string{"method relay: f.all1 45.5, golden 51.5"},
			better: []string{"method relay: fn.mrr 0.73, golden 0.724"}},
		{name: "a changed instance count fails",
			got:   edit(relayRow, strings.Replace(relayRow, "relay             33", "relay             32", 1)),
			worse: []string{"method relay: 32 instances, golden 33"}},
		{name: "a missing method and instance fail",
			got:   strings.Replace(edit(relayRow+"\n", ""), pflag01, "", 1),
			worse: []string{"method relay: missing", "instance pflag-01: missing"}},
		{name: "a new instance asks for -update",
			got:    edit(pflag01, pflag01+strings.Replace(pflag01, "pflag-01", "pflag-99", 1)),
			better: []string{"instance pflag-99: not in the golden figures"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch, err := CompareFigures(golden, tt.got)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(FigureChanges{Worse: tt.worse, Better: tt.better}, ch); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCompareFiguresRealSet: the committed real-set and real-issue figures
// (the latter a summary without instance lines) parse and equal themselves.
func TestCompareFiguresRealSet(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"testdata/realset_stats.txt", "testdata/realissues_stats.txt"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := CompareFigures(string(data), string(data))
		if err != nil || len(ch.Worse)+len(ch.Better) > 0 {
			t.Errorf("CompareFigures(%s, itself) = %+v, %v; want no changes", name, ch, err)
		}
	}
}

func TestCompareFiguresErrors(t *testing.T) {
	t.Parallel()
	const table = "method n f.all1 s/inst\nrelay 3 50.0 0.1\n"
	tests := []struct {
		name, golden, got, want string
	}{
		{"no table", "# nothing\n", table, "golden figures: no summary table"},
		{"short row", table, "method n f.all1 s/inst\nrelay 3 50.0\n", "computed figures: line 2: row \"relay\" has 2 columns, the header 3"},
		{"not a number", table, "method n f.all1 s/inst\nrelay 3 high 0.1\n", "f.all1 \"high\" is not a number"},
		{"instance without a rank", table, table + "\nx-1 file_rr=1.00 file_all@5=true func_any@10=true\n", "instance x-1: no func_rr"},
		{"stray line", table, table + "\nsomething else\n", "is neither a table row nor an instance"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := CompareFigures(tt.golden, tt.got)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("CompareFigures = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
