package golang

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// looseFiles indexes the files no type-checked package covers, from syntax
// alone and one file at a time:
//   - loose: testdata files, files outside every module, files go list could
//     not place in a package: file node plus its types, functions, methods
//     and fields (no calls or type edges: there is no type information);
//   - ignored: files excluded by build constraints for this platform: a file
//     node only (their declarations would clash with the included files').
func (r *runState) looseFiles(ctx context.Context, loose, ignored []string) error {
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(r.j.Workers)
	all := append(append([]string(nil), loose...), ignored...)
	var mu sync.Mutex
	n := 0
	for _, rel := range all {
		isIgnored := !contains(loose, rel)
		g.Go(func() error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// A panic is the file's error (parseOne), not the run's end.
			if fr := frontend.ParseOne(r.j, isIgnored, rel, r.syntaxFilePtr); fr != nil {
				r.emit(*fr)
			}
			mu.Lock()
			n++
			if n%64 == 0 || n == len(all) {
				r.j.Progress(frontend.Progress{Phase: "files", Done: n, Total: len(all), Item: rel})
			}
			mu.Unlock()
			return nil
		})
	}
	return g.Wait()
}

func contains(sorted []string, s string) bool {
	lo, hi := 0, len(sorted)
	for lo < hi {
		m := (lo + hi) / 2
		if sorted[m] < s {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(sorted) && sorted[lo] == s
}

// syntaxFilePtr is syntaxFile for parseOne: nil when the file is not
// indexed.
func (r *runState) syntaxFilePtr(ignored bool, rel string) *frontend.FileResult {
	if fr, ok := r.syntaxFile(rel, ignored); ok {
		return &fr
	}
	return nil
}

func (r *runState) syntaxFile(rel string, ignored bool) (frontend.FileResult, bool) {
	data, err := r.j.Read(rel)
	if err != nil {
		r.j.Note(frontend.Diagnostic{Pos: frontend.ShortRel(rel), Msg: frontend.Reason(err)})
		return frontend.FileResult{}, false
	}
	fset := token.NewFileSet()
	mode := parser.ParseComments | parser.SkipObjectResolution
	if ignored {
		mode |= parser.PackageClauseOnly
	}
	f, perr := parser.ParseFile(fset, rel, data, mode)
	fr := frontend.FileResult{Rec: graphdb.FileRecord{Path: rel, Hash: frontend.ContentHash(data), Language: "go", Size: int64(len(data))}}
	if perr != nil {
		for _, msg := range errorLines(perr) {
			fr.Rec.Errors = append(fr.Rec.Errors, strings.TrimPrefix(msg, rel+":"))
		}
	}
	x := &syntaxExtractor{fset: fset, rel: rel, testdata: frontend.IsTestdata(rel), test: strings.HasSuffix(rel, "_test.go"), fr: &fr, ids: map[graphdb.NodeID]int{}}
	x.generated = f != nil && ast.IsGenerated(f)
	fileNode := graphdb.Node{
		ID: frontend.FileID(rel), Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel,
		StartLine: 1, EndLine: max(frontend.CountLines(data), 1),
	}
	if f != nil && f.Name != nil {
		fileNode.Signature = "package " + f.Name.Name
		fileNode.Doc = docLine(f.Doc)
	}
	if ignored {
		fileNode.Attrs = map[string]string{"go.excluded": "build constraints"}
	}
	x.add(fileNode)
	if f != nil && !ignored {
		x.decls(f, looseQualifier(r.tree.importPathGuess(dirOf(rel)), f))
	}
	fr.Sort()
	return fr, true
}

// looseQualifier is what prefixes the names of a loose file's declarations:
// the package path guessed from its directory, except at the root of a tree
// with no module above it, where the directory path is "." and names read
// "..Server.Serve": there the package clause names the package instead
// ("main.Server.Serve"), and with no usable clause the names stand alone.
func looseQualifier(pkgPath string, f *ast.File) string {
	if pkgPath != "." {
		return pkgPath
	}
	if f.Name == nil || f.Name.Name == "_" {
		return ""
	}
	return f.Name.Name
}

// qualify is name qualified by pkgPath ("" qualifies nothing).
func qualify(pkgPath, name string) string {
	if pkgPath == "" {
		return name
	}
	return pkgPath + "." + name
}

// syntaxExtractor extracts declarations without type information. Ids are
// scoped by file ("go:<file>:<Recv.Name>") because such files often repeat
// names (one program per testdata file).
type syntaxExtractor struct {
	fset                      *token.FileSet
	rel                       string
	testdata, test, generated bool
	fr                        *frontend.FileResult
	ids                       frontend.IDCounts
}

func (x *syntaxExtractor) add(n graphdb.Node) graphdb.NodeID {
	n.ID = x.ids.Unique(n.ID)
	n.Language, n.File = "go", x.rel
	n.Test, n.Testdata, n.Generated = x.test, x.testdata, x.generated
	x.fr.Nodes = append(x.fr.Nodes, n)
	return n.ID
}

func (x *syntaxExtractor) line(p token.Pos) int { return x.fset.PositionFor(p, false).Line }

func (x *syntaxExtractor) decls(f *ast.File, pkgPath string) {
	fid := frontend.FileID(x.rel)
	idOf := func(loc string) graphdb.NodeID { return graphdb.NodeID("go:" + x.rel + ":" + loc) }
	parent := func(from, to graphdb.NodeID) {
		x.fr.Edges = append(x.fr.Edges, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeParent, File: x.rel})
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			name, loc := d.Name.Name, d.Name.Name
			n := graphdb.Node{Kind: graphdb.KindFunction, Name: name, Exported: ast.IsExported(name), Doc: docLine(d.Doc),
				StartLine: x.line(d.Pos()), EndLine: x.line(d.End()), Signature: funcSignature(d)}
			to := fid
			if d.Recv != nil && len(d.Recv.List) > 0 {
				recv := receiverName(d.Recv.List[0].Type)
				loc = recv + "." + name
				n.Kind, n.SubKind = graphdb.KindMember, "method"
				to = idOf(recv)
			}
			n.ID, n.QName, n.Loc = idOf(loc), qualify(pkgPath, loc), x.rel+":"+loc
			parent(x.add(n), to)
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			for _, s := range d.Specs {
				ts := s.(*ast.TypeSpec)
				sub := "named"
				switch ts.Type.(type) {
				case *ast.StructType:
					sub = "struct"
				case *ast.InterfaceType:
					sub = "interface"
				}
				if ts.Assign.IsValid() {
					sub = "alias"
				}
				name := ts.Name.Name
				doc := ts.Doc
				if doc == nil && len(d.Specs) == 1 {
					doc = d.Doc
				}
				tid := x.add(graphdb.Node{ID: idOf(name), Kind: graphdb.KindType, SubKind: sub, Name: name,
					QName: qualify(pkgPath, name), Loc: x.rel + ":" + name, Exported: ast.IsExported(name), Doc: docLine(doc),
					StartLine: x.line(ts.Pos()), EndLine: x.line(ts.End()), Signature: typeSignature(ts)})
				parent(tid, fid)
				var fields *ast.FieldList
				memberKind := "field"
				switch t := ts.Type.(type) {
				case *ast.StructType:
					fields = t.Fields
				case *ast.InterfaceType:
					fields, memberKind = t.Methods, "method"
				}
				if fields == nil {
					continue
				}
				for _, fld := range fields.List {
					for _, fn := range fld.Names {
						loc := name + "." + fn.Name
						sig := fn.Name + " " + types.ExprString(fld.Type)
						if ft, ok := fld.Type.(*ast.FuncType); ok && memberKind == "method" {
							sig = fn.Name + strings.TrimPrefix(types.ExprString(ft), "func")
						}
						mid := x.add(graphdb.Node{ID: idOf(loc), Kind: graphdb.KindMember, SubKind: memberKind, Name: fn.Name,
							QName: qualify(pkgPath, loc), Loc: x.rel + ":" + loc, Exported: ast.IsExported(fn.Name),
							Doc: docLine(fld.Doc), StartLine: x.line(fn.Pos()), EndLine: x.line(fld.End()), Signature: sig})
						parent(mid, tid)
					}
				}
			}
		}
	}
}
