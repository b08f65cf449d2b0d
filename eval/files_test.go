package eval

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/udiff"
)

func TestReportAllFailed(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		results   []InstanceResult
		n         int
		wantFirst string
	}{
		{"none", nil, 0, ""},
		{"all ok", []InstanceResult{{ID: "a"}, {ID: "b"}}, 0, ""},
		{"some failed", []InstanceResult{{ID: "a", Error: "no checkout"}, {ID: "b"}}, 0, ""},
		{"all failed", []InstanceResult{
			{ID: "a", Method: MethodRelay, Error: "no checkout"}, {ID: "a", Method: "bm25-files", Error: "no checkout"},
			{ID: "b", Method: MethodRelay, Error: "index: boom"},
		}, 2, "a: no checkout"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n, first := Report{Results: tc.results}.AllFailed()
			if n != tc.n || first != tc.wantFirst {
				t.Errorf("AllFailed() = %d, %q; want %d, %q", n, first, tc.n, tc.wantFirst)
			}
		})
	}
}

func TestGoldInstance(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		gold Gold
		want Instance
		err  error
	}{
		{"functions", Gold{Files: []string{"a.go"}, Functions: []string{"a.go:F"}},
			Instance{ID: "x-1", Problem: "p", GoldFiles: []string{"a.go"}, GoldFunctions: []string{"a.go:F"}, Repo: "m@v1"}, nil},
		{"lines", Gold{Files: []string{"a.go"}, Functions: []string{"a.go:F"}, Lines: map[string][]int{"a.go": {3, 4}}},
			Instance{ID: "x-1", Problem: "p", GoldFiles: []string{"a.go"}, GoldFunctions: []string{"a.go:F"}, GoldLines: map[string][]int{"a.go": {3, 4}}, Repo: "m@v1"}, nil},
		{"files only", Gold{Files: []string{"a.go"}},
			Instance{ID: "x-1", Problem: "p", GoldFiles: []string{"a.go"}, GoldFunctions: []string{}, Repo: "m@v1"}, nil},
		{"no files", Gold{Skipped: []string{"a_test.go: test"}}, Instance{}, ErrNoGoldFiles},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.gold.Instance("x-1", "p", "m@v1")
			if !errors.Is(err, tc.err) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("instance (-want +got):\n%s", d)
			}
		})
	}
	// A files-only instance still says it has no gold function (the
	// loader wants the field).
	in, _ := Gold{Files: []string{"a.go"}}.Instance("x-1", "p", "")
	b, _ := json.Marshal(in)
	if !strings.Contains(string(b), `"gold_functions":[]`) {
		t.Errorf("instance line %s lacks gold_functions", b)
	}
}

func TestNeedsGraph(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		paths []string
		want  bool
	}{
		{[]string{"shop.go", "shop_test.go"}, false},
		{[]string{"README.md", "go.mod"}, false},
		{[]string{"shop.go", "src/cart.ts"}, true},
		{[]string{"pkg/mod.py"}, true},
	} {
		var diffs []udiff.FileDiff
		for _, p := range tc.paths {
			diffs = append(diffs, udiff.FileDiff{OldPath: p, NewPath: p})
		}
		if got := NeedsGraph(diffs); got != tc.want {
			t.Errorf("NeedsGraph(%q) = %v, want %v", tc.paths, got, tc.want)
		}
	}
}

func TestReadInstances(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	line := `{"instance_id": "a", "problem_statement": "p", "gold_files": ["a.go"], "gold_functions": []}`
	bad := filepath.Join(dir, "bad.jsonl")
	for p, text := range map[string]string{good: line + "\n", bad: "{\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	insts, err := ReadInstances(good)
	if err != nil || len(insts) != 1 || insts[0].ID != "a" {
		t.Errorf("ReadInstances = %+v, %v", insts, err)
	}
	for p, want := range map[string]string{filepath.Join(dir, "none.jsonl"): "open instances", bad: bad + ": "} {
		if _, err := ReadInstances(p); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReadInstances(%s) = %v, want an error with %q", p, err, want)
		}
	}
}

func TestRealReportWriteFiles(t *testing.T) {
	t.Parallel()
	in := Instance{ID: "a", Problem: "p", GoldFiles: []string{"a.go"}, GoldFunctions: []string{"a.go:F"}}
	r := Score(in, Prediction{Files: []string{"a.go"}, Functions: []string{"a.go:F"}})
	r.Method = MethodRelay
	rep := RealReport{Report: Report{Results: []InstanceResult{r}, Summaries: []Summary{Summarize(MethodRelay, []InstanceResult{r})}},
		Instances: []Instance{in}}
	dir := filepath.Join(t.TempDir(), "out", "new")
	if err := rep.WriteFiles(dir); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if got := read("figures.txt"); got != rep.Figures("relay eval real", true) {
		t.Errorf("figures.txt:\n%s", got)
	}
	var back RealReport
	if err := json.Unmarshal([]byte(read("results.json")), &back); err != nil || len(back.Results) != 1 {
		t.Errorf("results.json: %+v, %v", back, err)
	}
	insts, err := LoadInstances(strings.NewReader(read("instances.jsonl")))
	if d := cmp.Diff(rep.Instances, insts); err != nil || d != "" {
		t.Errorf("instances.jsonl: %v (-want +got):\n%s", err, d)
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteFiles(file); err == nil || !strings.Contains(err.Error(), "create the output folder") {
		t.Errorf("WriteFiles into a file = %v", err)
	}
}
