package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	empty := t.TempDir()
	readme := t.TempDir()
	if err := os.WriteFile(filepath.Join(readme, "README.md"), []byte("# hi"), 0o644); err != nil {
		t.Fatal(err)
	}
	badMod := t.TempDir()
	if err := os.WriteFile(filepath.Join(badMod, "go.mod"), []byte("go 1.22\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		root string
		want string
	}{
		{"no root", "", "no repository root given"},
		{"missing root", filepath.Join(dir, "nope"), "does not exist"},
		{"root is a file", file, "is not a directory"},
		{"empty directory", empty, "no source file of a language relay indexes under " + empty + " (Go: go.mod, go.work or .go files; Python: .py files; Java: .java files; TypeScript/JavaScript: .ts, .tsx, .mts, .cts, .js, .jsx, .mjs or .cjs files; C: .c and .h files; C++: .cc, .cpp, .cxx, .hpp, .hh, .hxx or .h files; Rust: .rs files)"},
		{"no source files", readme, "no source file of a language relay indexes"},
		{"go.mod without module line", badMod, "go.mod has no module line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Run(t.Context(), newMemStore(), Options{Root: tt.root})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// failingStore fails ReplaceFile for one path.
type failingStore struct {
	*memStore
	path string
}

func (f failingStore) Begin(ctx context.Context) (graphdb.Tx, error) {
	tx, err := f.memStore.Begin(ctx)
	return failingTx{tx, f.path}, err
}

type failingTx struct {
	graphdb.Tx
	path string
}

func (f failingTx) ReplaceFile(ctx context.Context, rec graphdb.FileRecord, n []graphdb.Node, e []graphdb.Edge) error {
	if rec.Path == f.path {
		return fmt.Errorf("disk full")
	}
	return f.Tx.ReplaceFile(ctx, rec, n, e)
}

// TestInterruptedRunKeepsPreviousGraph checks that a run that fails (store
// error) or is cancelled leaves the previous graph as it was.
func TestInterruptedRunKeepsPreviousGraph(t *testing.T) {
	t.Parallel()
	root := extractTxtar(t, "golang/testdata/calls.txtar")
	mem := newMemStore()
	runIndex(t, mem, root, false)
	before := dump(t, mem)
	writeFile(t, root, "a/a.go", strings.Replace(readFile(t, root, "a/a.go"), "func Hello", "func Hi(){}\n\nfunc Hello", 1))

	_, err := Run(t.Context(), failingStore{mem, "a/a.go"}, Options{Root: root})
	if err == nil || !strings.Contains(err.Error(), "write a/a.go: disk full") {
		t.Fatalf("Run with a failing store: %v, want the write error", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := Run(ctx, mem, Options{Root: root}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Run: %v, want context.Canceled", err)
	}
	if diff := cmp.Diff(before, dump(t, mem)); diff != "" {
		t.Errorf("failed runs changed the graph (-before +after):\n%s", diff)
	}
	sum := runIndex(t, mem, root, false)
	if sum.Unchanged || sum.Languages["Go"].Units != 2 { // a gained Hi: a and its importer b
		t.Errorf("run after failures: unchanged=%v packages=%d, want the edit indexed", sum.Unchanged, sum.Languages["Go"].Units)
	}
}
