package review

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/udiff"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
)

func loadDiff(t *testing.T, name string) []udiff.FileDiff {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := udiff.Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func loadFeedback(t *testing.T) []Feedback {
	t.Helper()
	st := OpenFeedback(t.TempDir())
	st.now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	f, err := os.Open("testdata/feedback.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := st.Import(f); err != nil {
		t.Fatal(err)
	}
	items, skipped, err := st.All()
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	return items
}

func TestReview(t *testing.T) {
	t.Parallel()
	_, g, s := testRepo(t)
	diffs := loadDiff(t, "change.diff")
	fb := loadFeedback(t)
	for _, depth := range []Depth{DepthFast, DepthStandard, DepthDeep} {
		t.Run(string(depth), func(t *testing.T) {
			rc, err := Build(t.Context(), g, diffs, Options{Depth: depth, Searcher: s, Feedback: fb})
			if err != nil {
				t.Fatal(err)
			}
			var changed []string
			for _, c := range rc.Changed {
				changed = append(changed, c.Change+" "+c.Name+" "+lineRanges(c.Lines))
			}
			want := []string{"modified computeDelay lines 25-26", "deleted Delete lines 26-28"}
			if diff := cmp.Diff(want, changed); diff != "" {
				t.Errorf("changed (-want +got):\n%s", diff)
			}
			var callers []string
			for _, c := range rc.Callers {
				callers = append(callers, c.Name)
			}
			wantCallers := []string{"RetryWithBackoff", "Put"}
			if depth == DepthFast {
				wantCallers = wantCallers[:1]
			}
			if diff := cmp.Diff(wantCallers, callers); diff != "" {
				t.Errorf("callers (-want +got):\n%s", diff)
			}
			// Callers of computeDelay: RetryWithBackoff (1), Put (2), then
			// handleUpload and TestPutGet (3), ServeHTTP (4).
			transitive := map[Depth]int{DepthFast: 1, DepthStandard: 3, DepthDeep: 4}[depth]
			if rc.Blast == nil || rc.Blast.Direct != 1 || rc.Blast.Transitive != transitive || (len(rc.Blast.Tests) == 1) != (depth != DepthFast) {
				t.Errorf("blast = %+v", rc.Blast)
			}
			if depth == DepthDeep {
				for _, n := range rc.Neighbours {
					if n.Name == "computeDelay" || n.Name == "RetryWithBackoff" || n.Name == "Put" {
						t.Errorf("neighbour %s is already listed", n.Name)
					}
				}
				if len(rc.Neighbours) == 0 {
					t.Error("deep review found no neighbours")
				}
			} else if len(rc.Neighbours) != 0 {
				t.Errorf("%s review has neighbours", depth)
			}
			testutil.Golden(t, string(depth)+".md", rc.Markdown(0))
			if _, err := json.Marshal(rc); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestReviewBudget(t *testing.T) {
	t.Parallel()
	_, g, _ := testRepo(t)
	rc, err := Build(t.Context(), g, loadDiff(t, "change.diff"), Options{Depth: DepthStandard, Feedback: loadFeedback(t)})
	if err != nil {
		t.Fatal(err)
	}
	full := rc.Markdown(0)
	for _, budget := range []int{180, 250, 350} {
		md := rc.Markdown(budget)
		if got := EstimateTokens(md); got > budget {
			t.Errorf("budget %d: %d tokens:\n%s", budget, got, md)
		}
		if md != full && !strings.Contains(strings.ToLower(md), "omitted for the token budget") {
			t.Errorf("budget %d: cut without saying so:\n%s", budget, md)
		}
		if !strings.Contains(md, "Blast radius: risk") || !strings.Contains(md, "computeDelay") {
			t.Errorf("budget %d: blast radius or the changed symbol missing:\n%s", budget, md)
		}
	}
	if EstimateTokens(full) > 700 {
		t.Errorf("default rendering is %d tokens, want a compact context", EstimateTokens(full))
	}
}

// TestReviewBudgetBoundsEverything: the budget holds for every line,
// including the file list and the notes of a diff that repeats one file
// 1,000 times or lists 1,000 files, down to budgets too small for the
// title; a repeated file is listed once.
func TestReviewBudgetBoundsEverything(t *testing.T) {
	t.Parallel()
	_, g, _ := testRepo(t)
	one := loadDiff(t, "change.diff")
	var repeated, many []udiff.FileDiff
	for i := range 1000 {
		repeated = append(repeated, one...)
		f := one[0]
		f.OldPath, f.NewPath = fmt.Sprintf("gen/f%04d.go", i), fmt.Sprintf("gen/f%04d.go", i)
		many = append(many, f)
	}
	for name, diffs := range map[string][]udiff.FileDiff{"one file 1,000 times": repeated, "1,000 files": many} {
		rc, err := Build(t.Context(), g, diffs, Options{Depth: DepthStandard, Feedback: loadFeedback(t)})
		if err != nil {
			t.Fatal(err)
		}
		full := rc.Markdown(1 << 30)
		for _, budget := range []int{1, 5, 50, MinBudget, 200, 1200} {
			md := rc.Markdown(budget)
			if len(md) > budget*4 || EstimateTokens(md) > budget {
				t.Errorf("%s, budget %d: %d bytes (%d tokens):\n%s", name, budget, len(md), EstimateTokens(md), md)
			}
			if budget >= MinBudget && md != full && !strings.Contains(md, "Omitted for the token budget") {
				t.Errorf("%s, budget %d: cut without saying so:\n%s", name, budget, md)
			}
			if budget >= 200 && !strings.Contains(md, "Files: `") {
				t.Errorf("%s, budget %d: no file listed:\n%s", name, budget, md)
			}
		}
		if name == "one file 1,000 times" {
			if len(rc.Files) != len(one) {
				t.Errorf("%d files in the context, want %d (each once)", len(rc.Files), len(one))
			}
			md := rc.Markdown(200)
			files, _, _ := strings.Cut(md[strings.Index(md, "Files: "):], "\n")
			if strings.Count(files, "storage/retry.go") != 1 || !strings.Contains(files, "`storage/retry.go` (modified, +2 −1)") {
				t.Errorf("storage/retry.go not listed once with its own counts:\n%s", md)
			}
		} else if md := rc.Markdown(200); !strings.Contains(md, "more file(s)") {
			t.Errorf("1,000 files without saying how many were left out:\n%s", md)
		}
	}
}

func TestFeedbackStore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := OpenFeedback(dir)
	st.now = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }
	if items, _, err := st.All(); err != nil || len(items) != 0 {
		t.Fatalf("empty store: %v %v", items, err)
	}
	in := Feedback{File: "a/b.go", Line: 3, Comment: "check the error", Accepted: true}
	if err := st.Add(in); err != nil {
		t.Fatal(err)
	}
	n, err := st.Import(strings.NewReader(`{"file": "x.py", "comment": "nit", "accepted": false}` + "\n\n"))
	if err != nil || n != 1 {
		t.Fatalf("import: %d %v", n, err)
	}
	got, _, err := st.All()
	if err != nil {
		t.Fatal(err)
	}
	when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	want := []Feedback{
		{File: "a/b.go", Line: 3, Comment: "check the error", Accepted: true, Language: "go", Created: when},
		{File: "x.py", Comment: "nit", Language: "python", Created: when},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	bad := []struct{ in, want string }{
		{`{"file": "x", "comment": "c", "accepted": true}` + "\n" + `{"file": "", "comment": "c"}`, "line 2: feedback needs a file"},
		{`{"file": "x", "comment": "c", "acepted": true}`, `line 1: json: unknown field "acepted"`},
		{`not json`, "line 1:"},
		{``, "no feedback lines"},
		{`{"file": "x", "line": -1, "comment": "c"}`, "line 1: feedback line -1"},
		{`{"file": "/etc/passwd", "comment": "c"}`, `line 1: feedback file "/etc/passwd" is absolute`},
		{`{"file": "a/../../x.go", "comment": "c"}`, `line 1: feedback file "a/../../x.go" leaves the repository`},
		{`{"file": "..", "comment": "c"}`, `line 1: feedback file ".." leaves the repository`},
	}
	for _, b := range bad {
		if _, err := st.Import(strings.NewReader(b.in)); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("import %q: err = %v, want %q", b.in, err, b.want)
		}
	}
	if got2, _, _ := st.All(); len(got2) != 2 {
		t.Errorf("a failed import wrote %d items", len(got2)-2)
	}
}

func TestSimilarFeedback(t *testing.T) {
	t.Parallel()
	items := []Feedback{
		{File: "storage/retry.go", Comment: "cap the backoff delay", Accepted: true},
		{File: "scripts/retry.py", Comment: "cap the backoff delay", Accepted: true},
		{File: "notes/retry", Comment: "cap the backoff delay", Accepted: true},
		{File: "ui/app.ts", Comment: "unrelated styling nit", Accepted: false},
		{File: "storage/retry.go", Comment: "rename base delay variable", Accepted: false},
	}
	help, nohelp := SimilarFeedback(items, "base := 50 * time.Millisecond // backoff delay cap\nstorage/retry.go", []string{"go"}, 5, 3)
	var got []string
	for _, h := range help {
		got = append(got, h.File)
	}
	// Same comment: the Go item first (×0.85), then the file of unknown
	// language (neutral), then Python (×1.15).
	want := []string{"storage/retry.go", "notes/retry", "scripts/retry.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("helpful order (-want +got):\n%s", diff)
	}
	if len(nohelp) != 1 || nohelp[0].Comment != "rename base delay variable" {
		t.Errorf("not helpful = %+v (the unrelated nit shares no token and must not appear)", nohelp)
	}
	if h, n := SimilarFeedback(nil, "x", nil, 5, 3); h != nil || n != nil {
		t.Error("empty store returned items")
	}
}

// TestReviewInnermost: a class whose changed lines all lie in one of its
// methods is not listed (the method is); a change in the class body
// outside methods lists the class.
func TestReviewInnermost(t *testing.T) {
	t.Parallel()
	cls := graphdb.Node{ID: "py:m.C", Kind: graphdb.KindType, SubKind: "class", Name: "C", QName: "m.C", File: "m.py", Loc: "m.py:C", StartLine: 1, EndLine: 10}
	meth := graphdb.Node{ID: "py:m.C.f", Kind: graphdb.KindMember, SubKind: "method", Name: "f", QName: "m.C.f", File: "m.py", Loc: "m.py:C.f", StartLine: 3, EndLine: 5}
	g := testutil.Graph(t, nil, []graphdb.Node{cls, meth}, nil)
	for _, tc := range []struct {
		line int
		want []string
	}{
		{4, []string{"f"}},
		{8, []string{"C"}},
	} {
		d := []udiff.FileDiff{{OldPath: "m.py", NewPath: "m.py", Status: udiff.StatusModified, Hunks: []udiff.Hunk{{OldStart: tc.line, OldLines: 1, NewStart: tc.line, NewLines: 1, Added: []int{tc.line}, Deleted: []int{tc.line}}}}}
		rc, err := Build(t.Context(), g, d, Options{Depth: DepthFast})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, c := range rc.Changed {
			got = append(got, c.Name)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("line %d: changed (-want +got):\n%s", tc.line, diff)
		}
	}
}

// testRepo materialises the retrieve package's test repository, indexes it
// with the fake graph and opens a searcher over it.
func testRepo(t *testing.T) (string, *memstore.Store, *retrieve.Searcher) {
	t.Helper()
	root := testutil.WriteTxtar(t, "../retrieve/testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	if _, err := retrieve.Build(t.Context(), root, g, retrieve.BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := retrieve.Open(root, g, retrieve.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return root, g, s
}

// TestFeedbackStoreTornLine: a store whose last line was cut short (a write
// killed half-way) still serves its other items, says which line it
// skipped, and the next Add starts on a line of its own instead of joining
// the torn one (which lost the new item with it).
func TestFeedbackStoreTornLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, content string
		wantSkipped   []string
	}{
		{"torn last line", `{"file": "a.go", "comment": "keep", "accepted": true}` + "\n" + `{"file": "b.go", "li`,
			[]string{`line 2: unexpected EOF (want {"file": …, "line": N, "comment": …, "accepted": true|false})`}},
		{"hand-edited middle line", `{"file": "a.go", "comment": "keep", "accepted": true}` + "\nnot json\n",
			[]string{`line 2: invalid character 'o' in literal null (expecting 'u') (want {"file": …, "line": N, "comment": …, "accepted": true|false})`}},
		{"path outside the repository", `{"file": "a.go", "comment": "keep", "accepted": true}` + "\n" + `{"file": "/etc/passwd", "comment": "c"}` + "\n",
			[]string{`line 2: feedback file "/etc/passwd" is absolute: give the path relative to the repository root (e.g. internal/auth/token.go)`}},
		{"no newline after a whole line", `{"file": "a.go", "comment": "keep", "accepted": true}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, FeedbackFile), []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			st := OpenFeedback(dir)
			when := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
			st.now = func() time.Time { return when }
			items, skipped, err := st.All()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			if len(items) != 1 || items[0].Comment != "keep" {
				t.Errorf("items = %+v, want the one whole line", items)
			}
			if err := st.Add(Feedback{File: "c.go", Comment: "new", Accepted: true}); err != nil {
				t.Fatal(err)
			}
			items, skipped2, err := st.All()
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSkipped, skipped2); diff != "" {
				t.Errorf("after Add, skipped (-want +got):\n%s", diff)
			}
			want := []string{"keep", "new"}
			var got []string
			for _, it := range items {
				got = append(got, it.Comment)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("after Add, comments (-want +got):\n%s", diff)
			}
		})
	}
}
