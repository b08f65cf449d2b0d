package index

import (
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/indextest"
)

// extractTxtar writes the files of testdata/name.txtar (or of the archive
// at path name when it ends in .txtar) into a new temporary
// directory and returns it.
func extractTxtar(t testing.TB, name string) string {
	t.Helper()
	return indextest.ExtractTxtar(t, name)
}

// openStore returns an empty store. The package's tests use an in-memory
// store so that they exercise the indexer alone; index/internal/benchstd
// runs the indexer against the embedded store.
func openStore(t *testing.T) graphdb.Store {
	t.Helper()
	return newMemStore()
}

func runIndex(t *testing.T, st graphdb.Store, root string, full bool) Summary {
	t.Helper()
	sum, err := Run(t.Context(), st, Options{Root: root, Full: full})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum
}

// matchesFullIndex returns the dump of st (just indexed incrementally) and
// reports, under step's name, where it differs from a fresh full index of
// the same tree.
func matchesFullIndex(t *testing.T, step string, st graphdb.Store, root string) string {
	t.Helper()
	return indextest.MatchesFullIndex(t, step, st, root, runFull)
}

// runFull is runIndex as an indextest.Run.
func runFull(t *testing.T, st graphdb.Store, root string, full bool) Summary {
	t.Helper()
	return runIndex(t, st, root, full)
}

// dumpHolds reports, under step's name, each of want the dump lacks and
// each of notWant it still holds; empty strings are skipped.
func dumpHolds(t *testing.T, step, got string, want, notWant []string) {
	t.Helper()
	indextest.DumpHolds(t, step, got, want, notWant)
}

// dump renders everything the store holds for the repository as sorted
// text: file records, nodes and the outgoing edges of every node.
func dump(t *testing.T, st graphdb.Store) string {
	t.Helper()
	return indextest.Dump(t, st)
}

func summaryText(s Summary) string { return indextest.SummaryText(s) }
