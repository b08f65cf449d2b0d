// Package testutil holds what the packages' tests share: golden files
// ([Golden], honouring -update), txtar fixtures ([WriteTxtar]), and graphs
// in the in-memory graphdb/memstore store: [Graph] from nodes and edges,
// [FakeIndex] from a Go tree parsed with go/parser (no go/packages, so it
// is fast and needs no module); and the sandbox races that every reader of
// repository files must survive ([SymlinkSwapRace], [FIFOSwapRace]).
package testutil

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
)

// PseudoOwner owns what Graph and FakeIndex store outside any file record:
// nodes of no listed file (modules) and edges from them.
const PseudoOwner = "@testutil"

// Graph stores files, nodes and edges in a new in-memory store
// (graphdb/memstore) in one transaction. A node belongs to the record of
// its File, or to PseudoOwner when no record has that path; an edge to the
// owner of its From node.
func Graph(t testing.TB, files []graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) *memstore.Store {
	t.Helper()
	type owned struct {
		rec   graphdb.FileRecord
		nodes []graphdb.Node
		edges []graphdb.Edge
	}
	owners := map[string]*owned{}
	var order []string
	get := func(rec graphdb.FileRecord) *owned {
		o, ok := owners[rec.Path]
		if !ok {
			o = &owned{rec: rec}
			owners[rec.Path] = o
			order = append(order, rec.Path)
		}
		return o
	}
	for _, f := range files {
		get(f)
	}
	ownerOf := map[graphdb.NodeID]string{}
	for _, n := range nodes {
		path := n.File
		if _, ok := owners[path]; !ok {
			path = PseudoOwner
		}
		o := get(graphdb.FileRecord{Path: path})
		o.nodes = append(o.nodes, n)
		ownerOf[n.ID] = path
	}
	for _, e := range edges {
		path, ok := ownerOf[e.From]
		if !ok {
			path = PseudoOwner
		}
		o := get(graphdb.FileRecord{Path: path})
		o.edges = append(o.edges, e)
	}
	st := memstore.New()
	t.Cleanup(func() { st.Close() })
	ctx := context.Background()
	tx, err := st.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range order {
		o := owners[path]
		if err := tx.ReplaceFile(ctx, o.rec, o.nodes, o.edges); err != nil {
			tx.Rollback()
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return st
}

// FakeIndex builds a graph (Graph) from the Go files under root with go/parser:
// file, function, method and type nodes, parent edges, and call edges
// resolved by name (good enough for tests). The module path is "example.com/m".
func FakeIndex(t testing.TB, root string) *memstore.Store {
	t.Helper()
	fx := &fakeIndexer{fset: token.NewFileSet(), nodes: map[graphdb.NodeID]graphdb.Node{}, byName: map[string][]graphdb.NodeID{}}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		return fx.file(p, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fx.calls {
		for _, to := range fx.byName[c.name] {
			if fx.nodes[to].Kind != graphdb.KindType {
				fx.edges = append(fx.edges, graphdb.Edge{From: c.from, To: to, Kind: graphdb.EdgeCalls, File: c.file, Line: c.line})
				break
			}
		}
	}
	nodes := slices.Collect(maps.Values(fx.nodes))
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].ID < nodes[j].ID })
	return Graph(t, fx.files, nodes, fx.edges)
}

// fakeIndexer is FakeIndex's state: what the files parsed so far hold, and
// the calls to resolve by name once every file is parsed.
type fakeIndexer struct {
	fset   *token.FileSet
	nodes  map[graphdb.NodeID]graphdb.Node
	edges  []graphdb.Edge
	files  []graphdb.FileRecord
	calls  []fakeCall
	byName map[string][]graphdb.NodeID
}

type fakeCall struct {
	from graphdb.NodeID
	name string
	file string
	line int
}

