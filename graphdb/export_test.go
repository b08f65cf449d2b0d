package graphdb_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

func TestMatchPath(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern, file string
		want          bool
	}{
		{"net/http", "net/http/server.go", true},
		{"net/http/", "net/http/server.go", true},
		{"net/http", "net/httptest/server.go", false},
		{"net/http/server.go", "net/http/server.go", true},
		{"net/*", "net/http/server.go", true},
		{"*_test.go", "a/b_test.go", true}, // no "/": matched against the last element
		{"*_test.go", "a/b.go", false},
		{"a/*.go", "a/b/c.go", false}, // with "/": the whole path or a parent directory
		{"a/*_test.go", "a/b_test.go", true},
		{"*/testdata", "a/testdata/x.go", true},
		{"net", "", false},
	}
	for _, tt := range tests {
		if got := graphdb.MatchPath(tt.pattern, tt.file); got != tt.want {
			t.Errorf("MatchPath(%q, %q) = %v, want %v", tt.pattern, tt.file, got, tt.want)
		}
	}
}

// TestExportFilters: kinds and paths select nodes, and an edge is written
// only when both its ends are.
func TestExportFilters(t *testing.T) {
	t.Parallel()
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	fn := func(id, file string) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.KindFunction, Name: id, QName: id, Language: "go", File: file}
	}
	write := func(file string, nodes []graphdb.Node, edges []graphdb.Edge) {
		tx, err := st.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: file}, nodes, edges); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	write("a/a.go", []graphdb.Node{fn("A", "a/a.go"), {ID: "TA", Kind: graphdb.KindType, Name: "TA", QName: "TA", File: "a/a.go"}},
		[]graphdb.Edge{{From: "A", To: "B", Kind: graphdb.EdgeCalls, File: "a/a.go", Line: 2}, {From: "A", To: "TA", Kind: graphdb.EdgeReturns}})
	write("b/b.go", []graphdb.Node{fn("B", "b/b.go")}, []graphdb.Edge{{From: "B", To: "A", Kind: graphdb.EdgeReferences, File: "b/b.go", Line: 3}})
	tests := []struct {
		name string
		f    graphdb.ExportFilter
		want string
	}{
		{"everything", graphdb.ExportFilter{}, "node A\nnode B\nnode TA\nedge A returns TA\nedge A calls B\nedge B references A\n"}, // an owner's edges by (file, line)
		{"functions only", graphdb.ExportFilter{NodeKinds: []graphdb.NodeKind{graphdb.KindFunction}}, "node A\nnode B\nedge A calls B\nedge B references A\n"},
		{"one edge kind", graphdb.ExportFilter{EdgeKinds: []graphdb.EdgeKind{graphdb.EdgeReferences}}, "node A\nnode B\nnode TA\nedge B references A\n"},
		{"path drops edges to other paths", graphdb.ExportFilter{Path: "a"}, "node A\nnode TA\nedge A returns TA\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			err := graphdb.ScanFiltered(t.Context(), st, tt.f, func(_ string, n graphdb.Node) error {
				b.WriteString("node " + string(n.ID) + "\n")
				return nil
			}, func(_ string, e graphdb.Edge) error {
				b.WriteString("edge " + string(e.From) + " " + string(e.Kind) + " " + string(e.To) + "\n")
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
