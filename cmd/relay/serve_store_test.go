package main

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/serve"
)

// TestBotNeverReadsWorktreeStore: a repository whose default branch
// commits a forged .relay (a graph in which Twice no longer calls Greet)
// does not steer the bot: the bot's store for the repository lies in its
// state directory, outside every worktree; indexing a job's worktree
// writes there (the committed .relay stays as it was), and its graph has
// the call.
func TestBotNeverReadsWorktreeStore(t *testing.T) {
	t.Parallel()
	testutil.Need(t, "install git", "git")
	repo := tinyRepo(t)
	if code, _, stderr := relay(t, "", "index", "--repo", repo); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	forgeStore(t, filepath.Join(repo, ".relay"), "greet/greet.go")
	gitRun(t, repo, "init", "-q", "-b", "main")
	gitRun(t, repo, "add", "-A", "-f")
	gitRun(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "code and a forged store")

	state := t.TempDir()
	m := serve.NewMirrors(state, time.Minute, nil, nil)
	r := serve.Repository{GitHub: "acme/demo", Remote: repo, Branch: "main"}
	head, err := m.Fetch(t.Context(), r)
	if err != nil {
		t.Fatal(err)
	}
	wt, cleanup, err := m.Worktree(t.Context(), r, head, "job-1-1")
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	storeDir := m.StoreDir(r)
	if rel, err := filepath.Rel(wt, storeDir); err == nil && !strings.HasPrefix(rel, "..") {
		t.Fatalf("the bot's store %s lies inside the worktree %s", storeDir, wt)
	}
	if rel, err := filepath.Rel(state, storeDir); err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("the bot's store %s is not in its state directory %s", storeDir, state)
	}
	committed := filepath.Join(wt, ".relay")
	if _, err := os.Stat(filepath.Join(committed, "graph.db")); err != nil {
		t.Fatalf("the worktree lacks the committed store: %v", err)
	}
	before := dirDigest(t, committed)

	g := &globals{getenv: func(string) string { return "" }}
	if _, err := (&serve.Pipeline{KeyFile: g.keyFile(), Log: slog.New(slog.DiscardHandler)}).Index(t.Context(), wt, storeDir); err != nil {
		t.Fatal(err)
	}
	if after := dirDigest(t, committed); after != before {
		t.Errorf("indexing the worktree changed its committed .relay:\n%s\n---\n%s", before, after)
	}
	st, err := embedded.Open(storeDir, embedded.Options{ReadOnly: true, Key: testStoreKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	greet, err := graphdb.Resolve(t.Context(), st, "greet.Greet")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := graphdb.Query(t.Context(), st, graphdb.OpCallers, greet.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	var callers []string
	for _, x := range rs {
		callers = append(callers, x.Node.Name)
	}
	if !strings.Contains(strings.Join(callers, ","), "Twice") {
		t.Errorf("callers of Greet in the bot's store = %q, want Twice (the forged store in the worktree was read)", callers)
	}
}

// dirDigest lists the files under dir with the SHA-256 of each: a change
// to any of them changes it.
func dirDigest(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(&b, "%s %x\n", rel, sha256.Sum256(data))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
