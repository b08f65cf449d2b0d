package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStateDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	other := t.TempDir()
	tests := []struct {
		name, store, state string
		want               string
		usage              bool
	}{
		{name: "default", want: filepath.Join(root, ".relay")},
		{name: "embedded store elsewhere", store: filepath.Join(other, "st"), want: filepath.Join(other, "st")},
		{name: "relative store", store: "rel-store", want: mustAbs(t, "rel-store")},
		{name: "state wins", store: filepath.Join(other, "st"), state: filepath.Join(other, "state"), want: filepath.Join(other, "state")},
		{name: "arangodb store", store: "arangodb://root@localhost:8529/relay", want: filepath.Join(root, ".relay")},
		{name: "arangodb store with state", store: "arangodb://root@localhost:8529/relay", state: filepath.Join(other, "state"), want: filepath.Join(other, "state")},
		{name: "state as a URL", state: "s3://bucket/x", usage: true},
		{name: "unknown store scheme", store: "redis://x", usage: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := New(Options{Root: root, Store: tt.store, State: tt.state}).StateDir()
			if tt.usage {
				if !IsConfig(err) {
					t.Errorf("StateDir = %q, %v; want a *ConfigError", got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("StateDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestOwnDir: a store or state directory that is the repository, or a
// folder of it holding files of its own, is a *ConfigError (relay would
// write its index among the sources and hide them from git, grep, glob and
// search); a new, empty or relay-written folder inside it, and any folder
// outside it, are accepted.
func TestOwnDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for _, d := range []string{"src", "empty", "old-store", "ignored-only"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, body := range map[string]string{
		"main.go": "package main\n", "src/a.go": "package src\n",
		"old-store/graph.db": "", "ignored-only/.gitignore": "*\n",
	} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(t.TempDir(), "repo-link")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "st")
	tests := []struct {
		name, store, state string
		want               string // error text; "" when accepted
	}{
		{name: "store is the repository", store: root, want: "--store " + root + " is the repository itself: relay would write its index among the sources and hide them from git, grep, glob and search; pass a directory of relay's own"},
		{name: "store is the repository through a link", store: link, want: "is the repository itself"},
		{name: "state is the repository", state: root, want: "--state " + root + " is the repository itself"},
		{name: "store is a source folder", store: filepath.Join(root, "src"), want: "is a folder of the repository holding files of its own (a.go): relay would hide them"},
		{name: "state is a source folder", store: outside, state: filepath.Join(root, "src"), want: "--state " + filepath.Join(root, "src") + " is a folder of the repository"},
		{name: "new folder inside", store: filepath.Join(root, "build", "relay")},
		{name: "empty folder inside", store: filepath.Join(root, "empty")},
		{name: "folder relay wrote", store: filepath.Join(root, "old-store")},
		{name: "folder with only a .gitignore", state: filepath.Join(root, "ignored-only")},
		{name: "outside", store: outside},
		{name: "default", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(Options{Root: root, Store: tt.store, State: tt.state, Advice: Advice{Store: "--store", State: "--state"}}).StateDir()
			if tt.want == "" {
				if err != nil {
					t.Errorf("StateDir: %v; want it accepted", err)
				}
				return
			}
			if !IsConfig(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("StateDir: %v; want a *ConfigError with %q", err, tt.want)
			}
		})
	}
}

// TestAdviceLeftOut: without Advice the workspace's errors name the
// store and the state directory, no flag of the CLI (the bot's log has
// none); with it, the caller's names.
func TestAdviceLeftOut(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tests := []struct {
		store, state string
		advice       Advice
		want         string
	}{
		{store: "redis://x", want: `store "redis://x": unknown store scheme`},
		{store: "redis://x", advice: Advice{Store: "--store"}, want: `--store "redis://x": unknown store scheme`},
		{state: "s3://b", want: `state directory "s3://b": want a local directory`},
		{store: root, want: "store " + root + " is the repository itself"},
	}
	for _, tt := range tests {
		_, err := New(Options{Root: root, Store: tt.store, State: tt.state, Advice: tt.advice}).StateDir()
		if err == nil || !strings.Contains(err.Error(), tt.want) || (tt.advice == Advice{} && strings.Contains(err.Error(), "--")) {
			t.Errorf("store %q, state %q, advice %+v: %v; want %q", tt.store, tt.state, tt.advice, err, tt.want)
		}
	}
}
