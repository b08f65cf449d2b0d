package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalCommand(t *testing.T) {
	checkouts := t.TempDir()
	src := retrievalRepo(t)
	if err := os.RemoveAll(filepath.Join(src, ".relay")); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(checkouts, "shop-1")); err != nil {
		t.Fatal(err)
	}
	instances := filepath.Join(t.TempDir(), "instances.jsonl")
	lines := []string{
		`{"instance_id": "shop-1", "problem_statement": "Orders of exactly one hundred do not get the ten percent reduction", "gold_files": ["cart/cart.go"], "gold_functions": ["cart/cart.go:applyDiscount"]}`,
		`{"instance_id": "shop-2", "problem_statement": "checkout", "gold_files": ["cart/checkout.go"]}`,
	}
	if err := os.WriteFile(instances, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "--instances", instances, "--checkouts", checkouts)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"method", "relay", "bm25-files", "(1 instance(s) failed and count as misses)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "[1/2] shop-1 file rr 1.00") || !strings.Contains(stderr, "[2/2] shop-2 error: checkout") {
		t.Errorf("progress:\n%s", stderr)
	}
	code, stdout, stderr = relay(t, "", "eval", "--instances", instances, "--checkouts", checkouts, "--json", "--baseline=false")
	if code != 0 {
		t.Fatalf("json: exit %d\n%s", code, stderr)
	}
	var rep struct {
		Summaries []struct {
			Method  string          `json:"method"`
			FileAll map[int]float64 `json:"file_all_at"`
			FuncAny map[int]float64 `json:"func_any_at"`
		} `json:"summaries"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	if len(rep.Summaries) != 1 || rep.Summaries[0].FileAll[1] != 50 || rep.Summaries[0].FuncAny[10] != 100 {
		t.Errorf("summaries: %+v", rep.Summaries)
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"eval", "--instances", instances, "--checkouts", checkouts, "--agent"}, 1, "needs a model"},
		{[]string{"eval", "--checkouts", checkouts}, 2, "needs --instances"},
		{[]string{"eval", "--instances", instances, "--checkouts", filepath.Join(checkouts, "nope")}, 2, "is not a directory"},
		{[]string{"eval", "--instances", filepath.Join(checkouts, "none.jsonl"), "--checkouts", checkouts}, 1, "open instances"},
	} {
		code, _, stderr := relay(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}
