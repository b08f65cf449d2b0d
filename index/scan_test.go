package index

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/frontend"
)

// scanFiles scans root and returns the files each language claimed
// ("lang rel", sorted) and the notes ("rel: why").
func scanFiles(t *testing.T, root string) (files, notes []string) {
	t.Helper()
	tr, err := scan(t.Context(), root, 2, nil)
	if err != nil {
		t.Fatalf("scan: %v", err)
	}
	defer tr.rf.close()
	for i, byRel := range tr.langs {
		for rel := range byRel {
			files = append(files, fileLangs[i].Name+" "+rel)
		}
		for _, rel := range tr.langConfigs[i] {
			files = append(files, fileLangs[i].Name+" config "+rel)
		}
	}
	slices.Sort(files)
	for _, n := range tr.notes {
		notes = append(notes, n.String())
	}
	return files, notes
}

// TestScanIgnores: the scan leaves out what the repository's ignore files
// (root and nested .gitignore files, .git/info/exclude) ignore, with git's
// semantics (anchoring, directory-only patterns, "**", negation, nothing
// re-included inside an ignored directory), and still claims the Go files
// and go.mod files that go list reads, ignored or not, in ignored
// directories too; hidden directories, vendor, node_modules and virtual
// environments are never walked.
func TestScanIgnores(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for rel, data := range map[string]string{
		".gitignore":         "# comment\n\ndist/\n/build\n*.gen.js\n!keep.gen.js\n**/cache/**\nout.py\n!dist/keep.js\ndocs/**/draft.py\n",
		"pkg/.gitignore":     "*.snap.py\n!important.snap.py\nlocal/\n",
		".git/info/exclude":  "secret.js\n",
		"pkg/sub/.gitignore": "!x.gen.js\n",
		"dist/.gitignore":    "!*.py\n", // never read: inside an ignored directory
	} {
		writeFile(t, root, rel, data)
	}
	for _, rel := range []string{
		"dist/keep.js", "dist/a.py", "src/dist.ts", "build/b.py", "src/build/c.py", "src/a.gen.js",
		"src/keep.gen.js", "a/b/cache/x.js", "a/b/cache.py", "out.py", "secret.js", "pkg/a.snap.py",
		"pkg/important.snap.py", "a.snap.py", "pkg/local/l.py", "pkg/sub/x.gen.js", "pkg/sub/y.gen.js",
		"docs/a/b/draft.py", "docs/draft.py", "src/main.js", "src/Main.java",
		".hidden/h.py", "vendor/v.go", "node_modules/n.js", "env/pyvenv.cfg", "env/e.py", "__pycache__/c.py",
	} {
		writeFile(t, root, rel, "\n")
	}
	writeFile(t, root, "go.mod", "module example.com/m\n")
	writeFile(t, root, "dist/gen.go", "package dist\n")
	writeFile(t, root, "build/go.mod", "module example.com/b\n")
	writeFile(t, root, "build/b.go", "package b\n")
	files, notes := scanFiles(t, root)
	want := []string{
		"go build/b.go", "go config build/go.mod", "go config go.mod", "go dist/gen.go",
		"java src/Main.java",
		"python a.snap.py", "python a/b/cache.py", "python pkg/important.snap.py", "python src/build/c.py",
		"typescript pkg/sub/x.gen.js", "typescript src/dist.ts", "typescript src/keep.gen.js", "typescript src/main.js",
	}
	if diff := cmp.Diff(want, files); diff != "" {
		t.Errorf("scanned files (-want +got):\n%s", diff)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
}

// TestScanWorktreeGitFile: .git is a file in a linked worktree; reading
// .git/info/exclude through it is no error, and ignores nothing.
func TestScanWorktreeGitFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, ".git", "gitdir: /elsewhere\n")
	writeFile(t, root, "a/a/a/b.py", "\n")
	files, notes := scanFiles(t, root)
	if diff := cmp.Diff([]string{"python a/a/a/b.py"}, files); diff != "" {
		t.Errorf("scanned files (-want +got):\n%s", diff)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
}

// TestScanUnreadableIgnoreFile: an ignore file that cannot be read (a
// directory named .gitignore, not walked: it is hidden) is noted, and the
// scan goes on without its rules; it is no unreadable directory for go
// list.
func TestScanUnreadableIgnoreFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "sub/.gitignore/x.py", "\n")
	writeFile(t, root, "sub/a.py", "\n")
	tr, err := scan(t.Context(), root, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.rf.close()
	var notes []string
	for _, n := range tr.notes {
		notes = append(notes, n.Pos)
	}
	if diff := cmp.Diff([]string{"sub/.gitignore"}, notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if len(tr.badDirs) != 0 {
		t.Errorf("bad directories: %q", tr.badDirs)
	}
	py := tr.langs[slices.IndexFunc(fileLangs, func(l frontend.Lang) bool { return l.Name == "python" })]
	if diff := cmp.Diff([]string{"sub/a.py"}, slices.Sorted(maps.Keys(py))); diff != "" {
		t.Errorf("Python files (-want +got):\n%s", diff)
	}
}

// BenchmarkScan times the scan alone (the walk, the languages' claims and
// the hashing of every claimed file) of RELAY_BENCH_SCAN_ROOT, by default
// $(go env GOROOT)/src: what a no-change `relay index` spends before it
// finds nothing to do.
//
//	go test ./index -run '^$' -bench Scan -benchtime 10x
//	RELAY_BENCH_SCAN_ROOT=/usr/lib/python3.11 go test ./index -run '^$' -bench Scan -benchtime 10x
func BenchmarkScan(b *testing.B) {
	root := benchScanRoot(b)
	for b.Loop() {
		t, err := scan(b.Context(), root, runtime.GOMAXPROCS(0), nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, files := range t.langs {
			n += len(files)
		}
		b.ReportMetric(float64(n), "files")
		b.ReportMetric(float64(len(t.notes)), "notes")
		t.rf.close()
	}
}

// BenchmarkScanStamped times a scan of RELAY_BENCH_SCAN_ROOT (by default
// $(go env GOROOT)/src) given the stamps of a scan before it: what a
// no-change `relay index` spends when no file was modified within the
// racy window, every hash coming from its stamp.
//
//	RELAY_BENCH_SCAN_ROOT=/path/to/spring-framework go test ./index -run '^$' -bench ScanStamped -benchtime 10x
func BenchmarkScanStamped(b *testing.B) {
	root := benchScanRoot(b)
	first, err := scan(b.Context(), root, runtime.GOMAXPROCS(0), nil)
	if err != nil {
		b.Fatal(err)
	}
	first.rf.close()
	first.stamps.start = time.Now().Add(time.Hour).UnixNano() // as if recorded long after every file's last change
	for b.Loop() {
		t, err := scan(b.Context(), root, runtime.GOMAXPROCS(0), first.stamps)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(t.hashed), "hashed")
		t.rf.close()
	}
}

// benchScanRoot is RELAY_BENCH_SCAN_ROOT, by default $(go env GOROOT)/src.
func benchScanRoot(b *testing.B) string {
	if root := os.Getenv("RELAY_BENCH_SCAN_ROOT"); root != "" {
		return root
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatal(err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}
