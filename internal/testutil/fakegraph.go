// Package testutil holds what the packages' tests share: golden files
// ([Golden], honouring -update), txtar fixtures ([WriteTxtar]) and a small
// Go code graph built with go/parser ([FakeIndex]).
package testutil

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/relayhq/relay/graphdb"
)

// MemGraph is an in-memory graphdb.Reader for tests.
type MemGraph struct {
	NodeMap  map[graphdb.NodeID]graphdb.Node
	EdgeList []graphdb.Edge
	FileList []graphdb.FileRecord
}

func (g *MemGraph) Node(_ context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	n, ok := g.NodeMap[id]
	if !ok {
		return graphdb.Node{}, fmt.Errorf("node %s: %w", id, graphdb.ErrNotFound)
	}
	return n, nil
}

func (g *MemGraph) Neighbors(_ context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	var out []graphdb.Edge
	for _, e := range g.EdgeList {
		if e.Kind != kind {
			continue
		}
		if (dir == graphdb.Outbound && e.From == id) || (dir == graphdb.Inbound && e.To == id) {
			out = append(out, e)
		}
	}
	graphdb.SortEdges(out)
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (g *MemGraph) FindSymbols(_ context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	if q.Empty() {
		return nil, nil
	}
	var out []graphdb.Node
	for _, n := range g.NodeMap {
		if (q.ID != "" && n.ID != q.ID) || (q.QName != "" && n.QName != q.QName) || (q.Name != "" && n.Name != q.Name) ||
			(q.Loc != "" && n.Loc != q.Loc) || (q.File != "" && n.File != q.File) {
			continue
		}
		if q.Suffix != "" && n.QName != q.Suffix && !strings.HasSuffix(n.QName, "."+q.Suffix) && !strings.HasSuffix(n.QName, "/"+q.Suffix) {
			continue
		}
		if len(q.Kinds) > 0 {
			ok := false
			for _, k := range q.Kinds {
				ok = ok || n.Kind == k
			}
			if !ok {
				continue
			}
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].File != out[j].File {
			return out[i].File < out[j].File
		}
		if out[i].StartLine != out[j].StartLine {
			return out[i].StartLine < out[j].StartLine
		}
		return out[i].QName < out[j].QName
	})
	if q.Limit > 0 && len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

func (g *MemGraph) Files(context.Context) ([]graphdb.FileRecord, error) { return g.FileList, nil }

func (g *MemGraph) Stats(context.Context) (graphdb.Stats, error) {
	return graphdb.Stats{Files: len(g.FileList)}, nil
}

func (g *MemGraph) Meta(context.Context, string) (string, error) { return "", nil }

// FakeIndex builds a MemGraph from the Go files under root with go/parser:
// file, function, method and type nodes, parent edges, and call edges
// resolved by name (good enough for tests). The module path is "example.com/m".
func FakeIndex(t testing.TB, root string) *MemGraph {
	t.Helper()
	g := &MemGraph{NodeMap: map[graphdb.NodeID]graphdb.Node{}}
	fset := token.NewFileSet()
	type call struct {
		from graphdb.NodeID
		name string
		file string
		line int
	}
	var calls []call
	byName := map[string][]graphdb.NodeID{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		pkg := "example.com/m"
		if dir := filepath.ToSlash(filepath.Dir(rel)); dir != "." {
			pkg += "/" + dir
		}
		data, _ := os.ReadFile(p)
		g.FileList = append(g.FileList, graphdb.FileRecord{Path: rel, Language: "go", Module: pkg, Hash: hashString(data)})
		fileID := graphdb.NodeID("file:" + rel)
		g.NodeMap[fileID] = graphdb.Node{ID: fileID, Kind: graphdb.KindFile, Name: filepath.Base(rel), QName: rel, File: rel, Language: "go", StartLine: 1}
		for _, imp := range f.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			mid := graphdb.NodeID("module:" + path)
			g.NodeMap[mid] = graphdb.Node{ID: mid, Kind: graphdb.KindModule, Name: filepath.Base(path), QName: path, Language: "go"}
			g.EdgeList = append(g.EdgeList, graphdb.Edge{From: fileID, To: mid, Kind: graphdb.EdgeImports, File: rel, Line: fset.Position(imp.Pos()).Line})
		}
		add := func(n graphdb.Node, parent graphdb.NodeID) {
			n.Language, n.File = "go", rel
			n.Exported = ast.IsExported(n.Name)
			n.Test = strings.HasSuffix(rel, "_test.go")
			g.NodeMap[n.ID] = n
			g.EdgeList = append(g.EdgeList, graphdb.Edge{From: n.ID, To: parent, Kind: graphdb.EdgeParent})
			byName[n.Name] = append(byName[n.Name], n.ID)
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
					start := fset.Position(ts.Pos()).Line
					if len(d.Specs) == 1 {
						start = fset.Position(d.Pos()).Line
					}
					add(graphdb.Node{ID: graphdb.NodeID(q), Kind: graphdb.KindType, SubKind: "struct", Name: ts.Name.Name, QName: q,
						Loc: rel + ":" + ts.Name.Name, StartLine: start, EndLine: fset.Position(ts.End()).Line,
						Signature: "type " + ts.Name.Name}, fileID)
				}
			case *ast.FuncDecl:
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
				sig := string(data[fset.Position(d.Type.Pos()).Offset:fset.Position(d.Type.End()).Offset])
				add(graphdb.Node{ID: id, Kind: kind, SubKind: sub, Name: name, QName: q, Loc: loc,
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
						calls = append(calls, call{from: id, name: callee, file: rel, line: fset.Position(ce.Pos()).Line})
					}
					return true
				})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		for _, to := range byName[c.name] {
			if g.NodeMap[to].Kind != graphdb.KindType {
				g.EdgeList = append(g.EdgeList, graphdb.Edge{From: c.from, To: to, Kind: graphdb.EdgeCalls, File: c.file, Line: c.line})
				break
			}
		}
	}
	sort.Slice(g.FileList, func(i, j int) bool { return g.FileList[i].Path < g.FileList[j].Path })
	return g
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
