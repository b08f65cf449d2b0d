// Package indexrun runs package index for the tests of the language
// packages (index/typescript, …), which test through index.Run from
// outside: Run is the indextest.Run they pass to indextest.Golden and
// indextest.MatchesFullIndex. (Package index's own tests cannot import it:
// it imports index.)
package indexrun

import (
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
)

// Run indexes root into st with the default options (Options.Full when
// full) and fails the test on an error.
func Run(t *testing.T, st graphdb.Store, root string, full bool) index.Summary {
	t.Helper()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root, Full: full})
	if err != nil {
		t.Fatalf("index.Run: %v", err)
	}
	return sum
}
