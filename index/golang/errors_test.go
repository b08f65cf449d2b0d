package golang_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestLooseFilesWithoutModule indexes .go files that belong to no module:
// from syntax alone.
func TestLooseFilesWithoutModule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "tool/main.go", "package main\n\n// Tool runs.\nfunc Tool() {}\n\nfunc main() { Tool() }\n")
	st := indextest.OpenStore()
	sum := indexrun.Run(t, st, root, false)
	got := indextest.Dump(t, st)
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
	root := indextest.ExtractTxtar(t, "calls")
	golang.SetTestHookListed(t, func(root string) {
		if err := os.Remove(filepath.Join(root, "b", "b.go")); err != nil {
			t.Error(err)
		}
	})
	st := indextest.OpenStore()
	sum := indexrun.Run(t, st, root, false)
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
	golang.SetTestHookListed(t, nil)
	indexrun.Run(t, st, root, false)
	fresh := indextest.OpenStore()
	indexrun.Run(t, fresh, root, false)
	if diff := cmp.Diff(indextest.Dump(t, fresh), indextest.Dump(t, st)); diff != "" {
		t.Errorf("after the vanished file (-fresh +got):\n%s", diff)
	}
}
