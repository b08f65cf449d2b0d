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
		{"empty directory", empty, "no source file of a language relay indexes under " + empty + " (Go: go.mod, go.work or .go files; Python: .py files; Java: .java files; TypeScript/JavaScript: .ts, .tsx, .mts, .cts, .js, .jsx, .mjs or .cjs files)"},
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

// TestLooseFilesWithoutModule indexes .go files that belong to no module:
// from syntax alone.
func TestLooseFilesWithoutModule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFile(t, root, "tool/main.go", "package main\n\n// Tool runs.\nfunc Tool() {}\n\nfunc main() { Tool() }\n")
	st := newMemStore()
	sum := runIndex(t, st, root, false)
	got := dump(t, st)
	want := `node go:tool/main.go:Tool function/ name=Tool qname=tool.Tool loc=tool/main.go:Tool file=tool/main.go lines=4-4 sig="func Tool()" doc="Tool runs." flags=exported lang=go `
	if !strings.Contains(got, want+"\n") {
		t.Errorf("dump lacks %q:\n%s", want, got)
	}
	if sum.Files != 1 || sum.Languages["Go"].Units != 0 {
		t.Errorf("files=%d packages=%d, want 1 0", sum.Files, sum.Languages["Go"].Units)
	}
}

// TestVanishingFile removes a file between `go list` and parsing: the run
// reports it and goes on.
func TestVanishingFile(t *testing.T) {
	root := extractTxtar(t, "calls")
	testHookListed = func(root string) {
		if err := os.Remove(filepath.Join(root, "b", "b.go")); err != nil {
			t.Error(err)
		}
	}
	defer func() { testHookListed = nil }()
	st := newMemStore()
	sum := runIndex(t, st, root, false)
	found := false
	for _, d := range sum.Notes {
		if d.Package == "example.com/calls/b" && d.Pos == "b/b.go" && strings.Contains(d.Msg, "missing") {
			found = true
		}
	}
	if !found {
		t.Errorf("no note for the vanished file; got %v", sum.Notes)
	}
	if n, err := st.Node(t.Context(), "go:example.com/calls/a.Hello"); err != nil || n.Name != "Hello" {
		t.Errorf("package a was not indexed: %v", err)
	}
	// The next run sees the file gone and is consistent with a fresh run.
	testHookListed = nil
	runIndex(t, st, root, false)
	fresh := newMemStore()
	runIndex(t, fresh, root, false)
	if diff := cmp.Diff(dump(t, fresh), dump(t, st)); diff != "" {
		t.Errorf("after the vanished file (-fresh +got):\n%s", diff)
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
	root := extractTxtar(t, "calls")
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
	if sum.Unchanged || sum.Languages["Go"].Units != 1 {
		t.Errorf("run after failures: unchanged=%v packages=%d, want the edit indexed", sum.Unchanged, sum.Languages["Go"].Units)
	}
}
