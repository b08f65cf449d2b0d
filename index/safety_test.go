package index

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/indextest"
)

// TestMain lets go list run through the test binary acting as the go
// command shim, as it does through relay (RunGoShim).
func TestMain(m *testing.M) {
	RunGoShim()
	os.Exit(m.Run())
}

func symlink(t *testing.T, target, root, rel string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
}

// TestFIFOSourceFiles: a FIFO named x.go in a package (and one named
// x.py) made `relay index` hang in go list. The run finishes at once and
// notes the files; the package is indexed without them.
func TestFIFOSourceFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, root, "p/a.go", "package p\n\n// A is real.\nfunc A() {}\n")
	writeFile(t, root, "py/mod.py", "def f():\n    pass\n")
	indextest.Mkfifo(t, root, "p/x.go")
	indextest.Mkfifo(t, root, "py/x.py")
	indextest.Mkfifo(t, root, "loose/testdata/y.go")
	sum, took, err := indextest.RunWithin(t, 60*time.Second, func(ctx context.Context) (Summary, error) {
		return Run(ctx, newMemStore(), Options{Root: root})
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if took > time.Minute { // a hang guard
		t.Errorf("Run took %s with FIFOs in the tree, want a few seconds", took)
	}
	want := []string{
		"loose/testdata/y.go: not a regular file (a FIFO)",
		"p/x.go: not a regular file (a FIFO)",
		"py/x.py: not a regular file (a FIFO)",
	}
	if diff := cmp.Diff(want, indextest.Notes(sum)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if sum.Languages["Go"].Units != 1 || sum.Files != 2 || len(sum.Errors) != 0 {
		t.Errorf("packages=%d files=%d errors=%v, want 1 package, 2 files, no errors", sum.Languages["Go"].Units, sum.Files, sum.Errors)
	}
}

// outsideTree is a directory outside the repository holding Go and Python
// files that must never reach the graph.
func outsideTree(t *testing.T) string {
	t.Helper()
	out := t.TempDir()
	writeFile(t, out, "secret.go", "package p\n\n// Secret is outside the repository.\nfunc Secret() {}\n")
	writeFile(t, out, "secret.py", "def secret():\n    \"\"\"Secret is outside the repository.\"\"\"\n")
	writeFile(t, out, "dir/inner.go", "package dir\n\n// Inner is outside the repository.\nfunc Inner() {}\n")
	writeFile(t, out, "dir/inner.py", "def inner():\n    pass\n")
	return out
}

// TestLinksOutsideRepository: a .go or .py file (or a directory) that is
// a symbolic link to a place outside the repository is not indexed, is
// noted, and nothing from it reaches the graph; links inside the
// repository keep working.
func TestLinksOutsideRepository(t *testing.T) {
	t.Parallel()
	out := outsideTree(t)
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, root, "p/a.go", "package p\n\n// A calls the outside function.\nfunc A() { Secret(); Linked() }\n")
	writeFile(t, root, "_src/linked.go", "package p\n\n// Linked lives elsewhere in the repository.\nfunc Linked() {}\n")
	writeFile(t, root, "pkg/__init__.py", "")
	writeFile(t, root, "pkg/mod.py", "from pkg import evil\n\ndef f():\n    evil.secret()\n")
	symlink(t, filepath.Join(out, "secret.go"), root, "p/evil.go")
	symlink(t, filepath.Join(out, "dir"), root, "p/evildir")
	symlink(t, filepath.Join(out, "secret.py"), root, "pkg/evil.py")
	symlink(t, filepath.Join(out, "dir"), root, "pkg/evildir")
	symlink(t, "../_src/linked.go", root, "p/linked.go")
	symlink(t, filepath.Join(root, "_src", "linked.go"), root, "p/abslinked.go.txt") // not source: ignored
	st := newMemStore()
	sum, err := Run(t.Context(), st, Options{Root: root})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	want := []string{
		"p/evil.go: links outside the repository",
		"p/evildir: links outside the repository",
		"pkg/evil.py: links outside the repository",
		"pkg/evildir: links outside the repository",
	}
	if diff := cmp.Diff(want, indextest.Notes(sum)); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	got := dump(t, st)
	for _, line := range strings.Split(got, "\n") {
		// Repository sources may name Secret (the call in p/a.go is a type
		// error, its edge unresolved) and import pkg.evil; no node, doc,
		// file record or edge may come from the outside files.
		fields := strings.Fields(line)
		if len(fields) < 2 {
			continue
		}
		bad := strings.Contains(line, "is outside the repository")
		switch fields[0] {
		case "node", "owner":
			bad = bad || (strings.Contains(strings.ToLower(fields[1]), "secret") || strings.Contains(strings.ToLower(fields[1]), "inner") || strings.Contains(fields[1], "evil"))
		case "edge":
			bad = bad || strings.Contains(strings.ToLower(line), "secret") || strings.Contains(strings.ToLower(line), "inner")
		}
		if bad {
			t.Errorf("the graph holds something from outside the repository: %s", line)
		}
	}
	if !strings.Contains(got, "node go:example.com/m/p.Linked ") {
		t.Errorf("a link inside the repository is no longer indexed:\n%s", got)
	}
}

// TestLinkLoopsAndLongPaths: symbolic link loops and paths too long to
// open are noted by repository-relative path and do not stop the run; go
// list still lists the module's other packages.
func TestLinkLoopsAndLongPaths(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, root, "p/a.go", "package p\n\n// A is indexed.\nfunc A() {}\n")
	writeFile(t, root, "pkg/m.py", "def f():\n    pass\n")
	symlink(t, "loop.go", root, "p/loop.go")
	symlink(t, "b.py", root, "pkg/a.py")
	symlink(t, "a.py", root, "pkg/b.py")
	symlink(t, "dirloop", root, "dirloop")
	// 20 directories of 240 bytes: 4,900 bytes, beyond PATH_MAX.
	r, err := os.OpenRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	for i := range 20 {
		name := strconv.Itoa(i) + strings.Repeat("x", 240)
		if err := r.Mkdir(name, 0o755); err != nil {
			t.Fatal(err)
		}
		next, err := r.OpenRoot(name)
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		r = next
		long = append(long, name)
	}
	if f, err := r.Create("deep.go"); err == nil {
		f.WriteString("package deep\n\nfunc Deep() {}\n")
		f.Close()
	}
	r.Close()
	st := newMemStore()
	sum, err := Run(t.Context(), st, Options{Root: root})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	notes := indextest.Notes(sum)
	for _, want := range []string{
		"dirloop: symbolic link loop",
		"p/loop.go: symbolic link loop",
		"pkg/a.py: symbolic link loop",
		"pkg/b.py: symbolic link loop",
	} {
		if !slices.Contains(notes, want) {
			t.Errorf("notes lack %q: %q", want, notes)
		}
	}
	tooLong := false
	for _, n := range notes {
		if strings.HasPrefix(n, long[0][:40]) && strings.Contains(n, "path too long to open") {
			tooLong = true
		}
		if strings.Contains(n, root) {
			t.Errorf("note names the absolute root: %s", n)
		}
	}
	if !tooLong {
		t.Errorf("no note for the over-long path: %q", notes)
	}
	for _, e := range sum.Errors {
		if strings.Contains(e.String(), root) {
			t.Errorf("diagnostic names the absolute root: %s", e)
		}
	}
	if _, err := st.Node(t.Context(), "go:example.com/m/p.A"); err != nil {
		t.Errorf("package p was not indexed next to the over-long path: %v", err)
	}
	if _, err := st.Node(t.Context(), "py:pkg.m.f"); err != nil {
		t.Errorf("pkg/m.py was not indexed next to the link loops: %v", err)
	}
}
