//go:build cgo

package rust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/benchrun"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestCorpusIncremental indexes a real Rust tree (RELAY_RUST_CORPUS: a
// tokio checkout, as index/internal/benchrust uses), then renames a
// method many files call (Handle::enter) and edits a body, and requires
// each incremental graph to equal a full index of the same tree.
func TestCorpusIncremental(t *testing.T) {
	src := os.Getenv("RELAY_RUST_CORPUS")
	if src == "" {
		t.Skip("RELAY_RUST_CORPUS names a tokio checkout")
	}
	root := filepath.Join(t.TempDir(), "src")
	if err := benchrun.CopyDir(src, root); err != nil {
		t.Fatal(err)
	}
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	handle := filepath.Join(root, "tokio", "src", "runtime", "handle.rs")
	for _, step := range []struct{ name, old, new string }{
		{"rename a method", "fn enter(", "fn enter_renamed("},
		{"edit a body", "pub fn current() -> Self {", "pub fn current() -> Self {\n        let _ = 1;"},
	} {
		data, err := os.ReadFile(handle)
		if err != nil || !strings.Contains(string(data), step.old) {
			t.Fatalf("%s lacks %q (%v)", handle, step.old, err)
		}
		if err := os.WriteFile(handle, []byte(strings.ReplaceAll(string(data), step.old, step.new)), 0o644); err != nil {
			t.Fatal(err)
		}
		indexrun.Run(t, st, root, false)
		indextest.MatchesFullIndex(t, step.name, st, root, indexrun.Run)
	}
}
