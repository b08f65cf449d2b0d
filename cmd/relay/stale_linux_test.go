//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestSearchStaleAfterFailedUpdate reproduces issue 18's probe end to end:
// the state directory (search index) on a full file system, the graph
// elsewhere. `relay index` after an edit updates the graph and fails on
// the search index; `relay search` must then refuse the old index (its
// line numbers are the old file's), saying it is stale and to run `relay
// index`; with room again, `relay index` brings it up to date.
func TestSearchStaleAfterFailedUpdate(t *testing.T) {
	t.Parallel()
	state := filepath.Join(testutil.SmallFS(t, "1m"), "state")
	store := filepath.Join(t.TempDir(), "store")
	repo := tinyRepo(t)
	flags := []string{"--repo", repo, "--store", store, "--state", state}
	if code, _, stderr := relay(t, "", append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	p := filepath.Join(repo, "greet", "greet.go")
	src, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	moved := strings.Replace(string(src), "// Twice greets twice.", strings.Repeat("// padding\n", 20)+"// Twice greets twice.", 1)
	if err := os.WriteFile(p, []byte(moved), 0o644); err != nil {
		t.Fatal(err)
	}
	fill := testutil.FillFS(t, state)
	if code, stdout, stderr := relay(t, "", append([]string{"index"}, flags...)...); code == 0 {
		t.Fatalf("index on a full state directory succeeded:\n%s%s", stdout, stderr)
	}
	code, stdout, stderr := relay(t, "", append([]string{"search", "Twice"}, flags...)...)
	if code == 0 || !strings.Contains(stderr, "stale") || !strings.Contains(stderr, "run `relay index`") {
		t.Errorf("search after a failed update = %d, want a refusal saying the index is stale and to run relay index:\n%s%s", code, stdout, stderr)
	}

	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := relay(t, "", append([]string{"index"}, flags...)...); code != 0 {
		t.Fatalf("index with room again: %s", stderr)
	}
	code, stdout, stderr = relay(t, "", append([]string{"search", "Twice"}, flags...)...)
	if code != 0 || !strings.Contains(stdout, "greet/greet.go:29") {
		t.Errorf("search after the update = %d, want Twice at its new line 29:\n%s%s", code, stdout, stderr)
	}
}
