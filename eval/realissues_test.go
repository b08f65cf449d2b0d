package eval

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve"
)

// retryPatch is a fix of storage/retry.go in retrieve/testdata/repo.txtar
// (computeDelay), with a changelog entry.
const retryPatch = `diff --git a/storage/retry.go b/storage/retry.go
--- a/storage/retry.go
+++ b/storage/retry.go
@@ -24,4 +24,4 @@ func RetryWithBackoff(attempts int, fn func() error) error {
 func computeDelay(i int) time.Duration {
-	base := 100 * time.Millisecond << i
+	base := 100 * time.Millisecond << min(i, 6)
 	return base + time.Duration(rand.Int63n(int64(base/2)))
 }
diff --git a/CHANGELOG.md b/CHANGELOG.md
--- a/CHANGELOG.md
+++ b/CHANGELOG.md
@@ -1 +1,2 @@
 # Changes
+- cap the retry delay
`

// realSet writes a real-issue set: the test repository as the base tree of
// two instances (branches of one bundle) — a noisy bug report fixed in
// computeDelay, and a fix that only adds a file (not scorable).
func realSet(t *testing.T) string {
	t.Helper()
	testutil.Need(t, "install git and tar", "git", "tar")
	repo := testutil.WriteTxtar(t, "../retrieve/testdata/repo.txtar")
	if err := os.WriteFile(filepath.Join(repo, "CHANGELOG.md"), []byte("# Changes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-q", "-m", "base")
	git("branch", "acme__shop-7")
	git("branch", "acme__shop-9")
	set := t.TempDir()
	git("bundle", "create", "-q", filepath.Join(set, "acme__shop.bundle"), "acme__shop-7", "acme__shop-9")
	problem := "Retries sleep for minutes after a few failures\n\nAfter 12 transient errors the client hangs. Version 2.3.1, see https://example.com/issues/7\n\n" +
		"```\npanic: sleep overflow\ngoroutine 1 [running]:\nexample.com/shop/storage.computeDelay(0xc)\n\t/src/storage/retry.go:25 +0x1d\n```\n"
	lines := []map[string]any{
		{"instance_id": "acme__shop-7", "repo": "acme/shop", "bundle": "acme__shop.bundle", "ref": "acme__shop-7",
			"problem_statement": problem, "gold_files": []string{"CHANGELOG.md", "storage/retry.go"}, "patch": retryPatch},
		{"instance_id": "acme__shop-9", "repo": "acme/shop", "bundle": "acme__shop.bundle", "ref": "acme__shop-9",
			"problem_statement": "Add a metrics endpoint", "gold_files": []string{"server/metrics.go"},
			"patch": "--- /dev/null\n+++ b/server/metrics.go\n@@ -0,0 +1 @@\n+package server\n"},
	}
	var b strings.Builder
	for _, l := range lines {
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(filepath.Join(set, "instances.jsonl"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return set
}

// TestRunRealIssues runs the real-issue loop on a synthetic set: the base
// tree is checked out from the bundle into the cache (and reused on a
// rerun), the changelog is no gold file, the gold function comes from the
// patch, the add-only fix is excluded, and the figures parse as a stats
// file. The cache folder is created when missing.
func TestRunRealIssues(t *testing.T) {
	t.Parallel()
	set := realSet(t)
	cache := filepath.Join(t.TempDir(), "not", "yet") // created by the run
	prepared := 0
	opts := RealOptions{Set: set, Cache: cache, Prepare: func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
		prepared++
		g := testutil.FakeIndex(t, root)
		_, err := retrieve.Build(ctx, root, g, retrieve.BuildOptions{})
		return g, func() error { return nil }, err
	}}
	rep, err := RunRealIssues(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	wantInst := []Instance{{ID: "acme__shop-7", Problem: rep.Instances[0].Problem, Repo: "acme/shop",
		GoldFiles: []string{"storage/retry.go"}, GoldFunctions: []string{"storage/retry.go:computeDelay"},
		GoldLines: map[string][]int{"storage/retry.go": {25}}}}
	if d := cmp.Diff(wantInst, rep.Instances); d != "" {
		t.Errorf("instances (-want +got):\n%s", d)
	}
	if len(rep.Excluded) != 1 || !strings.Contains(rep.Excluded[0], "acme__shop-9") {
		t.Errorf("excluded = %q, want acme__shop-9", rep.Excluded)
	}
	if prepared != 1 {
		t.Errorf("prepared %d checkouts, want 1 (the excluded instance is still checked out, but scored instances only once)", prepared)
	}
	var relay Summary
	for _, s := range rep.ByRepo {
		if s.Group == "shop" && s.Method == MethodRelay {
			relay = s
		}
	}
	if relay.Instances != 1 || relay.FileAll[1] != 100 || relay.FuncAny[5] != 100 {
		t.Errorf("shop/relay = %+v\n%s", relay, rep.Table())
	}
	fig := rep.Figures("test", true)
	if ch, err := CompareFigures(fig, fig); err != nil || len(ch.Worse)+len(ch.Better) != 0 {
		t.Errorf("figures do not compare with themselves: %+v, %v\n%s", ch, err, fig)
	}
	if !strings.Contains(fig, "shop/bm25-files") || !strings.Contains(fig, "1 instance(s) not scored") {
		t.Errorf("figures lack the per-repository rows or the excluded count:\n%s", fig)
	}

	// A rerun reuses the checkout (a file written into it stays) and
	// gives the same figures; --repo filters by short or full name.
	root, err := CheckoutRealIssue(t.Context(), set, cache, RealIssue{ID: "acme__shop-7", Bundle: "acme__shop.bundle", Ref: "acme__shop-7"})
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(root, "marker")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	opts.Repos = []string{"acme/shop"}
	again, err := RunRealIssues(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the rerun replaced the cached checkout: %v", err)
	}
	if ch, err := CompareFigures(rep.Figures("test", true), again.Figures("test", true)); err != nil || len(ch.Worse)+len(ch.Better) != 0 {
		t.Errorf("rerun figures differ: %+v, %v", ch, err)
	}
	opts.Repos = []string{"other"}
	if _, err := RunRealIssues(t.Context(), opts); err == nil || !strings.Contains(err.Error(), "no instance of repository other") {
		t.Errorf("unknown --repo: %v", err)
	}
}

// TestRealIssueCacheFollowsContent replaces a set's bundle under the same
// name with one whose branch moved to a new commit: the checkout must be
// the new tree, not the cached old one (the cache is keyed by the bundle's
// hash and the branch's commit, not by bundle name and instance id).
func TestRealIssueCacheFollowsContent(t *testing.T) {
	t.Parallel()
	set := realSet(t)
	cache := t.TempDir()
	ri := RealIssue{ID: "acme__shop-7", Bundle: "acme__shop.bundle", Ref: "acme__shop-7"}
	first, err := CheckoutRealIssue(t.Context(), set, cache, ri)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(first, "storage", "retry.go")); err != nil {
		t.Fatalf("first checkout: %v", err)
	}

	// Move the branch: a clone of the bundle gets a commit that removes
	// storage/retry.go and adds NEWS, and its bundle replaces the old one.
	work := filepath.Join(t.TempDir(), "work")
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com", "GIT_CONFIG_GLOBAL=/dev/null")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(set, "clone", "-q", "-b", ri.Ref, filepath.Join(set, ri.Bundle), work)
	git(work, "rm", "-q", "storage/retry.go")
	if err := os.WriteFile(filepath.Join(work, "NEWS"), []byte("moved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(work, "add", "NEWS")
	git(work, "commit", "-q", "-m", "move the branch")
	git(work, "bundle", "create", "-q", filepath.Join(set, ri.Bundle), ri.Ref)

	second, err := CheckoutRealIssue(t.Context(), set, cache, ri)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(second, "NEWS")); err != nil {
		t.Errorf("after the branch moved the checkout %s is still the old tree (no NEWS): %v", second, err)
	}
	if _, err := os.Stat(filepath.Join(second, "storage", "retry.go")); err == nil {
		t.Errorf("after the branch moved the checkout %s still holds storage/retry.go", second)
	}
	// The old tree stays usable for the old bundle's commit.
	if _, err := os.Stat(filepath.Join(first, "storage", "retry.go")); err != nil {
		t.Errorf("the old checkout was changed: %v", err)
	}
}

func TestLoadRealIssuesErrors(t *testing.T) {
	ok := `{"instance_id":"a-1","repo":"o/a","bundle":"o__a.bundle","ref":"a-1","problem_statement":"x","gold_files":["a.go"],"patch":"p"}`
	for _, tt := range []struct{ in, want string }{
		{`{"instance_id":"../x","bundle":"b","ref":"r","problem_statement":"x","patch":"p"}`, "plain directory name"},
		{`{"instance_id":"a","bundle":"../b","ref":"r","problem_statement":"x","patch":"p"}`, "bundle file name"},
		{`{"instance_id":"a","bundle":"b","ref":"--upload-pack=x","problem_statement":"x","patch":"p"}`, "bundle file name"},
		{`{"instance_id":"a","bundle":"b","ref":"r","problem_statement":" ","patch":"p"}`, "problem_statement is empty"},
		{`{"instance_id":"a","bundle":"b","ref":"r","problem_statement":"x"}`, "patch is empty"},
		{ok + "\n" + ok, "repeats"},
		{"{", "line 1"},
		{"", "no instances"},
	} {
		if _, err := LoadRealIssues(strings.NewReader(tt.in)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("LoadRealIssues(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	if _, err := CheckoutRealIssue(t.Context(), t.TempDir(), t.TempDir(), RealIssue{ID: "a-1", Bundle: "missing.bundle", Ref: "a-1"}); err == nil || !strings.Contains(err.Error(), "not in the set's folder") {
		t.Errorf("missing bundle: %v", err)
	}
}
