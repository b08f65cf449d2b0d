package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve"
)

// testOptions are the options of a workspace over root with a store key
// of the test's own and the notices collected.
func testOptions(t *testing.T, root string) (Options, *notices) {
	t.Helper()
	n := &notices{}
	return Options{Root: root, KeyFile: filepath.Join(t.TempDir(), "store.key"), Notify: n.add}, n
}

// notices collects what a workspace says.
type notices struct {
	mu   sync.Mutex
	msgs []string
}

func (n *notices) add(msg string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.msgs = append(n.msgs, msg)
}

func (n *notices) String() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.Join(n.msgs, "\n")
}

// sampleRepo is a copy of examples/sample.
func sampleRepo(t *testing.T) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "sample")
	if err := os.CopyFS(dst, os.DirFS("../examples/sample")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestIndexRecoversDamagedStore: a store whose last writer died (no seal)
// and whose graph is damaged is found damaged while indexing; Index keeps
// the damaged file aside, says so and indexes from scratch. (An unsealed
// store is believed only with TrustStore; without it, it is rebuilt at
// open as one relay did not write.)
func TestIndexRecoversDamagedStore(t *testing.T) {
	t.Parallel()
	root := sampleRepo(t)
	o, said := testOptions(t, root)
	o.TrustStore = true
	w := New(o)
	if _, err := w.Index(t.Context(), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, ".relay")
	os.Remove(filepath.Join(dir, "graph.seal"))
	testutil.FlipBits(t, filepath.Join(dir, "graph.db"), 1, 300)
	res, err := w.Index(t.Context(), IndexOptions{Full: true})
	if err != nil {
		t.Fatalf("Index of a damaged store: %v", err)
	}
	if !strings.Contains(said.String(), "damaged") {
		t.Errorf("notices %q; want one saying the graph was damaged", said)
	}
	if aside, _ := filepath.Glob(filepath.Join(dir, "graph.db.corrupt-*")); len(aside) == 0 {
		t.Errorf("the damaged graph.db was not kept aside")
	}
	if res.Graph.Files == 0 || res.Search.Files == 0 {
		t.Errorf("after the rebuild: %d files in the graph, %d in the search index", res.Graph.Files, res.Search.Files)
	}
	st, err := w.OpenStore(t.Context(), false)
	if err != nil {
		t.Fatalf("open the rebuilt store: %v", err)
	}
	st.Close()
}

// TestIndexNoSource: a repository without source relay builds a graph for
// fails to index with IsNoSource and leaves no store behind, unless the
// caller asks for search alone (the bot, eval): its search index is then
// built over no graph.
func TestIndexNoSource(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "README.md"), []byte("# Deploying\n\nRun the rollout script to deploy the billing service.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, _ := testOptions(t, root)
	w := New(o)
	if _, err := w.Index(t.Context(), IndexOptions{}); !IsNoSource(err) {
		t.Fatalf("Index = %v; want a no-source error", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".relay")); !os.IsNotExist(err) {
		t.Errorf("a failed first index left its store behind (%v)", err)
	}
	res, err := w.Index(t.Context(), IndexOptions{SearchWithoutGraph: true})
	if err != nil || !res.NoGraph || res.Search.Files != 1 {
		t.Fatalf("Index(SearchWithoutGraph) = %+v, %v; want no graph and 1 file searched", res, err)
	}
	s, err := w.OpenSearcher(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	hits, err := s.Search(t.Context(), "deploy billing", retrieve.SearchOptions{Limit: 3})
	if err != nil || len(hits.Hits) == 0 || hits.Hits[0].Path != "README.md" {
		t.Errorf("search over the graphless index = %+v, %v; want README.md", hits, err)
	}
}

// TestTypeCacheInStateDir checks where Index keeps Go's type cache (the
// state directory's cache/go-types) and that InMemoryGraph, which writes
// nothing, keeps none.
func TestTypeCacheInStateDir(t *testing.T) {
	t.Parallel()
	o, _ := testOptions(t, sampleRepo(t))
	w := New(o)
	t.Cleanup(func() { w.Close() })
	st, err := w.InMemoryGraph(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	state, err := w.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(state); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("InMemoryGraph left %s (%v), want nothing written", state, err)
	}
	if _, err := w.Index(t.Context(), IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	if es, err := os.ReadDir(filepath.Join(state, "cache", "go-types")); err != nil || len(es) == 0 {
		t.Errorf("no type cache under %s after Index (%v)", state, err)
	}
}
