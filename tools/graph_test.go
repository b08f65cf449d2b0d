package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
)

// testGraph models a sliver of net/http: a server type with methods, an
// interface and its implementation, an embedding type, a test and a main.
func testGraph() *memstore.Store {
	var nodes []graphdb.Node
	var edges []graphdb.Edge
	add := func(qname string, kind graphdb.NodeKind, sub, file string, line int, test bool) {
		name := qname[strings.LastIndexAny(qname, "./")+1:]
		loc := file + ":" + strings.TrimPrefix(qname[strings.LastIndex(qname, "/")+1:], strings.Split(qname[strings.LastIndex(qname, "/")+1:], ".")[0]+".")
		nodes = append(nodes, graphdb.Node{ID: graphdb.NodeID(qname), QName: qname, Name: name, Kind: kind, SubKind: sub,
			File: file, StartLine: line, EndLine: line + 5, Loc: loc, Language: "go", Test: test, Exported: name[0] >= 'A' && name[0] <= 'Z'})
	}
	edge := func(from, to string, kind graphdb.EdgeKind, file string, line int) {
		edges = append(edges, graphdb.Edge{From: graphdb.NodeID(from), To: graphdb.NodeID(to), Kind: kind, File: file, Line: line})
	}
	const srv = "net/http/server.go"
	add("net/http.Server", graphdb.KindType, "struct", srv, 10, false)
	add("net/http.Server.Addr", graphdb.KindMember, "field", srv, 11, false)
	add("net/http.Server.Serve", graphdb.KindMember, "method", srv, 100, false)
	add("net/http.Server.ListenAndServe", graphdb.KindMember, "method", srv, 200, false)
	add("net/http.ListenAndServe", graphdb.KindFunction, "", srv, 300, false)
	add("net/http.Handler", graphdb.KindType, "interface", srv, 50, false)
	add("net/http.HandlerFunc", graphdb.KindType, "func", srv, 60, false)
	add("net/http.NewServer", graphdb.KindFunction, "", srv, 400, false)
	add("net/http.Run", graphdb.KindFunction, "", srv, 500, false)
	add("net/http.loggingServer", graphdb.KindType, "struct", "net/http/log.go", 5, false)
	add("net/http.TestServe", graphdb.KindFunction, "", "net/http/server_test.go", 10, true)
	add("example.com/app.main", graphdb.KindFunction, "", "app/main.go", 5, false)
	add("net/rpc.Server.Serve", graphdb.KindMember, "method", "net/rpc/server.go", 70, false)
	edge("net/http.Server.ListenAndServe", "net/http.Server.Serve", graphdb.EdgeCalls, srv, 210)
	edge("net/http.ListenAndServe", "net/http.Server.ListenAndServe", graphdb.EdgeCalls, srv, 305)
	edge("example.com/app.main", "net/http.ListenAndServe", graphdb.EdgeCalls, "app/main.go", 6)
	edge("net/http.TestServe", "net/http.Server.Serve", graphdb.EdgeCalls, "net/http/server_test.go", 12)
	edge("net/http.HandlerFunc", "net/http.Handler", graphdb.EdgeImplements, "", 0)
	edge("net/http.Server.Serve", "net/http.Server", graphdb.EdgeParent, srv, 100)
	edge("net/http.Server.ListenAndServe", "net/http.Server", graphdb.EdgeParent, srv, 200)
	edge("net/http.Server.Addr", "net/http.Server", graphdb.EdgeParent, srv, 11)
	edge("net/http.NewServer", "net/http.Server", graphdb.EdgeReturns, srv, 400)
	edge("net/http.Server", "net/http.Run", graphdb.EdgeParamOf, srv, 500)
	edge("net/http.loggingServer", "net/http.Server", graphdb.EdgeInherits, "net/http/log.go", 6)
	// Calls resolved by name only: listed after the exact answer, never
	// as callers (TestServe, an exact caller, is not listed again).
	edge("example.com/app.main", "net/rpc.Server.Serve", graphdb.EdgeCallsByName, "app/main.go", 7)
	edge("net/http.Run", "net/http.Server.Serve", graphdb.EdgeCallsByName, srv, 502)
	edge("net/http.TestServe", "net/http.Server.Serve", graphdb.EdgeCallsByName, "net/http/server_test.go", 13)
	return storeOf(nodes, edges)
}

