package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIgnores checks the .gitignore semantics the scan applies: root and
// nested files, anchoring, directory-only patterns, "**", negation, and
// that nothing inside an ignored directory comes back.
func TestIgnores(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		".gitignore":         "# comment\n\ndist/\n/build\n*.gen.js\n!keep.gen.js\n**/cache/**\nout\n!dist/keep.js\n",
		"pkg/.gitignore":     "*.snap\n!important.snap\nlocal/\n",
		".git/info/exclude":  "secret.js\n",
		"pkg/sub/.gitignore": "!x.gen.js\n",
	}
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rf, err := openRepoFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	var ig ignores
	for _, l := range [][2]string{{".", ".git/info/exclude"}, {".", ".gitignore"}, {"pkg", "pkg/.gitignore"}, {"pkg/sub", "pkg/sub/.gitignore"}, {"none", "none/.gitignore"}} {
		if err := ig.load(rf, l[0], l[1]); err != nil {
			t.Fatalf("load %s: %v", l[1], err)
		}
	}
	// In walk order: a directory before what it holds.
	tests := []struct {
		rel   string
		dir   bool
		want  bool
		about string
	}{
		{"dist", true, true, "directory pattern"},
		{"dist/keep.js", false, true, "! cannot re-include inside an ignored directory"},
		{"src/dist", false, false, "dist/ matches directories only"},
		{"src/dist", true, true, "unanchored directory pattern at any depth"},
		{"build", true, true, "anchored"},
		{"src/build", true, false, "anchored: not below the root"},
		{"src/a.gen.js", false, true, "glob at any depth"},
		{"src/keep.gen.js", false, false, "negated"},
		{"a/b/cache", true, false, "**/cache/** matches what the directory holds, not the directory itself (as git)"},
		{"a/b/cache/x.js", false, true, "**/cache/**"},
		{"out", false, true, "name matches files too"},
		{"secret.js", false, true, ".git/info/exclude"},
		{"pkg/a.snap", false, true, "nested .gitignore"},
		{"pkg/important.snap", false, false, "nested negation"},
		{"a.snap", false, false, "nested patterns stay below their directory"},
		{"pkg/local", true, true, "nested directory pattern"},
		{"pkg/sub/x.gen.js", false, false, "deeper negation wins"},
		{"pkg/sub/y.gen.js", false, true, "root pattern applies below"},
		{"src/main.js", false, false, "not ignored"},
	}
	var got, want []string
	for _, tt := range tests {
		got = append(got, tt.about+": "+tt.rel+" "+map[bool]string{true: "ignored", false: "kept"}[ig.ignored(tt.rel, tt.dir)])
		want = append(want, tt.about+": "+tt.rel+" "+map[bool]string{true: "ignored", false: "kept"}[tt.want])
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ignored (-want +got):\n%s", diff)
	}
}

// TestIgnoresWorktree: .git is a file in a linked worktree; reading
// .git/info/exclude through it is no error.
func TestIgnoresWorktree(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, ".git"), []byte("gitdir: /elsewhere\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rf, err := openRepoFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	defer rf.close()
	var ig ignores
	if err := ig.load(rf, ".", ".git/info/exclude"); err != nil {
		t.Errorf("load through a .git file: %v", err)
	}
	if ig.ignored(strings.Repeat("a/", 3)+"b.py", false) {
		t.Error("nothing loaded, yet a file is ignored")
	}
}
