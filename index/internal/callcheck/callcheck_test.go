package callcheck

import (
	"path/filepath"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestSample compares the indexer's call edges with callgraph/static on a
// realistic multi-package sample and requires precision and recall of at
// least 0.99 on the comparable edges. The package doc lists what is left
// out of the comparison and why; the test checks that each of those cases
// actually occurs in the sample, so the exclusions are exercised.
func TestSample(t *testing.T) {
	root := testutil.WriteTxtar(t, filepath.Join("testdata", "sample.txtar"))
	rep, err := Compare(t.Context(), Options{Root: root, Tests: true, Env: []string{"GOWORK=off"}, Implements: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("report:\n%s", rep)
	if rep.LoadErrors != 0 {
		t.Errorf("sample has %d load errors", rep.LoadErrors)
	}
	if rep.Theirs < 40 {
		t.Errorf("only %d comparable static edges: the sample is too small to measure", rep.Theirs)
	}
	if rep.Precision < 0.99 || rep.Recall < 0.99 {
		t.Errorf("precision %.4f recall %.4f, want both >= 0.99", rep.Precision, rep.Recall)
	}
	if rep.VarInits < 3 {
		t.Errorf("%d variable-initialiser edges compared, want at least 3 (a call, a closure called in place, a closure value)", rep.VarInits)
	}
	// queue's generic interfaces: Ring, Ints, Named, Table, IntPusher and
	// Queue implement Pusher through instantiations, Entry implements
	// Keyer; the comparison must hold them all.
	if im := rep.Implements; im == nil || im.Theirs < 15 || im.Precision != 1 || im.Recall != 1 {
		t.Errorf("implements: %+v, want at least 15 pairs, precision and recall 1", im)
	}
	for _, reason := range []string{
		"ours: interface dispatch",
		"ours: references (function or method used as a value)",
		"ours: caller is init or blank func",
		"static: callee is a closure",
		"static: package initializer calls init func",
		"static: synthetic callee (package initializer)",
	} {
		if rep.Excluded[reason] == 0 {
			t.Errorf("the sample exercises no %q case", reason)
		}
	}
}
