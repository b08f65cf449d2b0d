package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHistoryPrivate: the REPL history holds the questions asked, as the
// transcripts do, and is kept 0600 like them; the line editor created it
// 0644, and an existing file keeps its mode unless relay narrows it.
func TestHistoryPrivate(t *testing.T) {
	for _, existing := range []bool{false, true} {
		root := t.TempDir()
		state := filepath.Join(t.TempDir(), "state")
		if existing {
			if err := os.MkdirAll(state, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(state, "history"), []byte("where is main?\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := New(Options{Root: root, State: state}).HistoryFile()
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("existing %v: history mode %v, want 0600", existing, fi.Mode().Perm())
		}
		if data, _ := os.ReadFile(p); existing && string(data) != "where is main?\n" {
			t.Errorf("the existing history changed: %q", data)
		}
	}
}
