package clangcheck

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

// TestCompare scores a hand-made relay graph against a hand-made truth:
// a hit through a prototype, a miss, a wrong edge, an edge at an
// indirect site and an edge to a macro left out, a caller relay lacks.
func TestCompare(t *testing.T) {
	open := Func{File: "dev.c", Line: 9, Start: 9, Name: "dev_open", Kind: "FunctionDecl"}
	helper := Func{File: "dev.c", Line: 4, Start: 3, Name: "helper", Kind: "FunctionDecl"}
	read := Func{File: "dev.c", Line: 15, Start: 15, Name: "dev_read", Kind: "FunctionDecl"}
	readDecl := Func{File: "dev.h", Line: 10, Start: 10, Name: "dev_read", Kind: "FunctionDecl"}
	main := Func{File: "main.c", Line: 7, Start: 7, Name: "main", Kind: "FunctionDecl"}
	lost := Func{File: "main.c", Line: 20, Start: 20, Name: "lost", Kind: "FunctionDecl"}
	tr := &Truth{
		Edges: []Edge{
			{Caller: open, Callee: helper, Decls: []Func{helper}, File: "dev.c", Line: 12},
			{Caller: main, Callee: read, Decls: []Func{readDecl, read}, File: "main.c", Line: 9},
			{Caller: main, Callee: open, Decls: []Func{open}, File: "main.c", Line: 10},
			{Caller: lost, Callee: open, Decls: []Func{open}, File: "main.c", Line: 21},
		},
		Indirect: []Site{{File: "main.c", Line: 11}},
		Defs:     []Func{helper, open, read, main, lost},
	}
	fn := func(id, file, name string, line int, sub string) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.KindFunction, SubKind: sub, Name: name, Language: "c", File: file, StartLine: line}
	}
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	calls := func(from, to, file string, line int) graphdb.Edge {
		return graphdb.Edge{From: graphdb.NodeID(from), To: graphdb.NodeID(to), Kind: graphdb.EdgeCalls, File: file, Line: line}
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "dev.c", Language: "c"},
		[]graphdb.Node{fn("open", "dev.c", "dev_open", 9, ""), fn("helper", "dev.c", "helper", 3, ""), fn("read", "dev.c", "dev_read", 15, "")},
		[]graphdb.Edge{calls("open", "helper", "dev.c", 12), calls("open", "read", "dev.c", 13)}))
	must(tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "dev.h", Language: "c"},
		[]graphdb.Node{fn("readdecl", "dev.h", "dev_read", 10, ""), fn("MAC", "dev.h", "MAC", 12, "macro")}, nil))
	must(tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "main.c", Language: "c"},
		[]graphdb.Node{fn("main", "main.c", "main", 7, "")},
		[]graphdb.Edge{calls("main", "readdecl", "main.c", 9), calls("main", "helper", "main.c", 11), calls("main", "MAC", "main.c", 12)}))
	must(tx.Commit())
	r, err := LoadRelay(t.Context(), st, "c")
	if err != nil {
		t.Fatal(err)
	}
	got := Compare(tr, r, CompareOptions{})
	want := Result{
		Score:  Score{Callers: 5, Unmatched: 1, Truth: 4, TruthHit: 2, Relay: 3, RelayHit: 2, Indirect: 1, Macro: 1},
		Misses: []string{"main.c:20:lost -> dev.c:9:dev_open", "main.c:7:main -> dev.c:9:dev_open"},
		Wrong:  []string{"dev.c:9:dev_open -> dev.c:15:dev_read (at dev.c:13)"},
		NoNode: []string{"main.c:20:lost"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
	if p, r := got.Precision(), got.Recall(); p != 2.0/3 || r != 0.5 {
		t.Errorf("precision %v recall %v, want 2/3 and 1/2", p, r)
	}
	if s := Compare(tr, r, CompareOptions{Sample: 2, Seed: 1}); s.Callers != 2 {
		t.Errorf("sampled %d callers, want 2", s.Callers)
	}
}
