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

// TestSearchFindsTypeScriptModules: .mts and .cts files (TypeScript's
// ES-module and CommonJS variants, which the indexer reads) are searched,
// as TypeScript; JavaScript keeps its own language name.
func TestSearchFindsTypeScriptModules(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for rel, content := range map[string]string{
		"web/esm.mts": "// Polish the widgets.\nexport function frobnicateWidgets(n: number): number {\n\treturn n\n}\n",
		"web/cjs.cts": "// Count the gadgets.\nexport function frobnicateGadgets(n: number): number {\n\treturn n\n}\n",
		"web/app.js":  "// Paint the gizmos.\nexport function frobnicateGizmos(n) {\n\treturn n\n}\n",
	} {
		testutil.WriteFile(t, root, rel, content)
	}
	got, err := walkFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"web/app.js", "web/cjs.cts", "web/esm.mts"}, got); diff != "" {
		t.Errorf("walkFiles (-want +got):\n%s", diff)
	}
	if _, err := Build(t.Context(), root, nil, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ lang, query, want string }{
		{"typescript", "polish widgets", "web/esm.mts"},
		{"typescript", "count gadgets", "web/cjs.cts"},
		{"javascript", "paint gizmos", "web/app.js"},
	} {
		res, err := s.Search(t.Context(), tc.query, SearchOptions{Filter: Filter{Languages: []string{tc.lang}}, NoFastPath: true})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Path != tc.want {
			t.Errorf("search %q in %s: hits %v, want %s first", tc.query, tc.lang, locs(res.Hits, 3), tc.want)
		}
	}
}
