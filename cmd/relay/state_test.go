package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// treeSnapshot records every path under dir with its mode, size and
// modification time: a command that creates, removes or writes anything
// there changes it.
func treeSnapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// storeElsewhereSteps are the commands of issue 9's probe, run with
// --store (and, when state is set, --state) outside the repository:
// index, search, offline scope and ask (one question and the REPL),
// feedback add and import, and review.
func storeElsewhereSteps(t *testing.T, repo string, flags ...string) {
	t.Helper()
	fb := filepath.Join(t.TempDir(), "fb.jsonl")
	if err := os.WriteFile(fb, []byte(`{"file": "notify/sms.go", "line": 3, "comment": "retry with backoff", "accepted": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	diff := "--- a/notify/sms.go\n+++ b/notify/sms.go\n@@ -1,1 +1,1 @@\n-package notify\n+package notify // SMS\n"
	steps := []struct {
		name  string
		stdin string
		args  []string
		out   string
	}{
		{"index", "", []string{"index"}, "Search index:"},
		{"search", "", []string{"search", "sms retry"}, "result(s)"},
		{"offline scope", "", []string{"scope", "SMS sent twice when the gateway is slow"}, "Context report (offline)"},
		{"offline ask", "", []string{"ask", "where are retries decided?"}, "Context report (offline)"},
		{"offline REPL", "where are retries decided?\n", []string{"ask"}, "Context report (offline)"},
		{"feedback add", "", []string{"review", "feedback", "add", "--file", "notify/sms.go", "--line", "3", "--comment", "check the retry count", "--accepted"}, "Recorded accepted feedback"},
		{"feedback import", "", []string{"review", "feedback", "import", fb}, "Imported 1 feedback item(s)"},
		{"review", diff, []string{"review", "--diff", "-", "--depth", "deep"}, "## Review context (deep)"},
	}
	for _, s := range steps {
		args := append(append([]string{"--repo", repo}, flags...), s.args...)
		code, stdout, stderr := relay(t, s.stdin, args...)
		if code != 0 || !strings.Contains(stdout, s.out) {
			t.Errorf("%s: exit %d, stdout lacks %q?\n%.1500s\nstderr:\n%s", s.name, code, s.out, stdout, stderr)
		}
	}
}

// TestStoreHoldsEverything is issue 9's probe 5 without a read-only mount
// (tests run as root, which writes through permission bits): with --store
// outside the repository, nothing under the repository is created or
// modified by index, search, offline scope/ask, feedback and review, and
// the search index, feedback and transcripts are in the store directory —
// or in --state when that is given.
func TestStoreHoldsEverything(t *testing.T) {
	t.Parallel()
	for _, withState := range []bool{false, true} {
		t.Run(fmt.Sprintf("state=%v", withState), func(t *testing.T) {
			t.Parallel()
			repo := sampleRepo(t)
			store := filepath.Join(t.TempDir(), "store")
			state := store
			flags := []string{"--store", store}
			if withState {
				state = filepath.Join(t.TempDir(), "state")
				flags = append(flags, "--state", state)
			}
			before := treeSnapshot(t, repo)
			storeElsewhereSteps(t, repo, flags...)
			if t.Failed() {
				return
			}
			if diff := cmp.Diff(before, treeSnapshot(t, repo)); diff != "" {
				t.Errorf("the repository changed (-before +after):\n%s", diff)
			}
			for _, f := range []string{"retrieve.idx", "retrieve.manifest", "feedback.jsonl", ".gitignore"} {
				if _, err := os.Stat(filepath.Join(state, f)); err != nil {
					t.Errorf("%s is not in the state directory: %v", f, err)
				}
			}
			if _, err := os.Stat(filepath.Join(store, "graph.db")); err != nil {
				t.Errorf("no graph in the store: %v", err)
			}
			if withState {
				if _, err := os.Stat(filepath.Join(store, "retrieve.idx")); err == nil {
					t.Errorf("the search index went to the store, not to --state")
				}
			}
		})
	}
}

// TestTranscriptInStore: with a model, the run transcript goes to runs/ in
// the store directory, not into the repository.
func TestTranscriptInStore(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	repo := agentRepo(t)
	store := filepath.Join(t.TempDir(), "store")
	if code, _, stderr := relay(t, "", "--repo", repo, "--store", store, "index"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	before := treeSnapshot(t, repo)
	code, _, stderr := relayAgent(t, m.env(), "", append([]string{"--repo", repo, "--store", store, "ask", "where are SMS sent?"}, modelFlags...)...)
	if code != 0 {
		t.Fatalf("ask: exit %d: %s", code, stderr)
	}
	if diff := cmp.Diff(before, treeSnapshot(t, repo)); diff != "" {
		t.Errorf("the repository changed (-before +after):\n%s", diff)
	}
	runs, _ := filepath.Glob(filepath.Join(store, "runs", "*.jsonl"))
	if len(runs) != 1 || !strings.Contains(stderr, "transcript "+filepath.Join(store, "runs")) {
		t.Errorf("transcripts in the store: %v; stderr:\n%s", runs, stderr)
	}
}

// TestStoreInsideRepository: `relay index --store .` wrote graph.db and a
// .gitignore ("*") into the repository root: git stopped seeing new files
// (git add -A left them out), and grep, glob and the search index found
// nothing. A --store or --state that is the repository, or a folder of it
// holding files of its own, is now a usage error that writes nothing (the
// rules: workspace's TestOwnDir).
func TestStoreInsideRepository(t *testing.T) {
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
	before := treeSnapshot(t, root)
	for _, args := range [][]string{
		{"index", "--store", root},
		{"index", "--state", filepath.Join(root, "src")},
		{"search", "main", "--store", filepath.Join(root, "src")},
	} {
		code, _, stderr := relay(t, "", append([]string{"--repo", root}, args...)...)
		if code != 2 || !strings.Contains(stderr, "hide them from git, grep, glob and search") {
			t.Errorf("relay %v: exit %d, stderr %q; want 2 and why", args, code, stderr)
		}
	}
	if diff := cmp.Diff(before, treeSnapshot(t, root)); diff != "" {
		t.Errorf("a refused --store or --state changed the repository (-before +after):\n%s", diff)
	}
}

// TestToolsHideStoreInsideRepository: with --store (or --state) inside the
// repository under another name than .relay, read served relay's own files
// there (transcripts of past runs) to a model; it refuses them as it does
// .relay.
func TestToolsHideStoreInsideRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"main.go": "package main\n", "build/relay/runs/1.jsonl": "{\"role\":\"user\"}\n", "st/history": "where?\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		flags []string
		file  string
		want  string
	}{
		{[]string{"--store", filepath.Join(root, "build", "relay")}, "build/relay/runs/1.jsonl", "build/relay/runs/1.jsonl is inside build/relay, which holds relay's own index"},
		{[]string{"--state", filepath.Join(root, "st")}, "st/history", "st/history is inside st, which holds relay's own index"},
	}
	for _, tc := range tests {
		args := append(append([]string{"--repo", root}, tc.flags...), "tool", "read", `{"file": "`+tc.file+`"}`)
		code, stdout, stderr := relay(t, "", args...)
		if code != 1 || !strings.Contains(stdout, tc.want) {
			t.Errorf("relay %v: exit %d, stdout %q, stderr %q; want 1 and %q", args, code, stdout, stderr, tc.want)
		}
	}
	if code, stdout, _ := relay(t, "", "--repo", root, "tool", "read", `{"file": "st/history"}`); code != 0 || !strings.Contains(stdout, "where?") {
		t.Errorf("without --state, st/history is a repository file: exit %d, %q", code, stdout)
	}
}
