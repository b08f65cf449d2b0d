package index

import (
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/indextest"
)

// TestWrittenHandsOverEveryNode checks Options.Written: replaying what it
// reports (an owner's nodes replace its previous ones, an owner reported
// without nodes is gone) gives the nodes the store holds, after a first
// run and after an incremental run that rewrites one package and deletes
// a file.
func TestWrittenHandsOverEveryNode(t *testing.T) {
	t.Parallel()
	root := extractTxtar(t, "golang/testdata/tests.txtar")
	st := indextest.OpenStore()
	owners := map[string]int{}
	written := func(owner graphdb.FileRecord, nodes []graphdb.Node) {
		if len(nodes) == 0 {
			delete(owners, owner.Path)
			return
		}
		owners[owner.Path] = len(nodes)
	}
	check := func(when string) {
		t.Helper()
		stats, err := st.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range owners {
			n += c
		}
		if n == 0 || n != stats.TotalNodes() {
			t.Errorf("%s: %d nodes handed over, the store holds %d", when, n, stats.TotalNodes())
		}
	}
	if _, err := Run(t.Context(), st, Options{Root: root, Written: written}); err != nil {
		t.Fatal(err)
	}
	check("first run")
	removeFile(t, root, "p/zz_generated.go")
	sum, err := Run(t.Context(), st, Options{Root: root, Written: written})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Deleted != 1 {
		t.Fatalf("deleted = %d, want 1", sum.Deleted)
	}
	check("after deleting a file")
}
