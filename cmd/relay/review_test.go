package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const cartDiff = `diff --git a/cart/cart.go b/cart/cart.go
index 1111111..2222222 100644
--- a/cart/cart.go
+++ b/cart/cart.go
@@ -24,6 +24,6 @@ func (c *Cart) Total() int {
 func applyDiscount(sum int) int {
-	if sum > 100 {
+	if sum >= 100 {
 		return sum * 9 / 10
 	}
 	return sum
 }
`

func TestReviewCommand(t *testing.T) {
	root := retrievalRepo(t)
	fb := filepath.Join(t.TempDir(), "fb.jsonl")
	if err := os.WriteFile(fb, []byte(`{"file": "cart/cart.go", "line": 25, "comment": "Is the discount threshold inclusive? sum >= 100 changes totals of exactly 100.", "accepted": true}`+"\n"+
		`{"file": "cart/cart.go", "line": 26, "comment": "Use a named constant for the discount.", "accepted": false}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name      string
		stdin     string
		args      []string
		code      int
		stdoutHas []string
		stderrHas string
	}{
		{"feedback add", "", []string{"review", "feedback", "add", "--file", "cart/checkout.go", "--line", "5", "--comment", "Checkout of an empty cart should not charge", "--accepted"}, 0,
			[]string{"Recorded accepted feedback on cart/checkout.go:5"}, ""},
		{"feedback import", "", []string{"review", "feedback", "import", fb}, 0, []string{"Imported 2 feedback item(s)"}, ""},
		{"feedback both verdicts", "", []string{"review", "feedback", "add", "--file", "x.go", "--comment", "c", "--accepted", "--rejected"}, 2, nil, "exactly one of --accepted or --rejected"},
		{"feedback bad import", "{\"file\": \"x\"}\n", []string{"review", "feedback", "import", "-"}, 1, nil, "line 1: feedback needs a comment"},
		{"feedback on an absolute path", "", []string{"review", "feedback", "add", "--file", "/etc/passwd", "--comment", "c", "--rejected"}, 2, nil, `feedback file "/etc/passwd" is absolute: give the path relative to the repository root`},
		{"feedback leaving the repository", "", []string{"review", "feedback", "add", "--file", "../x.go", "--comment", "c", "--rejected"}, 2, nil, `feedback file "../x.go" leaves the repository`},
		{"standard", cartDiff, []string{"review", "--diff", "-"}, 0, []string{
			"## Review context (standard)",
			"Files: `cart/cart.go` (modified, +1 −1)",
			"Blast radius: risk",
			"- modified `func applyDiscount(sum int) int` — cart/cart.go:24 (line 25)",
			"### Direct callers",
			"`func (c *Cart) Total() int` — cart/cart.go:15 (calls applyDiscount)",
			"### Transitive callers",
			"Checkout",
			"### Past review comments that were helpful",
			"Is the discount threshold inclusive?",
			"NOT helpful",
		}, ""},
		{"fast", cartDiff, []string{"review", "--diff", "-", "--depth", "fast"}, 0, []string{"## Review context (fast)", "### Direct callers"}, ""},
		{"deep", cartDiff, []string{"review", "--diff", "-", "--depth", "deep"}, 0, []string{"## Review context (deep)"}, ""},
		{"malformed", "--- a/x.go\n+++ b/x.go\n@@ -1,2 +1,2 @@\n x\n~y\n", []string{"review", "--diff", "-"}, 1, nil, "line 5: unexpected"},
		{"no diff flag", "", []string{"review"}, 2, nil, "review needs --diff"},
		{"bad depth", cartDiff, []string{"review", "--diff", "-", "--depth", "wide"}, 2, nil, "unknown depth \"wide\""},
		{"missing file", "", []string{"review", "--diff", filepath.Join(root, "nope.diff")}, 1, nil, "open diff"},
		// --budget 10 printed the title alone, with no word of what was
		// left out; 0 silently meant the default.
		{"budget too small", cartDiff, []string{"review", "--diff", "-", "--budget", "10"}, 2, nil, "--budget 10: want at least 100 tokens, so that the context can say what it left out"},
		{"budget zero", cartDiff, []string{"review", "--diff", "-", "--budget", "0"}, 2, nil, "--budget 0: want at least 100 tokens"},
		{"smallest budget", cartDiff, []string{"review", "--diff", "-", "--budget", "100"}, 0, []string{"## Review context (standard)", "Omitted for the token budget:"}, ""},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			code, stdout, stderr := relay(t, st.stdin, append([]string{"--repo", root}, st.args...)...)
			if code != st.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, st.code, stdout, stderr)
			}
			for _, want := range st.stdoutHas {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, st.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", st.stderrHas, stderr)
			}
		})
	}
	// A feedback line cut short (a write killed half-way) is skipped with a
	// warning; it used to fail every review, and the next add joined it.
	store := filepath.Join(root, ".relay", "feedback.jsonl")
	f, err := os.OpenFile(store, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"file": "cart/cart.go", "li`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if code, _, stderr := relay(t, "", "--repo", root, "review", "feedback", "add", "--file", "cart/cart.go", "--comment", "after the torn line", "--accepted"); code != 0 {
		t.Fatalf("feedback add after a torn line: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := relay(t, cartDiff, "--repo", root, "review", "--diff", "-")
	if code != 0 || !strings.Contains(stdout, "Is the discount threshold inclusive?") ||
		!strings.Contains(stderr, "feedback.jsonl: 1 damaged line(s) skipped (line 4: unexpected EOF") {
		t.Errorf("review over a torn feedback line: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "\n{\"file\":\"cart/cart.go\",\"comment\":\"after the torn line\"") {
		t.Errorf("the item added after a torn line does not start a line:\n%s", data)
	}

	code, stdout, stderr = relay(t, cartDiff, "--repo", root, "review", "--diff", "-", "--json", "--budget", "300")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var rc struct {
		Changed []struct {
			Name   string `json:"name"`
			Change string `json:"change"`
		} `json:"changed"`
		Blast    *struct{ Risk int } `json:"blast_radius"`
		Markdown string              `json:"markdown"`
		Tokens   int                 `json:"markdown_tokens"`
	}
	if err := json.Unmarshal([]byte(stdout), &rc); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	if len(rc.Changed) != 1 || rc.Changed[0].Name != "applyDiscount" || rc.Blast == nil || rc.Tokens > 330 || rc.Markdown == "" {
		t.Errorf("json review: %+v", rc)
	}
}

// TestReviewBudgetRepeatedFile is the probe of the issue: a 50 MB diff that
// lists one file 1,000 times, reviewed at --budget 200 (tokens, 4 bytes
// each), printed 129,903 bytes. The whole output now fits the budget and
// the file is listed once.
func TestReviewBudgetRepeatedFile(t *testing.T) {
	t.Parallel()
	root := retrievalRepo(t)
	// Each copy adds one 50 KB line (a minified bundle pasted in a comment).
	long := "+\t// " + strings.Repeat("x", 50<<10) + "\n"
	one := strings.Replace(cartDiff, "@@ -24,6 +24,6 @@", "@@ -24,6 +24,7 @@", 1) + long
	diff := strings.Repeat(one, 1000)
	if len(diff) < 50_000_000 {
		t.Fatalf("generated diff is %d bytes, want 50 MB", len(diff))
	}
	code, stdout, stderr := relay(t, diff, "--repo", root, "review", "--diff", "-", "--budget", "200")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(stdout) > 200*4 {
		t.Errorf("--budget 200 printed %d bytes, want at most 800:\n%s", len(stdout), stdout)
	}
	if n := strings.Count(stdout, "`cart/cart.go`"); n != 1 || !strings.Contains(stdout, "Files: `cart/cart.go` (modified, +2 −1)") {
		t.Errorf("cart/cart.go listed %d times, want once with its own counts:\n%s", n, stdout)
	}
}