// storeOf writes nodes and edges, all owned by one pseudo-owner, to a new
// in-memory store.
func storeOf(nodes []graphdb.Node, edges []graphdb.Edge) *memstore.Store {
	ctx := context.Background()
	st := memstore.New()
	tx, err := st.Begin(ctx)
	if err == nil {
		if err = tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "@test"}, nodes, edges); err == nil {
			err = tx.Commit()
		}
	}
	if err != nil {
		panic(fmt.Sprintf("test graph: %v", err))
	}
	return st
}

func TestGraphTool(t *testing.T) {
	t.Parallel()
	g, err := NewGraph(Options{Root: t.TempDir(), Graph: testGraph()})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		isError    bool
	}{
		{"callers", `{"operation": "callers", "target": "net/http.Server.Serve"}`, false},
		{"callers_depth3", `{"operation": "callers", "target": "net/http.Server.Serve", "depth": 3}`, false},
		{"callees", `{"operation": "callees", "target": "example.com/app.main", "depth": 3}`, false},
		{"implementations", `{"operation": "implementations", "target": "Handler"}`, false},
		{"methods", `{"operation": "methods", "target": "http.Server"}`, false},
		{"usages", `{"operation": "usages", "target": "*Server", "depth": 4}`, false},
		{"inheritors", `{"operation": "inheritors", "target": "net/http/server.go:Server"}`, false},
		{"blast_radius", `{"operation": "blast-radius", "target": "net/http.Server.Serve"}`, false},
		{"no_results", `{"operation": "callers", "target": "example.com/app.main"}`, false},
		// A type operation asked of a function or method said only "No
		// methods and fields of … found"; it now says why and what to ask.
		{"methods_of_a_function", `{"operation": "methods", "target": "net/http.NewServer"}`, false},
		{"usages_of_a_method", `{"operation": "usages", "target": "net/http.Server.Serve"}`, false},
		{"implementations_of_a_function", `{"operation": "implementations", "target": "net/http.Run"}`, false},
		{"inheritors_of_a_field", `{"operation": "inheritors", "target": "net/http.Server.Addr"}`, false},
		{"no_methods_of_a_type", `{"operation": "methods", "target": "net/http.Handler"}`, false},
		// A function written as it is called ("Serve()") was not found.
		{"target_written_as_a_call", `{"operation": "callers", "target": "Server.ListenAndServe()"}`, false},
		{"target_written_as_a_call_with_args", `{"operation": "callers", "target": "net/http.Server.Serve(l net.Listener)"}`, false},
		{"ambiguous_target_written_as_a_call", `{"operation": "callers", "target": "ListenAndServe()"}`, true},
		{"unknown_target_written_as_a_call", `{"operation": "callers", "target": "Nothing()"}`, true},
		{"callers_by_name_only", `{"operation": "callers", "target": "net/rpc.Server.Serve"}`, false},
		{"ambiguous", `{"operation": "callers", "target": "Server.Serve"}`, true},
		{"not_found", `{"operation": "callers", "target": "pkg.Serve"}`, true},
		{"not_found_no_candidates", `{"operation": "callers", "target": "Nothing"}`, true},
		{"unknown_op", `{"operation": "friends", "target": "Server"}`, true},
		{"empty_target", `{"operation": "callers", "target": " "}`, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, g, tc.args)
			if res.IsError != tc.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tc.isError)
			}
			checkGolden(t, "graph/"+tc.name+".golden", res.Content)
		})
	}
}

