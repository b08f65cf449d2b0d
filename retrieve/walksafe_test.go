package retrieve

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// TestLinksOutsideRepositoryNotIndexed: a file or a directory that is a
// symbolic link to a place outside the repository is not read into the
// search index and is noted; so are link loops. A FIFO is never opened.
func TestLinksOutsideRepositoryNotIndexed(t *testing.T) {
	t.Parallel()
	out := t.TempDir()
	root := t.TempDir()
	link := func(target, rel string) {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(rel))); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, out, "secret.go", "package p\n\n// Zanzibar is outside the repository.\nfunc Zanzibar() {}\n")
	testutil.WriteFile(t, out, "dir/notes.md", "# Zanzibar\n\nOutside the repository.\n")
	testutil.WriteFile(t, root, "a.go", "package p\n\n// Invoice rounds to cents.\nfunc Invoice() {}\n")
	testutil.WriteFile(t, root, "docs/guide.md", "# Guide\n\nInvoices are rounded.\n")
	link(filepath.Join(out, "secret.go"), "secret.go")
	link(filepath.Join(out, "dir"), "external")
	link(filepath.Join(out, "secret.go"), "docs/secret.bin") // no known language: not noted
	link("loop.md", "loop.md")
	link("a.go", "inside.go") // inside: skipped silently, as before
	if err := syscall.Mkfifo(filepath.Join(root, "docs", "fifo.md"), 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	bs, err := Build(t.Context(), root, nil, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"external: links outside the repository",
		"loop.md: symbolic link loop",
		"secret.go: links outside the repository",
	}
	if diff := cmp.Diff(want, bs.Skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
	if bs.Files != 2 {
		t.Errorf("indexed %d files, want a.go and docs/guide.md", bs.Files)
	}
	s, err := Open(root, nil, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(t.Context(), "Zanzibar", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range res.Hits {
		t.Errorf("a search finds text from outside the repository: %s", h.Path)
	}
}

// TestWalkNotesLongPaths: a directory whose path is too long to open is
// noted by its repository-relative path and the walk goes on.
func TestWalkNotesLongPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.md"), []byte("# A\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for i := range 20 { // 20 × 241 bytes: beyond PATH_MAX
		name := strconv.Itoa(i%10) + strings.Repeat("y", 240)
		if err := r.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot(name)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		r, rel = next, append(rel, name)
	}
	r.Close()
	paths, notes, err := walkTree(root, "", nil)
	if err != nil {
		t.Fatalf("walk: %v", err)
	}
	if diff := cmp.Diff([]string{"a.md"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if len(notes) != 1 || !strings.HasPrefix(notes[0], rel[0]+"/") || !strings.HasSuffix(notes[0], ": path too long to open") || strings.Contains(notes[0], root) {
		t.Errorf("notes = %.300q, want one 'path too long to open' note with a relative path", notes)
	}
}
