package golang_test

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestPointerOnlyPromoted checks that `implementations` marks the types
// only whose pointer implements an interface when the pointer receiver is
// promoted through an embedded field (testdata/ptrpromoted.txtar), and
// when the interface gets the method by embedding another interface,
// declared in the repository or not (io.Closer).
func TestPointerOnlyPromoted(t *testing.T) {
	t.Parallel()
	root := indextest.ExtractTxtar(t, "ptrpromoted")
	st, err := embedded.Open(filepath.Join(t.TempDir(), "store"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	indexrun.Run(t, st, root, false)
	const p = "go:example.com/ptrpromoted/p."
	tests := []struct {
		iface graphdb.NodeID
		want  []string
	}{
		{p + "Incer", []string{
			"Counter implements (only *Counter: pointer receivers)",
			"IncGetter implements",
			"ByValue implements (only *ByValue: pointer receivers)",
			"ByPtr implements",
			"Deep implements (only *Deep: pointer receivers)",
			"Mixed implements (only *Mixed: pointer receivers)",
			"Named implements (only *Named: pointer receivers)",
		}},
		{p + "IncGetter", []string{
			"Counter implements (only *Counter: pointer receivers)",
			"ByValue implements (only *ByValue: pointer receivers)",
			"ByPtr implements",
			"Deep implements (only *Deep: pointer receivers)",
			"Mixed implements (only *Mixed: pointer receivers)",
			"Named implements (only *Named: pointer receivers)",
		}},
		{p + "ReadCloser", []string{
			"Mixed implements (only *Mixed: pointer receivers)",
			"File implements (only *File: pointer receivers)",
		}},
		{"go:io.Closer", []string{
			"ReadCloser implements",
			"Mixed implements (only *Mixed: pointer receivers)",
			"File implements (only *File: pointer receivers)",
		}},
	}
	for _, tt := range tests {
		rs, err := graphdb.Query(t.Context(), st, graphdb.OpImplementations, tt.iface, 1, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rs {
			got = append(got, r.Node.Name+" "+r.Relation)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("implementations %s (-want +got):\n%s", tt.iface, diff)
		}
	}
}
