package graphdb_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
)

// implGraph: interface I{M}; P implements it with a pointer receiver, V
// with a value receiver; interface J{M; N} satisfies I; F calls I.M; a
// placeholder without source shares P's qname. Interface L{N} and LE{L}
// (N embedded); E has N with a pointer receiver, W embeds E (only *W has
// N), X embeds *E (X has N).
func implGraph(t *testing.T) graphdb.Store {
	t.Helper()
	st, err := embedded.Open(t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := func(id, kind, sub, name, sig string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID(id), Kind: graphdb.NodeKind(kind), SubKind: sub, Name: name, QName: "p." + id,
			Language: "go", File: "a.go", StartLine: line, Signature: sig}
	}
	nodes := []graphdb.Node{
		n("I", "type", "interface", "I", "type I interface", 1), n("I.M", "member", "method", "M", "M()", 2),
		n("P", "type", "struct", "P", "type P struct", 4), n("P.M", "member", "method", "M", "func (p *P) M()", 5),
		n("V", "type", "struct", "V", "type V struct", 7), n("V.M", "member", "method", "M", "func (v V) M()", 8),
		n("J", "type", "interface", "J", "type J interface", 10), n("J.M", "member", "method", "M", "M()", 11),
		n("J.N", "member", "method", "N", "N()", 12),
		n("F", "function", "", "F", "func F(i I)", 14),
		n("L", "type", "interface", "L", "type L interface", 16), n("L.N", "member", "method", "N", "N()", 16),
		n("LE", "type", "interface", "LE", "type LE interface", 17),
		n("E", "type", "struct", "E", "type E struct", 18), n("E.N", "member", "method", "N", "func (e *E) N()", 19),
		n("W", "type", "struct", "W", "type W struct", 20), n("X", "type", "struct", "X", "type X struct", 21),
	}
	attr := func(id, key, val string) {
		for i := range nodes {
			if nodes[i].ID == graphdb.NodeID(id) {
				nodes[i].Attrs = map[string]string{key: val}
			}
		}
	}
	attr("P", graphdb.AttrPointerMethods, "M")
	attr("E", graphdb.AttrPointerMethods, "N")
	attr("W", graphdb.AttrPointerMethods, "N")
	attr("LE", graphdb.AttrEmbeddedMethods, "N")
	placeholder := graphdb.Node{ID: "ext:p.P", Kind: graphdb.KindType, SubKind: "struct", Name: "P", QName: "p.P", Language: "go",
		Attrs: map[string]string{graphdb.AttrExternal: "p"}}
	edges := []graphdb.Edge{
		{From: "I.M", To: "I", Kind: graphdb.EdgeParent}, {From: "P.M", To: "P", Kind: graphdb.EdgeParent},
		{From: "V.M", To: "V", Kind: graphdb.EdgeParent}, {From: "J.M", To: "J", Kind: graphdb.EdgeParent},
		{From: "J.N", To: "J", Kind: graphdb.EdgeParent},
		{From: "P", To: "I", Kind: graphdb.EdgeImplements}, {From: "V", To: "I", Kind: graphdb.EdgeImplements},
		{From: "J", To: "I", Kind: graphdb.EdgeImplements},
		{From: "L.N", To: "L", Kind: graphdb.EdgeParent}, {From: "E.N", To: "E", Kind: graphdb.EdgeParent},
		{From: "LE", To: "L", Kind: graphdb.EdgeInherits, File: "a.go", Line: 17}, {From: "LE", To: "L", Kind: graphdb.EdgeImplements},
		{From: "E", To: "L", Kind: graphdb.EdgeImplements}, {From: "W", To: "L", Kind: graphdb.EdgeImplements},
		{From: "X", To: "L", Kind: graphdb.EdgeImplements}, {From: "E", To: "LE", Kind: graphdb.EdgeImplements},
		{From: "W", To: "LE", Kind: graphdb.EdgeImplements}, {From: "X", To: "LE", Kind: graphdb.EdgeImplements},
		{From: "F", To: "I.M", Kind: graphdb.EdgeCalls, File: "a.go", Line: 15},
	}
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "a.go"}, nodes, edges); err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(t.Context(), graphdb.FileRecord{Path: "@ext"}, []graphdb.Node{placeholder}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

func TestImplementations(t *testing.T) {
	t.Parallel()
	st := implGraph(t)
	tests := []struct {
		name   string
		op     graphdb.Op
		target graphdb.NodeID
		want   []row
	}{
		{"pointer-only implementer is marked, interfaces listed", graphdb.OpImplementations, "I", []row{
			{"P", 1, "implements (only *P: pointer receivers)"}, {"V", 1, "implements"}, {"J", 1, "implements"},
		}},
		{"a pointer receiver promoted by embedding E makes W pointer-only, not X (embeds *E)", graphdb.OpImplementations, "L", []row{
			{"LE", 1, "implements"}, {"E", 1, "implements (only *E: pointer receivers)"},
			{"W", 1, "implements (only *W: pointer receivers)"}, {"X", 1, "implements"},
		}},
		{"a method the interface embeds counts", graphdb.OpImplementations, "LE", []row{
			{"E", 1, "implements (only *E: pointer receivers)"},
			{"W", 1, "implements (only *W: pointer receivers)"}, {"X", 1, "implements"},
		}},
		{"an interface satisfying I is no dispatch target", graphdb.OpCallees, "F", []row{
			{"I.M", 1, "called by"}, {"P.M", 1, "may dispatch to (via p.I.M)"}, {"V.M", 1, "may dispatch to (via p.I.M)"},
		}},
		{"callers of an interface method that satisfies another are its own", graphdb.OpCallers, "J.M", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := graphdb.Query(t.Context(), st, tt.op, tt.target, 1, 0)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, rows(got)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestResolvePrefersSource: a qualified name matching a placeholder
// without source and the declared node resolves to the declared one.
func TestResolvePrefersSource(t *testing.T) {
	t.Parallel()
	st := implGraph(t)
	for _, target := range []string{"p.P", "P"} {
		n, err := graphdb.Resolve(t.Context(), st, target)
		if err != nil {
			t.Fatalf("Resolve(%q): %v", target, err)
		}
		if n.ID != "P" {
			t.Errorf("Resolve(%q) = %s, want the declared P", target, n.ID)
		}
	}
}
