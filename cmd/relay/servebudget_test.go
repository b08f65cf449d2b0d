package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/serve"
)

// TestBotIndexBudgets: the bot indexes a job's worktree within
// relay.yaml's index budgets: with max_file_size 1024, a larger Python
// file keeps its file record only and the small one is extracted. The
// bot used to index with the defaults whatever relay.yaml said.
func TestBotIndexBudgets(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	var big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&big, "def f%d():\n    return %d\n", i, i)
	}
	for rel, src := range map[string]string{"big.py": big.String(), "ok.py": "def ok():\n    return 1\n"} {
		if err := os.WriteFile(filepath.Join(wt, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	storeDir := t.TempDir()
	g := &globals{log: slog.New(slog.DiscardHandler), getenv: func(string) string { return "" }, stderr: os.Stderr, stdout: os.Stdout}
	x := &serveIndexer{g: g, budgets: serve.IndexBudgets{MaxFileSize: 1024}}
	if _, err := x.Index(t.Context(), wt, storeDir); err != nil {
		t.Fatal(err)
	}
	st, err := embedded.Open(storeDir, embedded.Options{ReadOnly: true, Key: testStoreKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for file, want := range map[string]int{"big.py": 0, "ok.py": 1} {
		ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: file, Kinds: []graphdb.NodeKind{graphdb.KindFunction}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != want {
			t.Errorf("%s: %d functions, want %d", file, len(ns), want)
		}
	}
}