func TestGraphLimitAndMeta(t *testing.T) {
	t.Parallel()
	g, err := NewGraph(Options{Root: t.TempDir(), Graph: testGraph(), GraphLimit: 2})
	if err != nil {
		t.Fatal(err)
	}
	res := call(t, g, `{"operation": "callers", "target": "net/http.Server.Serve", "depth": 9}`)
	want := `Callers of net/http.Server.Serve (depth 5):
Depth 1:
1. net/http.Server.ListenAndServe (net/http/server.go:200) method — calls at net/http/server.go:210
2. net/http.TestServe (net/http/server_test.go:10) function — calls at net/http/server_test.go:12
truncated: 2 more results, narrow with a smaller depth or a more specific target.
1 further possible caller by name only (not type-checked): net/http.Run at net/http/server.go:502. Calls whose receiver's type is unknown and whose name matches; read the sites to check.
Use read to fetch full code for any of these files.`
	if diff := cmp.Diff(want, res.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	wantMeta := &GraphMeta{Operation: "callers", Target: "net/http.Server.Serve", Depth: 5, Results: 4, Shown: 2, Truncated: 2, ByName: 1}
	if diff := cmp.Diff(wantMeta, res.Meta); diff != "" {
		t.Errorf("meta (-want +got):\n%s", diff)
	}
}

func TestGraphNoIndex(t *testing.T) {
	t.Parallel()
	// What to do about it is the surface's hint; without one the text
	// names no command.
	for _, h := range []Hints{{}, {NoIndex: "Index it the surface's way."}} {
		g, err := NewGraph(Options{Root: t.TempDir(), Hints: h})
		if err != nil {
			t.Fatal(err)
		}
		res := call(t, g, `{"operation": "callers", "target": "x"}`)
		want := "No code graph index exists for this repository yet." + hint(h.NoIndex) + " Meanwhile grep finds definitions"
		if !res.IsError || res.Content != NoIndexText(h) || !strings.HasPrefix(res.Content, want) || strings.Contains(res.Content, "relay index") {
			t.Errorf("hints %+v: got IsError=%v %q", h, res.IsError, res.Content)
		}
	}
}

func TestGraphJSON(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	r := testGraph()
	a, err := AnswerGraph(ctx, r, "callers", "net/http.Server.Serve", 2)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.MarshalIndent(a.JSON(0), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "graph/callers_depth2.json", string(b)+"\n")

	a, err = AnswerGraph(ctx, r, "blast_radius", "Server.ListenAndServe", 0)
	if err != nil {
		t.Fatal(err)
	}
	j := a.JSON(1)
	if j.Risk == nil || *j.Risk != a.Blast.Risk || j.Total != 2 || j.Truncated != 1 || len(j.Results) != 1 || a.Depth != graphdb.DefaultBlastDepth {
		t.Errorf("blast JSON = %+v (depth %d)", j, a.Depth)
	}
	if diff := cmp.Diff([]string{"app/main.go", "net/http/server.go"}, j.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func TestAnswerGraphErrors(t *testing.T) {
	t.Parallel()
	r := testGraph()
	tests := []struct {
		op, target string
		depth      int
		want       string
	}{
		{"callers", "Server.Serve", 1, `"Server.Serve" is ambiguous; 2 candidates:`},
		{"sideways", "Server", 1, `unknown graph operation "sideways"`},
		{"callers", "Serve", -1, "depth must be positive (got -1)"},
	}
	for _, tc := range tests {
		_, err := AnswerGraph(t.Context(), r, tc.op, tc.target, tc.depth)
		var ie *GraphInputError
		if !errorsAs(err, &ie) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("AnswerGraph(%s, %s) error = %v, want a GraphInputError containing %q", tc.op, tc.target, err, tc.want)
		}
	}
}

// TestFormatGraphRecursionAndReferences: a recursive target is its own
// caller, and functions using the target as a value are listed after the
// callers of every depth, each with its site.
func TestFormatGraphRecursionAndReferences(t *testing.T) {
	t.Parallel()
	fn := func(q, file string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID("go:" + q), Kind: graphdb.KindFunction, QName: q, File: file, StartLine: line}
	}
	f, g, h := fn("p.F", "a.go", 3), fn("p.G", "a.go", 10), fn("p.H", "b.go", 1)
	results := []graphdb.Result{
		{Node: f, Depth: 1, Relation: graphdb.RelRecursive, Via: f.ID, File: "a.go", Line: 5},
		{Node: g, Depth: 1, Relation: "calls", Via: f.ID, File: "a.go", Line: 11},
		{Node: h, Depth: 2, Relation: "calls", Via: g.ID, File: "b.go", Line: 2},
		{Node: h, Depth: 1, Relation: graphdb.RelReferenced, Via: f.ID, File: "b.go", Line: 4},
	}
	got := FormatGraph(graphdb.OpCallers, "p.F", 2, results, 0)
	want := `Callers of p.F (depth 2):
Depth 1:
1. p.F (a.go:3) function — calls itself (recursive) at a.go:5
2. p.G (a.go:10) function — calls at a.go:11
Depth 2:
3. p.H (b.go:1) function — calls p.G at b.go:2
Referenced as a value (not called there):
4. p.H (b.go:1) function — referenced as a value at b.go:4
Use read to fetch full code for any of these files.`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
}

// TestFormatGraphByName: by-name results end the answer as one footer
// line naming at most maxByNameShown of them, after the exact callers and
// the truncation note; they are neither numbered nor counted by limit.
func TestFormatGraphByName(t *testing.T) {
	t.Parallel()
	fn := func(q, file string, line int) graphdb.Node {
		return graphdb.Node{ID: graphdb.NodeID("py:" + q), Kind: graphdb.KindFunction, QName: q, File: file, StartLine: line}
	}
	f, g := fn("m.f", "m.py", 1), fn("m.g", "m.py", 10)
	results := []graphdb.Result{{Node: g, Depth: 1, Relation: "calls", Via: f.ID, File: "m.py", Line: 11}}
	var byName []graphdb.Result
	for i := range 7 {
		n := fn(fmt.Sprintf("n.h%d", i), "n.py", 10*i+1)
		byName = append(byName, graphdb.Result{Node: n, Depth: 1, Relation: graphdb.RelCallerByName, Via: f.ID, File: "n.py", Line: 10*i + 2})
	}
	tests := []struct {
		name    string
		op      graphdb.Op
		results []graphdb.Result
		limit   int
		want    string
	}{
		{"callers", graphdb.OpCallers, append(append([]graphdb.Result(nil), results...), byName[:2]...), 0, `Callers of m.f (depth 1):
1. m.g (m.py:10) function — calls at m.py:11
2 further possible callers by name only (not type-checked): n.h0 at n.py:2, n.h1 at n.py:12. Calls whose receiver's type is unknown and whose name matches; read the sites to check.
Use read to fetch full code for any of these files.`},
		{"limit counts exact only", graphdb.OpCallers, append(append([]graphdb.Result(nil), results...), byName...), 1, `Callers of m.f (depth 1):
1. m.g (m.py:10) function — calls at m.py:11
7 further possible callers by name only (not type-checked): n.h0 at n.py:2, n.h1 at n.py:12, n.h2 at n.py:22, n.h3 at n.py:32, n.h4 at n.py:42 and 2 more. Calls whose receiver's type is unknown and whose name matches; read the sites to check.
Use read to fetch full code for any of these files.`},
		{"by name only", graphdb.OpCallers, byName[:1], 0, `No callers of m.f found (depth 1). Calls through function values or reflection, and calls from code outside the repository, are not in the graph; grep for the name to find them.
1 possible caller by name only (not type-checked): n.h0 at n.py:2. Calls whose receiver's type is unknown and whose name matches; read the sites to check.`},
		{"callees", graphdb.OpCallees, []graphdb.Result{{Node: g, Depth: 1, Relation: graphdb.RelCalleeByName, Via: f.ID, File: "m.py", Line: 3}}, 0, `No callees of m.f found (depth 1).
1 possible callee by name only (not type-checked): m.g at m.py:3. Calls whose receiver's type is unknown and whose name matches; read the sites to check.`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, FormatGraph(tc.op, "m.f", 1, tc.results, tc.limit)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// TestGraphStaleHint: a symbol the graph does not hold at all ends with
// the surface's hint about a stale index; an ambiguous one does not.
func TestGraphStaleHint(t *testing.T) {
	t.Parallel()
	const stale = "Index again the surface's way."
	g, err := NewGraph(Options{Root: t.TempDir(), Graph: testGraph(), Hints: Hints{Stale: stale}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args string
		want bool
	}{
		{`{"operation": "callers", "target": "Nothing"}`, true},
		{`{"operation": "callers", "target": "Nothing()"}`, true},
		{`{"operation": "callers", "target": "Server.Serve"}`, false},
	}
	for _, tc := range tests {
		res := call(t, g, tc.args)
		if got := strings.HasSuffix(res.Content, "the index is stale. "+stale); got != tc.want || !res.IsError {
			t.Errorf("%s: ends with the stale hint = %v, want %v:\n%s", tc.args, got, tc.want, res.Content)
		}
	}
}
