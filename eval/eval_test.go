package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve"
)

func TestScore(t *testing.T) {
	t.Parallel()
	in := Instance{ID: "x", Problem: "p", GoldFiles: []string{"a.go", "b.go"}, GoldFunctions: []string{"a.go:F", "b.go:T.M"}}
	tests := []struct {
		name    string
		pred    Prediction
		fileAll map[int]bool
		fileAny map[int]bool
		funcAll map[int]bool
		funcAny map[int]bool
		fileRR  float64
		funcRR  float64
	}{
		{"perfect", Prediction{Files: []string{"a.go", "b.go"}, Functions: []string{"b.go:T.M", "a.go:F"}},
			map[int]bool{1: false, 5: true, 10: true}, map[int]bool{1: true, 5: true, 10: true},
			map[int]bool{5: true, 10: true}, map[int]bool{5: true, 10: true}, 1, 1},
		{"one gold file late", Prediction{Files: []string{"c.go", "b.go", "d", "e", "f", "g", "a.go"}, Functions: []string{"x", "x2", "x3", "x4", "x5", "a.go:F"}},
			map[int]bool{1: false, 5: false, 10: true}, map[int]bool{1: false, 5: true, 10: true},
			map[int]bool{5: false, 10: false}, map[int]bool{5: false, 10: true}, 0.5, 1.0 / 6},
		{"nothing", Prediction{},
			map[int]bool{1: false, 5: false, 10: false}, map[int]bool{1: false, 5: false, 10: false},
			map[int]bool{5: false, 10: false}, map[int]bool{5: false, 10: false}, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := Score(in, tt.pred)
			got := []any{r.FileAll, r.FileAny, r.FuncAll, r.FuncAny, r.FileRR, r.FuncRR}
			want := []any{tt.fileAll, tt.fileAny, tt.funcAll, tt.funcAny, tt.fileRR, tt.funcRR}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Score (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	t.Parallel()
	insts := []Instance{
		{ID: "1", GoldFiles: []string{"a.go"}, GoldFunctions: []string{"a.go:F"}},
		{ID: "2", GoldFiles: []string{"b.go"}},
		{ID: "3", GoldFiles: []string{"c.go"}, GoldFunctions: []string{"c.go:G"}},
		{ID: "4", GoldFiles: []string{"d.go"}},
	}
	preds := []Prediction{
		{Files: []string{"a.go"}, Functions: []string{"a.go:F"}},
		{Files: []string{"x.go", "b.go"}},
		{Files: []string{"x.go"}, Functions: []string{"x.go:G"}},
		{},
	}
	var rs []InstanceResult
	for i := range insts {
		rs = append(rs, Score(insts[i], preds[i]))
	}
	rs[3].Error = "checkout missing"
	s := Summarize(MethodRelay, rs)
	want := Summary{Method: MethodRelay, Instances: 4, Errors: 1,
		FileAll: map[int]float64{1: 25, 5: 50, 10: 50}, FileAny: map[int]float64{1: 25, 5: 50, 10: 50},
		FuncAll: map[int]float64{5: 50, 10: 50}, FuncAny: map[int]float64{5: 50, 10: 50},
		FileMRR: 0.375, FuncMRR: 0.5, FuncScored: 2}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("Summarize (-want +got):\n%s", diff)
	}
	table := Report{Summaries: []Summary{s}}.Table()
	if !strings.Contains(table, "relay") || !strings.Contains(table, "1 instance(s) failed") {
		t.Errorf("table:\n%s", table)
	}
}

func TestLoadInstances(t *testing.T) {
	t.Parallel()
	good := `{"instance_id": "a", "problem_statement": "p", "gold_files": ["x.go"], "gold_functions": ["x.go:F"]}` + "\n\n" +
		`{"instance_id": "b", "problem_statement": "q", "gold_files": ["y.go"], "repo": "example.com/m@v1.0.0"}`
	got, err := LoadInstances(strings.NewReader(good))
	if err != nil || len(got) != 2 || got[1].Repo != "example.com/m@v1.0.0" {
		t.Fatalf("LoadInstances = %+v, %v", got, err)
	}
	bad := []struct{ in, want string }{
		{`{"instance_id": "", "problem_statement": "p", "gold_files": ["x"]}`, "line 1: instance_id is empty"},
		{`{"instance_id": "../x", "problem_statement": "p", "gold_files": ["x"]}`, "plain directory name"},
		{`{"instance_id": "a", "problem_statement": "", "gold_files": ["x"]}`, "problem_statement is empty"},
		{`{"instance_id": "a", "problem_statement": "p", "gold_files": []}`, "gold_files is empty"},
		{"{\"instance_id\": \"a\", \"problem_statement\": \"p\", \"gold_files\": [\"x\"]}\n{\"instance_id\": \"a\", \"problem_statement\": \"p\", \"gold_files\": [\"x\"]}", "line 2: instance_id \"a\" repeats line 1"},
		{`{"instance_id": 3}`, "line 1:"},
		{``, "no instances"},
	}
	for _, b := range bad {
		if _, err := LoadInstances(strings.NewReader(b.in)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("LoadInstances(%q): err = %v, want %q", b.in, err, b.want)
		}
	}
}

// TestRunEvalTiny runs the whole eval loop on two hand-made instances over
// the test repository, with the fake graph, and checks known answers.
func TestRunEvalTiny(t *testing.T) {
	t.Parallel()
	checkouts := t.TempDir()
	insts := []Instance{
		{ID: "upload-limit", Problem: "Large uploads are not rejected with 413 when they exceed the maximum size",
			GoldFiles: []string{"server/server.go"}, GoldFunctions: []string{"server/server.go:Server.handleUpload"}},
		{ID: "backoff", Problem: "The sleep between retries grows too fast; the exponential backoff delay should be capped",
			GoldFiles: []string{"storage/retry.go"}, GoldFunctions: []string{"storage/retry.go:computeDelay"}},
		{ID: "missing", Problem: "anything", GoldFiles: []string{"x.go"}},
	}
	for _, in := range insts[:2] {
		root := testutil.WriteTxtar(t, "../retrieve/testdata/repo.txtar")
		if err := os.Rename(root, filepath.Join(checkouts, in.ID)); err != nil {
			t.Fatal(err)
		}
	}
	prepare := func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
		g := testutil.FakeIndex(t, root)
		_, err := retrieve.Build(ctx, root, g, retrieve.BuildOptions{})
		return g, func() error { return nil }, err
	}
	var progress []string
	rep, err := Run(t.Context(), insts, Options{Checkouts: checkouts, Prepare: prepare, Baseline: true,
		Progress: func(done, total int, r InstanceResult) { progress = append(progress, r.ID) }})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"upload-limit", "backoff", "missing"}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	var relay Summary
	for _, s := range rep.Summaries {
		if s.Method == MethodRelay {
			relay = s
		}
	}
	if relay.Instances != 3 || relay.Errors != 1 || relay.FileAll[5] < 66 || relay.FuncAny[10] < 66 {
		t.Errorf("relay summary = %+v\n%s", relay, rep.Table())
	}
	if len(rep.Summaries) != 2 {
		t.Errorf("summaries = %d, want relay and baseline", len(rep.Summaries))
	}
}
