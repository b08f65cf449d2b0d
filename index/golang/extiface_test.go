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

// TestExternalInterfaceQueries checks what the graph operations make of
// the interfaces declared outside the repository: Resolve finds io.Writer
// by qname, its implementations are the repository's writers, and the
// callers of a repository Write method include the calls through
// io.Writer.Write. It runs against the embedded store (the in-memory test
// store answers no qname queries).
func TestExternalInterfaceQueries(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := indextest.ExtractTxtar(t, "extiface")
	st, err := embedded.Open(filepath.Join(t.TempDir(), "store"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	indexrun.Run(t, st, root, false)

	w, err := graphdb.Resolve(ctx, st, "io.Writer")
	if err != nil {
		t.Fatalf("Resolve io.Writer: %v", err)
	}
	if w.ID != "go:io.Writer" || !w.External() || w.File != "" {
		t.Errorf("Resolve io.Writer = %+v, want the external node go:io.Writer without a file", w)
	}
	line := func(rs []graphdb.Result) []string {
		var out []string
		for _, r := range rs {
			s := r.Node.QName + " " + r.Relation
			if r.File != "" {
				s += " @" + r.File
			}
			out = append(out, s)
		}
		return out
	}
	impls, err := graphdb.Query(ctx, st, graphdb.OpImplementations, w.ID, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// io.ReadWriter's method set includes Writer's; Buf writes through a
	// pointer receiver.
	want := []string{"io.ReadWriter implements", "example.com/ext/w.Buf implements (only *Buf: pointer receivers)", "example.com/ext/w.Logger implements"}
	if diff := cmp.Diff(want, line(impls)); diff != "" {
		t.Errorf("implementations io.Writer (-want +got):\n%s", diff)
	}
	callers, err := graphdb.Query(ctx, st, graphdb.OpCallers, "go:example.com/ext/w.Buf.Write", 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{
		"example.com/ext/h.Say calls via interface io.Writer.Write @h/h.go",
		"example.com/ext/w.Emit calls via interface io.Writer.Write @w/w.go",
		"example.com/ext/w.Copy calls via interface io.Writer.Write @w/w.go",
	}
	if diff := cmp.Diff(want, line(callers)); diff != "" {
		t.Errorf("callers of Buf.Write (-want +got):\n%s", diff)
	}
	blast, err := graphdb.BlastRadius(ctx, st, []graphdb.NodeID{"go:example.com/ext/w.Err.Error"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"example.com/ext/w.Emit calls via interface error.Error @w/w.go"}, line(blast.Direct)); diff != "" {
		t.Errorf("blast radius of Err.Error (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"w/w.go"}, blast.Files); diff != "" {
		t.Errorf("blast radius files (-want +got):\n%s", diff)
	}
}
