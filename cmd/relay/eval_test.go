package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/agent/agenttest"
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
	// Every instance failing (here: no checkout of either) printed the
	// all-miss table and exited 0, as if the run had measured something.
	onlyMissing := filepath.Join(t.TempDir(), "missing.jsonl")
	if err := os.WriteFile(onlyMissing, []byte(lines[1]+"\n"+strings.Replace(lines[1], "shop-2", "shop-3", 1)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{}, {"--json"}} {
		code, stdout, stderr := relay(t, "", append([]string{"eval", "--instances", onlyMissing, "--checkouts", checkouts}, args...)...)
		want := "every instance failed (2), so the figures above measure nothing; the first: shop-2: checkout"
		if code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stdout, "bm25-files") {
			t.Errorf("eval %v with no usable instance: exit %d, want 1 and %q\nstdout:\n%s\nstderr:\n%s", args, code, want, stdout, stderr)
		}
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"eval", "--instances", instances, "--checkouts", checkouts, "--agent"}, 2, "needs a model endpoint"},
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

// TestEvalDerive builds an instance from a diff against a checkout and
// feeds it back to eval's loader; bad input gets usage errors.
func TestEvalDerive(t *testing.T) {
	repo := t.TempDir()
	src := "package shop\n\nfunc Total(n int) int {\n\treturn n\n}\n\nfunc Tax(n int) int {\n\treturn n / 10\n}\n"
	if err := os.WriteFile(filepath.Join(repo, "shop.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	patch := filepath.Join(t.TempDir(), "fix.diff")
	diff := "--- a/shop.go\n+++ b/shop.go\n@@ -8 +8 @@ func Tax(n int) int {\n-\treturn n / 10\n+\treturn n * 10 / 100\n" +
		"--- a/shop_test.go\n+++ b/shop_test.go\n@@ -1 +1 @@\n-x\n+y\n"
	if err := os.WriteFile(patch, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "derive", "--repo", repo, "--diff", patch, "--id", "shop-tax", "--statement", "Tax is rounded down too early")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `{"instance_id":"shop-tax","problem_statement":"Tax is rounded down too early","gold_files":["shop.go"],"gold_functions":["shop.go:Tax"],"gold_lines":{"shop.go":[8]}}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if !strings.Contains(stderr, "skipped shop_test.go: test") {
		t.Errorf("stderr lacks the skipped test file:\n%s", stderr)
	}
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"eval", "derive"}, 2, "derive needs a fix"},
		{[]string{"eval", "derive", "--module", "example.com/m", "--from", "v1.0.0"}, 2, "needs --from and --to"},
		{[]string{"eval", "derive", "--module", "m", "--from", "v1", "--to", "v2", "--repo", repo}, 2, "not both"},
		{[]string{"eval", "derive", "--repo", repo, "--diff", patch, "--id", "x"}, 2, "both --id and --statement"},
		{[]string{"eval", "derive", "--repo", filepath.Join(repo, "nope"), "--diff", patch}, 2, "is not a directory"},
		{[]string{"eval", "derive", "--repo", repo, "--diff", filepath.Join(repo, "nope.diff")}, 1, "open --diff"},
		{[]string{"eval", "derive", "--repo", repo, "--diff", filepath.Join(repo, "shop.go")}, 1, "no file changes found"},
	} {
		code, _, stderr := relay(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}

// TestEvalAgent drives eval --agent against the scripted model: the cited
// notify/sms.go:4 becomes the top file and the function Send; tokens are
// counted.
func TestEvalAgent(t *testing.T) {
	needRgFd(t)
	m := startFakeModel(t)
	checkouts := t.TempDir()
	if err := os.Rename(agentRepo(t), filepath.Join(checkouts, "sms-1")); err != nil {
		t.Fatal(err)
	}
	instances := filepath.Join(t.TempDir(), "instances.jsonl")
	line := `{"instance_id": "sms-1", "problem_statement": "Slow providers make us send every SMS twice", "gold_files": ["notify/sms.go"], "gold_functions": ["notify/sms.go:Send"]}`
	if err := os.WriteFile(instances, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"eval", "--instances", instances, "--checkouts", checkouts, "--agent", "--json", "--baseline=false", "--no-transcript"}, modelFlags...)
	code, stdout, stderr := relayAgent(t, m.env(), "", args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var rep struct {
		Results []struct {
			Method string `json:"method"`
			Tokens int64  `json:"tokens"`
			Error  string `json:"error"`
			Pred   struct {
				Files     []string `json:"files"`
				Functions []string `json:"functions"`
			} `json:"prediction"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	found := false
	for _, r := range rep.Results {
		if r.Method != "relay-agent" {
			continue
		}
		found = true
		if r.Error != "" || r.Tokens <= 0 || len(r.Pred.Files) == 0 || r.Pred.Files[0] != "notify/sms.go" ||
			len(r.Pred.Functions) == 0 || r.Pred.Functions[0] != "notify/sms.go:Send" {
			t.Errorf("agent result: %+v", r)
		}
	}
	if !found {
		t.Fatalf("no relay-agent result:\n%s", stdout)
	}
	asked := false
	for _, req := range m.srv.Requests() {
		if req.Model == "planner-model" && strings.Contains(agenttest.FirstUser(req), "Which files and functions") && strings.Contains(agenttest.FirstUser(req), "Slow providers") {
			asked = true
		}
	}
	if !asked {
		t.Error("the planner was not asked the localization question")
	}
}

// TestEvalRealErrors: relay eval real says what is missing.
func TestEvalRealErrors(t *testing.T) {
	set := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		err  string
	}{
		{[]string{"eval", "real"}, 2, "needs --set DIR"},
		{[]string{"eval", "real", "--set", filepath.Join(set, "nope")}, 2, "is not a directory"},
		{[]string{"eval", "real", "--set", set, "--cache", t.TempDir()}, 1, "instances.jsonl"},
	} {
		code, _, stderr := relay(t, "", tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.err) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, tc.code, tc.err)
		}
	}
}
