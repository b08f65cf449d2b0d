package retrieve

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tools"
)

func TestSearchTool(t *testing.T) {
	t.Parallel()
	_, _, s := testRepo(t, nil)
	tool := tools.NewSearch(s)
	if tool.Name() != "search" || !tools.IsReadOnly(tool) || !strings.Contains(tool.Description(), "Example:") {
		t.Fatalf("tool identity: %s read-only=%v", tool.Name(), tools.IsReadOnly(tool))
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Schema(), &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	tests := []struct {
		name    string
		args    string
		isError bool
		want    []string // substrings of the content
		files   []string
	}{
		{"ranked", `{"query": "retry with exponential backoff", "limit": 2}`, false,
			[]string{"1. storage/retry.go:", "storage/retry.go:12: func RetryWithBackoff", "BM25 rank 1"}, []string{"storage/retry.go"}},
		{"filter", `{"query": "blob", "language": "markdown", "limit": 1}`, false, []string{"README.md:1"}, []string{"README.md"}},
		{"expand", `{"query": "RetryWithBackoff", "limit": 1, "expand": true}`, false, []string{"called by: example.com/m/storage.BlobStore.Put"}, []string{"storage/retry.go"}},
		{"bad kind", `{"query": "x", "kind": "klass"}`, true, []string{"unknown kind"}, nil},
		{"empty", `{"query": " "}`, true, []string{"non-empty query"}, nil},
		{"bad json", `{"query": 3}`, true, []string{"invalid arguments"}, nil},
		{"nothing", `{"query": "zzzqqq"}`, true, []string{"no results"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := tool.Call(t.Context(), json.RawMessage(tt.args))
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.isError, res.Content)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Content, w) {
					t.Errorf("content lacks %q:\n%s", w, res.Content)
				}
			}
			if tt.files != nil {
				m := res.Meta.(tools.SearchMeta)
				if diff := cmp.Diff(tt.files, m.Files[:len(tt.files)]); diff != "" {
					t.Errorf("meta files (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestSearchToolSnippetsStayInRoot: snippets are read from the checkout
// when asked for; a file replaced since indexing by a symlink out of the
// repository must not show what it points to.
func TestSearchToolSnippetsStayInRoot(t *testing.T) {
	t.Parallel()
	root, _, s := testRepo(t, nil)
	outside := t.TempDir()
	secret := filepath.Join(outside, "retry.go")
	if err := os.WriteFile(secret, []byte(strings.Repeat("SECRET LINE outside the repository\n", 40)), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(root, "storage", "retry.go")
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, p); err != nil {
		t.Fatal(err)
	}
	res, err := tools.NewSearch(s).Call(t.Context(), json.RawMessage(`{"query": "retry with exponential backoff", "limit": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Content, "SECRET") {
		t.Fatalf("a snippet shows a file outside the repository:\n%s", res.Content)
	}
}
