package main

import (
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// writeRepo writes files (slash-separated path → content) into a fresh
// temporary directory and returns it.
func writeRepo(t testing.TB, files map[string]string) string {
	t.Helper()
	repo := t.TempDir()
	for rel, data := range files {
		testutil.WriteFile(t, repo, rel, data)
	}
	return repo
}

// cliWant is a relay command run with --repo and a text its output must
// contain.
type cliWant struct {
	args []string
	want string
}

// langRun is what checkLanguage runs on a small repository of one
// language: relay index, then each graph command, then (when set) a review
// of diff and an offline scope of issue.
type langRun struct {
	repo    string
	indexed []string  // texts relay index must print
	graph   []cliWant // graph and tool commands
	diff    string    // unified diff for relay review --diff -; "" skips the review
	review  []string  // texts the review must contain
	issue   string    // issue text for the offline relay scope; "" skips the scope
	scope   []string  // texts the scope report must contain
}

// checkLanguage indexes r.repo and checks what relay answers on it.
func checkLanguage(t *testing.T, r langRun) {
	t.Helper()
	code, stdout, stderr := relay(t, "", "index", "--repo", r.repo)
	if code != 0 {
		t.Fatalf("relay index = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range r.indexed {
		if !strings.Contains(stdout, want) {
			t.Fatalf("relay index lacks %q:\n%s\n%s", want, stdout, stderr)
		}
	}
	for _, tt := range r.graph {
		code, stdout, stderr := relay(t, "", append(tt.args, "--repo", r.repo)...)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("relay %s = %d, want %q in:\n%s\n%s", strings.Join(tt.args, " "), code, tt.want, stdout, stderr)
		}
	}
	if r.diff != "" {
		code, stdout, stderr := relay(t, r.diff, "--repo", r.repo, "review", "--diff", "-")
		if code != 0 {
			t.Fatalf("relay review = %d:\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range r.review {
			if !strings.Contains(stdout, want) {
				t.Errorf("review lacks %q:\n%s", want, stdout)
			}
		}
	}
	if r.issue != "" {
		// Offline scope (no model) ranks the symbols the issue is about.
		code, stdout, stderr := relay(t, "", "scope", "--repo", r.repo, r.issue)
		if code != 0 {
			t.Fatalf("relay scope = %d:\n%s\n%s", code, stdout, stderr)
		}
		for _, want := range r.scope {
			if !strings.Contains(stdout, want) {
				t.Errorf("offline scope lacks %q:\n%.3000s", want, stdout)
			}
		}
	}
}
