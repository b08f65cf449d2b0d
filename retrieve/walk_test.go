package retrieve

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// TestBuildHonoursGitignore: the search index leaves out what git ignores,
// with git's semantics: "**/" in the middle of a pattern, nested
// .gitignore files, negations and .git/info/exclude.
func TestBuildHonoursGitignore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for rel, content := range map[string]string{
		".gitignore":          "docs/**/draft.md\n*.log.md\n!keep.log.md\n",
		".git/info/exclude":   "local.md\n",
		"docs/guide.md":       "# Guide\n",
		"docs/draft.md":       "# Draft at the top\n",
		"docs/a/b/draft.md":   "# Deep draft\n",
		"docs/a/notes.md":     "# Notes\n",
		"run.log.md":          "# Log\n",
		"keep.log.md":         "# Kept log\n",
		"local.md":            "# Local\n",
		"pkg/.gitignore":      "gen/\n!/keep.md\n",
		"pkg/gen/out.md":      "# Generated\n",
		"pkg/keep.md":         "# Kept\n",
		"pkg/sub/gen/keep.md": "# Generated too\n",
	} {
		testutil.WriteFile(t, root, rel, content)
	}
	got, err := walkFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "docs/a/notes.md", "docs/guide.md", "keep.log.md", "pkg/.gitignore", "pkg/keep.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walkFiles (-want +got):\n%s", diff)
	}
	bs, err := Build(t.Context(), root, nil, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if bs.Files != len(want) {
		t.Errorf("Build indexed %d files, want %d (%v)", bs.Files, len(want), want)
	}
}

// BenchmarkWalkGOROOT walks the Go standard library's source tree as
// Build does (go test ./retrieve -run '^$' -bench WalkGOROOT).
func BenchmarkWalkGOROOT(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	for b.Loop() {
		paths, _, err := walkTree(root, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(paths)), "files")
	}
}
