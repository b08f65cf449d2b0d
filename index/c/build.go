package c

import (
	"path"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// File node attributes.
const (
	attrFacts   = "c.facts"   // the file's facts (facts.go), JSON
	attrSurface = "c.surface" // the fingerprint of what including files read
	attrDeps    = "c.deps"    // the files its includes reach, one a line
	attrRefs    = "c.refs"    // the repository-wide names its resolution looked up
	attrUnres   = "c.unres"   // "1": a quoted #include did not resolve
)

// build turns a file's facts into its owner, resolved against the table.
func build(rel string, rec graphdb.FileRecord, f *facts, t *table) frontend.FileResult {
	res := frontend.FileResult{Rec: rec}
	res.Rec.Language = "c"
	res.Rec.Errors = append(res.Rec.Errors[:0:0], f.Errors...)
	fileID := frontend.FileID(rel)
	test, td := isTest(rel), frontend.IsTestdata(rel)
	file := graphdb.Node{ID: fileID, Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel, Language: "c", File: rel,
		Test: test, Testdata: td, Attrs: map[string]string{attrFacts: f.encode(), attrSurface: f.surface()}}
	r := &resolver{t: t, rel: rel, vis: t.visible(rel), refs: map[string]bool{}}
	ids := frontend.IDCounts{}
	node := func(n graphdb.Node, parent graphdb.NodeID) graphdb.NodeID {
		n.ID = ids.Unique(n.ID)
		n.Language, n.File, n.Test, n.Testdata = "c", rel, test, td
		if n.Loc == "" {
			n.Loc = rel + ":" + n.Name
		}
		if n.QName == "" {
			n.QName = n.Name
		}
		res.Nodes = append(res.Nodes, n)
		res.Edges = append(res.Edges, graphdb.Edge{From: n.ID, To: parent, Kind: graphdb.EdgeParent, File: rel})
		return n.ID
	}
	_, unres := t.includes(rel)
	for _, in := range f.Includes {
		if p, ok := t.inc.Resolve(rel, in.Path, in.Quoted); ok && t.files[p] != nil {
			res.Edges = append(res.Edges, graphdb.Edge{From: fileID, To: frontend.FileID(p), Kind: graphdb.EdgeImports, File: rel, Line: in.Line})
		}
	}
	for _, ty := range f.Types {
		id := node(graphdb.Node{ID: typeID(rel, ty.Kind, ty.Name), Kind: graphdb.KindType, SubKind: ty.Kind, Name: ty.Name,
			StartLine: ty.Line, EndLine: ty.End, Signature: typeSig(ty), Doc: ty.Doc, Exported: true}, fileID)
		sub := "field"
		if ty.Kind == "enum" {
			sub = "enum_constant"
		}
		for _, m := range ty.Fields {
			node(graphdb.Node{ID: graphdb.NodeID(string(id) + "." + m.Name), Kind: graphdb.KindMember, SubKind: sub, Name: m.Name,
				QName: ty.Name + "." + m.Name, Loc: rel + ":" + ty.Name + "." + m.Name, StartLine: m.Line, EndLine: m.Line, Exported: true}, id)
		}
		if ty.Kind == "typedef" {
			if to, ok := r.typeNode(ty.Of); ok && to != id {
				res.Edges = append(res.Edges, graphdb.Edge{From: id, To: to, Kind: graphdb.EdgeReferences, File: rel, Line: ty.Line})
			}
		}
	}
	for _, m := range f.Macros {
		node(graphdb.Node{ID: macroID(rel, m.Name), Kind: graphdb.KindFunction, SubKind: "macro", Name: m.Name,
			StartLine: m.Line, EndLine: m.End, Signature: m.Sig, Exported: true}, fileID)
	}
	for _, fn := range f.Funcs {
		id := node(graphdb.Node{ID: funcID(rel, fn.Name), Kind: graphdb.KindFunction, SubKind: "function", Name: fn.Name,
			StartLine: fn.Line, EndLine: fn.End, Signature: fn.Sig, Doc: fn.Doc, Exported: !fn.Static}, fileID)
		if to, ok := r.typeNode(fn.Ret); ok {
			res.Edges = append(res.Edges, graphdb.Edge{From: id, To: to, Kind: graphdb.EdgeReturns, File: rel, Line: fn.Line})
		}
		for _, p := range fn.Params {
			if to, ok := r.typeNode(p); ok {
				res.Edges = append(res.Edges, graphdb.Edge{From: to, To: id, Kind: graphdb.EdgeParamOf, File: rel, Line: fn.Line})
			}
		}
		for _, c := range fn.Calls {
			if !r.guardsHold(c.Guard) {
				continue // in a branch the preprocessor drops
			}
			var tgs []target
			if c.Name != "" {
				tgs = r.call(c.Name, 0)
			} else {
				tgs = r.field(c.Field, c.Recv)
			}
			for _, tg := range tgs {
				kind := graphdb.EdgeCalls
				if tg.byName {
					kind = graphdb.EdgeCallsByName
				}
				res.Edges = append(res.Edges, graphdb.Edge{From: id, To: tg.id, Kind: kind, File: rel, Line: c.Line})
			}
		}
	}
	deps := t.visible(rel)[1:]
	if len(deps) > 0 {
		file.Attrs[attrDeps] = strings.Join(deps, "\n")
	}
	if len(r.refs) > 0 {
		file.Attrs[attrRefs] = strings.Join(frontend.SortedKeys(r.refs), "\n")
	}
	if unres {
		file.Attrs[attrUnres] = "1"
	}
	res.Nodes = append(res.Nodes, file)
	res.Sort()
	return res
}

func typeSig(ty typ) string {
	if ty.Kind == "typedef" {
		if ty.Of != "" {
			return "typedef " + ty.Of + " " + ty.Name
		}
		return "typedef " + ty.Name
	}
	return ty.Kind + " " + ty.Name
}

// isTest reports whether a file is a test's: under a test or tests
// folder, or named test_*.c, *_test.c, *_tests.c.
func isTest(rel string) bool {
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if d == "test" || d == "tests" {
			return true
		}
	}
	base := strings.TrimSuffix(strings.TrimSuffix(path.Base(rel), ".c"), ".h")
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test") || strings.HasSuffix(base, "_tests")
}
