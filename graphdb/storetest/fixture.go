package storetest

import "github.com/relayhq/relay/graphdb"

// Node ids of the fixture graph. Ids carry a "go:" prefix so resolution by
// id and by qname are different rungs.
const (
	idModA    graphdb.NodeID = "mod:ex/a"
	idModB    graphdb.NodeID = "mod:ex/b"
	idFileA   graphdb.NodeID = "file:a.go"
	idFileB   graphdb.NodeID = "file:b.go"
	idServer  graphdb.NodeID = "go:ex/a.Server"
	idServe   graphdb.NodeID = "go:ex/a.Server.Serve"
	idAddr    graphdb.NodeID = "go:ex/a.Server.addr"
	idHandler graphdb.NodeID = "go:ex/a.Handler"
	idHServe  graphdb.NodeID = "go:ex/a.Handler.Serve"
	idNew     graphdb.NodeID = "go:ex/a.New"
	idHelper  graphdb.NodeID = "go:ex/a.helper"
	idWrapper graphdb.NodeID = "go:ex/a.Wrapper"
	idMain    graphdb.NodeID = "go:ex/b.Main"
	idLoop    graphdb.NodeID = "go:ex/b.loop"
	idBServe  graphdb.NodeID = "go:ex/b.Serve"
	idTest    graphdb.NodeID = "go:ex/b.TestMain"
	idGone    graphdb.NodeID = "go:ex/gone.F" // target of a dangling edge; never stored
)

// owner is one ReplaceFile call of the fixture.
type owner struct {
	file  graphdb.FileRecord
	nodes []graphdb.Node
	edges []graphdb.Edge
}

func node(id graphdb.NodeID, kind graphdb.NodeKind, sub, name, qname, loc, file string, start, end int) graphdb.Node {
	return graphdb.Node{ID: id, Kind: kind, SubKind: sub, Name: name, QName: qname, Loc: loc, Language: "go",
		File: file, StartLine: start, EndLine: end}
}

func edge(from, to graphdb.NodeID, kind graphdb.EdgeKind, file string, line int) graphdb.Edge {
	return graphdb.Edge{From: from, To: to, Kind: kind, File: file, Line: line}
}

