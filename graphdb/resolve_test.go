package graphdb_test

import (
	"errors"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

// TestResolvePath resolves targets written with "::" (or ".") against the
// qualified names Rust and C++ give their nodes, which the suffix rung
// does not split.
func TestResolvePath(t *testing.T) {
	t.Parallel()
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := func(id, kind, sub, name string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID("cpp:" + id), Kind: graphdb.NodeKind(kind), SubKind: sub, Name: name, QName: id,
			Language: "cpp", File: "a.cc", StartLine: line}
	}
	nodes := []graphdb.Node{
		n("shapes::Box", "type", "class", "Box", 1), n("shapes::Box::get", "member", "method", "get", 2),
		n("shapes::Bag", "type", "class", "Bag", 3), n("shapes::Bag::get", "member", "method", "get", 4),
		n("other::Bag", "type", "class", "Bag", 5), n("other::Bag::get", "member", "method", "get", 6),
	}
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "a.cc"}, nodes, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		target, want string
		ambiguous   bool
	}{
		{"Box::get", "cpp:shapes::Box::get", false},
		{"Box.get", "cpp:shapes::Box::get", false},
		{"shapes::Bag::get", "cpp:shapes::Bag::get", false}, // the exact qname rung
		{"other::Bag::get", "cpp:other::Bag::get", false},
		{"Bag::get", "", true},
		{"Box::put", "", false},
	} {
		got, err := graphdb.Resolve(t.Context(), st, tt.target)
		switch {
		case tt.want != "":
			if err != nil || got.ID != graphdb.NodeID(tt.want) {
				t.Errorf("Resolve(%q) = %s, %v; want %s", tt.target, got.ID, err, tt.want)
			}
		case tt.ambiguous:
			if !errors.Is(err, graphdb.ErrAmbiguous) {
				t.Errorf("Resolve(%q) = %s, %v; want ambiguous", tt.target, got.ID, err)
			}
		default:
			if !errors.Is(err, graphdb.ErrNotFound) {
				t.Errorf("Resolve(%q) = %s, %v; want not found", tt.target, got.ID, err)
			}
		}
	}
}
