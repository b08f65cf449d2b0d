package eval

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"
)

func TestGoldLines(t *testing.T) {
	t.Parallel()
	patch := `diff --git a/src/a.js b/src/a.js
--- a/src/a.js
+++ b/src/a.js
@@ -1,3 +1,4 @@
+// header
 one
 two
 three
@@ -10,4 +11,4 @@ function f() {
 ten
-eleven
+ELEVEN
 twelve
 thirteen
@@ -20,2 +21,3 @@
 twenty
+inserted
 twentyone
diff --git a/test/a.test.js b/test/a.test.js
--- a/test/a.test.js
+++ b/test/a.test.js
@@ -1 +1 @@
-x
+y
diff --git a/src/new.js b/src/new.js
new file mode 100644
--- /dev/null
+++ b/src/new.js
@@ -0,0 +1 @@
+z
`
	diffs, err := udiff.Parse(strings.NewReader(patch))
	if err != nil {
		t.Fatal(err)
	}
	got := GoldLines(diffs, []string{"src/a.js", "src/new.js"})
	want := map[string][]int{"src/a.js": {1, 11, 20}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("GoldLines (-want +got):\n%s", diff)
	}
}

func TestScoreLines(t *testing.T) {
	t.Parallel()
	in := Instance{ID: "x", GoldFiles: []string{"a.go"}, GoldLines: map[string][]int{"a.go": {10, 60, 150}}}
	p := Prediction{Files: []string{"a.go"}, Spans: []retrieve.Span{
		{Path: "b.go", Start: 1, End: 40},
		{Path: "a.go", Start: 5, End: 14},    // holds 10: shown lines 41-50
		{Path: "a.go", Start: 55, End: 74},   // holds 60 at shown line 56
		{Path: "a.go", Start: 140, End: 300}, // holds 150 at shown line 81
	}}
	r := Score(in, p)
	want := map[int]float64{50: 1.0 / 3, 100: 1, 200: 1}
	if !r.HasLines || cmp.Diff(want, r.LineRecall) != "" {
		t.Errorf("LineRecall = %v (has %v), want %v", r.LineRecall, r.HasLines, want)
	}
	if r.LineEff != 3.0/100 {
		t.Errorf("LineEff = %v, want 0.03", r.LineEff)
	}
	s := Summarize("relay", []InstanceResult{r, Score(Instance{ID: "y", GoldFiles: []string{"a.go"}}, p)})
	if s.LineScored != 1 || s.LineRecall[50] != 33.3 || s.LineEff != 3 {
		t.Errorf("summary: %d scored, recall@50 %v, eff %v", s.LineScored, s.LineRecall[50], s.LineEff)
	}
	if table := (Report{Summaries: []Summary{s}}).Table(); !strings.Contains(table, "ln.r100") || !strings.Contains(table, "33.3") {
		t.Errorf("table lacks the line columns:\n%s", table)
	}
}

func TestWholeFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "a.go", strings.Repeat("x\n", 30))
	testutil.WriteFile(t, root, "b.go", strings.Repeat("y\n", 50)+"no newline")
	got := wholeFiles(root, []string{"a.go", "missing.go", "b.go"}, 60)
	want := []retrieve.Span{{Path: "a.go", Start: 1, End: 30}, {Path: "b.go", Start: 1, End: 30}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wholeFiles (-want +got):\n%s", diff)
	}
}