// fixture is a two-package repository with a call cycle (Main ⇄ loop and
// loop → loop), a dangling call (Main → gone.F), a reference (Main uses
// helper as a value), three nodes named Serve, a
// test file and a pseudo-owner for implements edges.
func fixture() []owner {
	server := node(idServer, graphdb.KindType, "struct", "Server", "ex/a.Server", "a.go:Server", "a.go", 3, 10)
	server.Exported = true
	server.Doc = "Server serves."
	server.Attrs = map[string]string{"go.methodset": "Serve", "go.size": "24", graphdb.AttrPointerMethods: "Serve"}
	serve := node(idServe, graphdb.KindMember, "method", "Serve", "ex/a.Server.Serve", "a.go:Server.Serve", "a.go", 12, 20)
	serve.Exported = true
	serve.Signature = "func (s *Server) Serve() error"
	newFn := node(idNew, graphdb.KindFunction, "", "New", "ex/a.New", "a.go:New", "a.go", 26, 30)
	newFn.Exported = true
	newFn.Generated = true
	helper := node(idHelper, graphdb.KindFunction, "", "helper", "ex/a.helper", "a.go:helper", "a.go", 32, 35)
	helper.Signature = "func helper(s *Server)"
	main := node(idMain, graphdb.KindFunction, "", "Main", "ex/b.Main", "b.go:Main", "b.go", 5, 15)
	main.Exported = true
	test := node(idTest, graphdb.KindFunction, "", "TestMain", "ex/b.TestMain", "b_test.go:TestMain", "b_test.go", 3, 9)
	test.Test = true
	test.Testdata = true
	test.Exported = true
	return []owner{
		{
			file: graphdb.FileRecord{Path: "@modules", Language: "go"},
			nodes: []graphdb.Node{
				{ID: idModA, Kind: graphdb.KindModule, SubKind: "package", Name: "a", QName: "ex/a", Language: "go"},
				{ID: idModB, Kind: graphdb.KindModule, SubKind: "package", Name: "b", QName: "ex/b", Language: "go"},
			},
		},
		{
			file: graphdb.FileRecord{Path: "a.go", Hash: "h-a", Language: "go", Module: "ex/a", Size: 400},
			nodes: []graphdb.Node{
				node(idFileA, graphdb.KindFile, "", "a.go", "a.go", "a.go", "a.go", 1, 40),
				server,
				node(idAddr, graphdb.KindMember, "field", "addr", "ex/a.Server.addr", "a.go:Server.addr", "a.go", 4, 4),
				serve,
				node(idHandler, graphdb.KindType, "interface", "Handler", "ex/a.Handler", "a.go:Handler", "a.go", 22, 24),
				node(idHServe, graphdb.KindMember, "method", "Serve", "ex/a.Handler.Serve", "a.go:Handler.Serve", "a.go", 23, 23),
				newFn,
				helper,
				node(idWrapper, graphdb.KindType, "struct", "Wrapper", "ex/a.Wrapper", "a.go:Wrapper", "a.go", 37, 39),
			},
			edges: []graphdb.Edge{
				edge(idFileA, idModA, graphdb.EdgeParent, "a.go", 1),
				edge(idAddr, idServer, graphdb.EdgeParent, "a.go", 4),
				edge(idServe, idServer, graphdb.EdgeParent, "a.go", 12),
				edge(idHServe, idHandler, graphdb.EdgeParent, "a.go", 23),
				edge(idServe, idHelper, graphdb.EdgeCalls, "a.go", 14),
				edge(idServe, idNew, graphdb.EdgeCalls, "a.go", 15),
				edge(idNew, idHelper, graphdb.EdgeCalls, "a.go", 28),
				edge(idNew, idServer, graphdb.EdgeReturns, "a.go", 26),
				edge(idServer, idHelper, graphdb.EdgeParamOf, "a.go", 32),
				edge(idHelper, idNew, graphdb.EdgeDecoratedBy, "a.go", 31),
				edge(idWrapper, idServer, graphdb.EdgeInherits, "a.go", 38),
			},
		},
		{
			file: graphdb.FileRecord{Path: "b.go", Hash: "h-b", Language: "go", Module: "ex/b", Size: 300,
				Errors: []string{"b.go:40:2: undefined: x"}},
			nodes: []graphdb.Node{
				node(idFileB, graphdb.KindFile, "", "b.go", "b.go", "b.go", "b.go", 1, 30),
				main,
				node(idLoop, graphdb.KindFunction, "", "loop", "ex/b.loop", "b.go:loop", "b.go", 17, 25),
				node(idBServe, graphdb.KindFunction, "", "Serve", "ex/b.Serve", "b.go:Serve", "b.go", 27, 29),
			},
			edges: []graphdb.Edge{
				edge(idFileB, idModB, graphdb.EdgeParent, "b.go", 1),
				edge(idFileB, idModA, graphdb.EdgeImports, "b.go", 3),
				edge(idMain, idNew, graphdb.EdgeCalls, "b.go", 6),
				edge(idMain, idServe, graphdb.EdgeCalls, "b.go", 7),
				edge(idMain, idLoop, graphdb.EdgeCalls, "b.go", 8),
				edge(idMain, idGone, graphdb.EdgeCalls, "b.go", 9),
				edge(idMain, idHelper, graphdb.EdgeReferences, "b.go", 10),
				edge(idLoop, idLoop, graphdb.EdgeCalls, "b.go", 18),
				edge(idLoop, idMain, graphdb.EdgeCalls, "b.go", 19),
				edge(idBServe, idServe, graphdb.EdgeCalls, "b.go", 28),
			},
		},
		{
			file:  graphdb.FileRecord{Path: "b_test.go", Hash: "h-bt", Language: "go", Module: "ex/b", Size: 90},
			nodes: []graphdb.Node{test},
			edges: []graphdb.Edge{
				edge(idTest, idMain, graphdb.EdgeCalls, "b_test.go", 5),
				edge(idTest, idBServe, graphdb.EdgeCalls, "b_test.go", 6),
			},
		},
		{
			file: graphdb.FileRecord{Path: "@go/implements", Language: "go"},
			edges: []graphdb.Edge{
				edge(idServer, idHandler, graphdb.EdgeImplements, "a.go", 3),
			},
		},
	}
}

// fixtureNodes returns every fixture node by id.
func fixtureNodes() map[graphdb.NodeID]graphdb.Node {
	m := map[graphdb.NodeID]graphdb.Node{}
	for _, o := range fixture() {
		for _, n := range o.nodes {
			m[n.ID] = n
		}
	}
	return m
}
