package repofs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// TestWalk: entries come sorted; SkipDirs, Python virtual environments,
// the state directory and ignored entries are left out; a symbolic link
// is handed over as a link (a link to a directory is not entered);
// SkipHidden and VisitIgnored do what they say.
func TestWalk(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, rel := range []string{
		".gitignore", ".github/ci.yml", "a.go", "b/c.md", "b/gen.out", "node_modules/x.js", "vendor/v.go",
		".git/HEAD", "env/pyvenv.cfg", "env/lib.py", "site-packages/s.py", "idx/retrieve.idx", "z/deep/x.txt",
	} {
		testutil.WriteFile(t, root, rel, "x\n")
	}
	testutil.WriteFile(t, root, ".gitignore", "*.out\n")
	if err := os.Symlink("b", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	walk := func(opts Options) []string {
		var got []string
		err := Walk(t.Context(), root, opts, func(e Entry) error {
			if e.Err != nil {
				t.Errorf("%s: %v", e.Rel, e.Err)
				return nil
			}
			s := e.Rel
			if e.D.IsDir() {
				s += "/"
			}
			if e.D.Type()&os.ModeSymlink != 0 {
				s += "@"
			}
			if e.Ignored() {
				s += " (ignored)"
			}
			got = append(got, s)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	for _, tc := range []struct {
		name string
		opts Options
		want []string
	}{
		{"default", Options{StateDir: filepath.Join(root, "idx")},
			[]string{".github/", ".github/ci.yml", ".gitignore", "a.go", "b/", "b/c.md", "link@", "z/", "z/deep/", "z/deep/x.txt"}},
		{"hidden skipped, ignored visited", Options{SkipHidden: true, VisitIgnored: true},
			[]string{".gitignore", "a.go", "b/", "b/c.md", "b/gen.out (ignored)", "idx/", "idx/retrieve.idx", "link@", "z/", "z/deep/", "z/deep/x.txt"}},
	} {
		if diff := cmp.Diff(tc.want, walk(tc.opts)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestWalkSkipDir: a visitor's fs.SkipDir skips a directory, fs.SkipAll
// ends the walk without an error, and a done context ends it with one.
func TestWalkSkipDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, rel := range []string{"a/x.go", "b/y.go", "c/z.go"} {
		testutil.WriteFile(t, root, rel, "x\n")
	}
	var got []string
	err := Walk(t.Context(), root, Options{}, func(e Entry) error {
		got = append(got, e.Rel)
		switch e.Rel {
		case "a":
			return filepath.SkipDir
		case "b/y.go":
			return filepath.SkipAll
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "b", "b/y.go"}, got); diff != "" {
		t.Errorf("visited (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := Walk(ctx, root, Options{}, func(Entry) error { return nil }); err != context.Canceled {
		t.Errorf("Walk with a done context = %v, want context.Canceled", err)
	}
	if err := Walk(t.Context(), filepath.Join(root, "missing"), Options{}, func(Entry) error { return nil }); err == nil {
		t.Error("Walk of a missing root: no error")
	}
}

// TestWalkUnreadableIgnoreFile: an ignore file that cannot be read (here a
// directory named .gitignore) is handed to the visitor and the walk goes on.
func TestWalkUnreadableIgnoreFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "sub/.gitignore/x", "x\n")
	testutil.WriteFile(t, root, "sub/a.md", "x\n")
	var errs, files []string
	err := Walk(t.Context(), root, Options{}, func(e Entry) error {
		switch {
		case e.Err != nil:
			errs = append(errs, e.Rel)
		case !e.D.IsDir():
			files = append(files, e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sub/.gitignore"}, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"sub/.gitignore/x", "sub/a.md"}, files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

// FuzzIgnores: any ignore file content parses, and matching any path
// against it neither panics nor depends on having asked before.
func FuzzIgnores(f *testing.F) {
	for _, tc := range ignoreCases {
		for _, body := range tc.files {
			f.Add(body, "a/b/c")
		}
	}
	f.Add("[\n\\\n!\n/**/\n**\n", "x/y")
	f.Fuzz(func(t *testing.T, body, rel string) {
		var ig Ignores
		ig.Add("", []byte(body))
		first := ig.Ignored(rel, false)
		var fresh Ignores
		fresh.Add(".", []byte(body))
		if got := fresh.Ignored(rel, false); got != first {
			t.Errorf("Ignored(%q) = %v, then %v", rel, first, got)
		}
		ig.Ignored(rel, true)
	})
}

// TestWalkIgnoredLater: Entry.Ignored gives the same answer asked after
// the walk, when ignore files beneath other directories (and deeper ones)
// have been read, as asked from the visitor.
func TestWalkIgnoredLater(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for rel, body := range map[string]string{
		".gitignore":       "*.gen\n",
		"a/.gitignore":     "*.md\n!keep.gen\n",
		"a/sub/.gitignore": "!*.md\n*.txt\n",
		"b/.gitignore":     "x.txt\n*.md\n",
		"a/x.md":           "", "a/keep.gen": "", "a/y.gen": "", "a/x.txt": "",
		"a/sub/x.md": "", "a/sub/x.txt": "", "b/x.md": "", "b/x.txt": "", "x.md": "", "x.txt": "", "z.gen": "",
	} {
		testutil.WriteFile(t, root, rel, body)
	}
	var entries []Entry
	var during []string
	err := Walk(t.Context(), root, Options{VisitIgnored: true}, func(e Entry) error {
		if e.Err != nil {
			t.Errorf("%s: %v", e.Rel, e.Err)
			return nil
		}
		entries = append(entries, e)
		if e.Ignored() {
			during = append(during, e.Rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var after []string
	for _, e := range entries {
		if e.Ignored() {
			after = append(after, e.Rel)
		}
	}
	want := []string{"a/sub/x.txt", "a/x.md", "a/y.gen", "b/x.md", "b/x.txt", "z.gen"}
	if diff := cmp.Diff(want, during); diff != "" {
		t.Errorf("ignored, asked from the visitor (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(during, after); diff != "" {
		t.Errorf("ignored, asked after the walk (-visitor +after):\n%s", diff)
	}
}