// file adds one Go file: its file node, imports, declarations and calls.
func (fx *fakeIndexer) file(p, rel string) error {
	f, err := parser.ParseFile(fx.fset, p, nil, parser.ParseComments)
	if err != nil {
		return err
	}
	pkg := "example.com/m"
	if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
		pkg += "/" + dir
	}
	data, _ := os.ReadFile(p)
	fx.files = append(fx.files, graphdb.FileRecord{Path: rel, Language: "go", Module: pkg, Hash: hashString(data)})
	fileID := graphdb.NodeID("file:" + rel)
	fx.nodes[fileID] = graphdb.Node{ID: fileID, Kind: graphdb.KindFile, Name: filepath.Base(rel), QName: rel, File: rel, Language: "go", StartLine: 1}
	for _, imp := range f.Imports {
		path := strings.Trim(imp.Path.Value, `"`)
		mid := graphdb.NodeID("module:" + path)
		fx.nodes[mid] = graphdb.Node{ID: mid, Kind: graphdb.KindModule, Name: filepath.Base(path), QName: path, Language: "go"}
		fx.edges = append(fx.edges, graphdb.Edge{From: fileID, To: mid, Kind: graphdb.EdgeImports, File: rel, Line: fx.fset.Position(imp.Pos()).Line})
	}
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				ts, ok := sp.(*ast.TypeSpec)
				if !ok {
					continue
				}
				q := pkg + "." + ts.Name.Name
				start := fx.fset.Position(ts.Pos()).Line
				if len(d.Specs) == 1 {
					start = fx.fset.Position(d.Pos()).Line
				}
				fx.add(rel, graphdb.Node{ID: graphdb.NodeID(q), Kind: graphdb.KindType, SubKind: "struct", Name: ts.Name.Name, QName: q,
					Loc: rel + ":" + ts.Name.Name, StartLine: start, EndLine: fx.fset.Position(ts.End()).Line,
					Signature: "type " + ts.Name.Name}, fileID)
			}
		case *ast.FuncDecl:
			fx.function(d, pkg, rel, fileID, data)
		}
	}
	return nil
}

// add stores a declaration of rel and its parent edge.
func (fx *fakeIndexer) add(rel string, n graphdb.Node, parent graphdb.NodeID) {
	n.Language, n.File = "go", rel
	n.Exported = ast.IsExported(n.Name)
	n.Test = strings.HasSuffix(rel, "_test.go")
	fx.nodes[n.ID] = n
	fx.edges = append(fx.edges, graphdb.Edge{From: n.ID, To: parent, Kind: graphdb.EdgeParent})
	fx.byName[n.Name] = append(fx.byName[n.Name], n.ID)
}

// function adds a function or method and records the calls in its body.
func (fx *fakeIndexer) function(d *ast.FuncDecl, pkg, rel string, fileID graphdb.NodeID, data []byte) {
	name := d.Name.Name
	q, loc, kind, parent := pkg+"."+name, rel+":"+name, graphdb.KindFunction, fileID
	sub := ""
	if d.Recv != nil && len(d.Recv.List) > 0 {
		rt := d.Recv.List[0].Type
		if st, ok := rt.(*ast.StarExpr); ok {
			rt = st.X
		}
		recv := fmt.Sprint(rt)
		q, loc, kind, sub = pkg+"."+recv+"."+name, rel+":"+recv+"."+name, graphdb.KindMember, "method"
		parent = graphdb.NodeID(pkg + "." + recv)
	}
	id := graphdb.NodeID(q)
	doc := ""
	if d.Doc != nil {
		doc = strings.SplitN(d.Doc.Text(), "\n", 2)[0]
	}
	fset := fx.fset
	sig := string(data[fset.Position(d.Type.Pos()).Offset:fset.Position(d.Type.End()).Offset])
	fx.add(rel, graphdb.Node{ID: id, Kind: kind, SubKind: sub, Name: name, QName: q, Loc: loc,
		StartLine: fset.Position(d.Pos()).Line, EndLine: fset.Position(d.End()).Line,
		Signature: sig, Doc: doc}, parent)
	ast.Inspect(d, func(n ast.Node) bool {
		ce, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		var callee string
		switch fn := ce.Fun.(type) {
		case *ast.Ident:
			callee = fn.Name
		case *ast.SelectorExpr:
			callee = fn.Sel.Name
		}
		if callee != "" {
			fx.calls = append(fx.calls, fakeCall{from: id, name: callee, file: rel, line: fset.Position(ce.Pos()).Line})
		}
		return true
	})
}

// WriteTxtar materialises a txtar archive under a new temp dir.
func WriteTxtar(t testing.TB, file string) string {
	t.Helper()
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	for _, f := range ar.Files {
		p := filepath.Join(root, filepath.FromSlash(f.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func hashString(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:12])
}
