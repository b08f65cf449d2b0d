package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/workspace"
)

// The relay of these tests, in-process and in child processes, keeps its
// store key in a file of the test run (RELAY_STORE_KEY, which children
// inherit), not in the user's config folder.
func init() {
	if os.Getenv("RELAY_STORE_KEY") == "" {
		// One per user, kept between runs (a key of tests only).
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("relay-cmd-test-key-%d", os.Getuid()))
		os.Setenv("RELAY_STORE_KEY", filepath.Join(dir, "store.key"))
	}
	defaultKeyPath = func() (string, error) { return os.Getenv("RELAY_STORE_KEY"), nil }
}

// testStoreKey is the store key the relay of these tests uses.
func testStoreKey(t *testing.T) []byte {
	t.Helper()
	g := &globals{getenv: func(string) string { return "" }}
	k, err := workspace.New(g.wsOptions("")).StoreKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// forgeStore rewrites the graph in dir as someone else's relay would (no
// key of this user): the file record of path keeps its content hash, so
// the file looks indexed, but its outbound calls are gone.
func forgeStore(t *testing.T, dir, path string) {
	t.Helper()
	st, err := embedded.Open(dir, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx := t.Context()
	files, err := st.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var rec graphdb.FileRecord
	for _, f := range files {
		if f.Path == path {
			rec = f
		}
	}
	nodes, err := st.FindSymbols(ctx, graphdb.SymbolQuery{File: path})
	if err != nil || rec.Path == "" {
		t.Fatalf("no record of %s in the store: %v", path, err)
	}
	var edges []graphdb.Edge
	for _, n := range nodes {
		for _, k := range graphdb.EdgeKinds {
			es, err := st.Neighbors(ctx, n.ID, k, graphdb.Outbound, 0)
			if err != nil {
				t.Fatal(err)
			}
			if k != graphdb.EdgeCalls {
				edges = append(edges, es...)
			}
		}
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(ctx, rec, nodes, edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestCommittedStoreNotBelieved: a .relay that came with the repository (a
// forged graph in which Twice no longer calls Greet, its content hashes
// intact) is not believed: readers refuse it with advice, `relay index`
// moves it aside and says so instead of "up to date", and the rebuilt graph
// has the call again. RELAY_TRUST_STORE believes it on purpose.
func TestCommittedStoreNotBelieved(t *testing.T) {
	t.Parallel()
	src := tinyRepo(t)
	if code, _, stderr := relay(t, "", "index", "--repo", src); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	forgeStore(t, filepath.Join(src, ".relay"), "greet/greet.go")
	repo := filepath.Join(t.TempDir(), "checkout")
	if err := os.CopyFS(repo, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}

	code, stdout, stderr := relay(t, "", "graph", "callers", "greet.Greet", "--repo", repo)
	if code == 0 || !strings.Contains(stderr, "not written by relay") || !strings.Contains(stderr, "relay index") {
		t.Errorf("graph callers on a committed store = %d, want a refusal with advice:\n%s%s", code, stdout, stderr)
	}
	var out strings.Builder
	trusted := run(t.Context(), []string{"graph", "callers", "greet.Greet", "--repo", repo}, strings.NewReader(""), &out, &out,
		func(k string) string {
			if k == "RELAY_TRUST_STORE" {
				return "1"
			}
			return ""
		})
	if trusted != 0 || !strings.Contains(out.String(), "No callers") {
		t.Errorf("with RELAY_TRUST_STORE=1 the shared store is read as it is = %d:\n%s", trusted, out.String())
	}

	code, stdout, stderr = relay(t, "", "index", "--repo", repo)
	if code != 0 || strings.Contains(stdout, "up to date") || !strings.Contains(stderr, "not written by relay") || !strings.Contains(stderr, "graph.db.foreign-") {
		t.Errorf("index of a committed store = %d, want it moved aside and rebuilt:\n%s%s", code, stdout, stderr)
	}
	code, stdout, stderr = relay(t, "", "graph", "callers", "greet.Greet", "--repo", repo)
	if code != 0 || !strings.Contains(stdout, "Twice") {
		t.Errorf("callers after the rebuild = %d, want Twice:\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = relay(t, "", "index", "--repo", repo)
	if code != 0 || !strings.Contains(stdout, "up to date") {
		t.Errorf("the rebuilt store is not this user's own: second index = %d:\n%s", code, stdout)
	}
}

// TestStoreLinkInRepository: a committed `sub/.relay -> ..` makes relay
// refuse the store with advice; nothing (no graph.db, no .gitignore of
// "*") is written into the parent.
func TestStoreLinkInRepository(t *testing.T) {
	t.Parallel()
	parent := tinyRepo(t)
	sub := filepath.Join(parent, "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x.go"), []byte("package sub\n\nfunc X() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("..", filepath.Join(sub, ".relay")); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"index", "--repo", sub},
		{"graph", "callers", "X", "--repo", sub},
		{"search", "X", "--repo", sub},
	} {
		code, stdout, stderr := relay(t, "", args...)
		if code == 0 || !strings.Contains(stderr, "symbolic link") {
			t.Errorf("relay %v = %d, want a refusal naming the link:\n%s%s", args, code, stdout, stderr)
		}
	}
	for _, name := range []string{"graph.db", ".gitignore", "graph.seal", "write.lock", "retrieve.idx"} {
		if _, err := os.Lstat(filepath.Join(parent, name)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s was written into the parent repository through the link (%v)", name, err)
		}
	}
}
