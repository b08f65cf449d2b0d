//go:build cgo

package java

import (
	"context"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
)

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// indexer indexes Java with tree-sitter (parse.go, decl.go:
// declarations; table.go, call.go: types, overloads; body.go,
// expr.go: calls).
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "java" }

func newParser() *sitter.Parser {
	return sitter.ParserFor("java", sitter.NewLanguage(tsjava.Language()))
}

// storedFile is what an unchanged file's node holds.
type storedFile struct {
	scope   *fileScope
	deps    []string
	unres   bool
	dup     bool
	surface string
	byName  []string // keys of its by-name calls (java.byname)
}

// DESIGN: a Java run has two passes. The first parses the changed files
// for their declarations (fileScope); unchanged files contribute the scope
// stored on their file node (java.scope). With every scope known, the
// second pass parses again the files to resolve — the changed ones and
// their dependents — and resolves their calls and declared types. A
// dependent is a stored file whose resolution read (java.deps) a file
// whose surface (java.surface, the fingerprint of its scope) changed or
// that was deleted, or, when files were added or deleted, a file in which
// a type name did not resolve (java.unres). Parsing twice costs less than
// keeping every tree alive across the passes.
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	if !j.Full && len(j.Deleted) == 0 && len(j.Changed) == 0 && j.Stored[pkgOwner].Hash == j.ConfigHash {
		return d, nil
	}
	t0 := time.Now()
	parse := map[string]bool{}
	for rel := range j.Files {
		if j.Full || j.Changed[rel] {
			parse[rel] = true
		}
	}
	stored, gone := map[string]*storedFile{}, map[string]*storedFile{}
	if !j.Full {
		var err error
		if stored, gone, err = p.loadStored(ctx, j, parse); err != nil {
			return d, err
		}
	}
	d.Phases["java.load"] = int64(time.Since(t0))
	t0 = time.Now()
	rels := frontend.SortedKeys(parse)
	decls, err := frontend.ParseEach(ctx, j, rels, 0, len(rels), newParser, (*sitter.Parser).Close,
		func(ps *sitter.Parser, rel string) *sourceFile { return p.parseFile(ctx, j, ps, rel, nil, false) })
	if err != nil {
		return d, err
	}
	scopes := map[string]*fileScope{}
	for rel, st := range stored {
		scopes[rel] = st.scope
	}
	for _, f := range decls {
		scopes[f.rel] = f.scope
	}
	resolve := rels
	if !j.Full {
		more := p.dependents(j, stored, gone, decls)
		resolve = append(append([]string(nil), rels...), more...)
		sort.Strings(resolve)
		p.log.Debug("java incremental", "parsed", len(rels), "dependents", len(more))
	}
	d.Phases["java.declare"] = int64(time.Since(t0))

	t0 = time.Now()
	tab := newTable(scopes)
	var rewrite []string
	for _, rel := range resolve {
		if _, ok := j.Stored[rel]; ok {
			rewrite = append(rewrite, rel)
		}
	}
	if err := j.Rewrite(rewrite); err != nil {
		return d, err
	}
	files, err := frontend.ParseEach(ctx, j, resolve, len(rels), len(rels)+len(resolve), newParser, (*sitter.Parser).Close,
		func(ps *sitter.Parser, rel string) *sourceFile { return p.parseFile(ctx, j, ps, rel, tab, true) })
	if err != nil {
		return d, err
	}
	for _, f := range files {
		f.res.Sort()
		emit(f.res)
	}
	d.Global = append(d.Global, packageNodes(j, scopes))
	d.Phases["java.resolve"] = int64(time.Since(t0))
	d.Units = len(files)
	return d, ctx.Err()
}

// parseFile reads and parses one file within the job's budgets: its
// declarations, and with tab its resolved edges (reporting its syntax
// errors and what a budget kept from being parsed then, once); nil when it
// vanished or the run was cancelled. A file a budget kept from being
// parsed gets its file node only. The tree's depth is not measured: the
// walks bound their own (limits.go) and keep what lies above.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, ps *sitter.Parser, rel string, tab *table, report bool) *sourceFile {
	pf := sitter.ParseBudgeted(ctx, j, rel, "", sitter.BudgetUse{Report: report}, func(data []byte) (*sitter.Tree, []byte, error) {
		t, err := parse(ctx, ps, data, j.Budget.Timeout)
		return t, data, err
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	f := extract(rel, pf.Data, pf.Root())
	if tab == nil {
		return f
	}
	resolveFile(f, pf.Data, tab)
	for _, e := range f.res.Rec.Errors { // syntax errors, nesting limits met
		pos, msg, _ := strings.Cut(e, ": ")
		j.Diag(frontend.Diagnostic{Package: f.scope.Pkg, Pos: rel + ":" + pos, Msg: msg})
	}
	if pf.Problem != "" {
		f.res.Rec.Errors = append(f.res.Rec.Errors, pf.Problem)
	}
	return f
}

// resolveFile links a parsed file against the table: declared types,
// imports and calls; it stores the file's scope, surface and dependencies
// on its file node.
func resolveFile(f *sourceFile, src []byte, tab *table) {
	f.scope.link()
	// The table holds the scope from the first pass: resolve against it so
	// that member lookups find the same types.
	if sc := tab.scopeOf(f.scope); sc != nil {
		f.scope = sc
	}
	l := newLookup(tab)
	x := &extractor{src: src, f: f}
	for _, u := range f.uses {
		linkUse(l, f, u)
	}
	for _, im := range f.imps {
		pkg := im.name
		if im.static || !im.demand {
			pkg = pkg[:max(strings.LastIndexByte(pkg, '.'), 0)]
		}
		for pkg != "" && !tab.pkgs[pkg] && tab.types[pkg] != nil {
			pkg = pkg[:max(strings.LastIndexByte(pkg, '.'), 0)]
		}
		if tab.pkgs[pkg] && pkg != f.scope.Pkg {
			f.res.Edges = append(f.res.Edges, graphdb.Edge{From: frontend.FileID(f.rel), To: moduleID(pkg), Kind: graphdb.EdgeImports, File: f.rel, Line: im.line})
		}
	}
	w := &walker{x: x, l: l, sc: f.scope}
	for _, b := range f.bodies {
		b.cls = tab.typeIn(f.scope, b.cls)
		w.resolveBody(b)
	}
	js, surface := f.scope.encode()
	delete(l.deps, f.rel)
	n := &f.res.Nodes[f.fileN]
	n.Attrs = map[string]string{attrScope: js, attrSurface: surface}
	if len(l.deps) > 0 {
		n.Attrs[attrDeps] = strings.Join(frontend.SortedKeys(l.deps), "\n")
	}
	if l.unres {
		n.Attrs[attrUnres] = "1"
	}
	if len(l.byName) > 0 {
		n.Attrs[attrByName] = strings.Join(frontend.SortedKeys(l.byName), "\n")
	}
	if renameDuplicates(f, tab) {
		f.res.Nodes[f.fileN].Attrs[attrDup] = "1"
	}
}

// renameDuplicates gives the nodes of the types a file declares that
// another file declares too (the same qualified name twice in a
// repository: two source sets, a copied class) ids of their own,
// "<id>@<path>", since ids are unique across files. The first file in
// path order keeps the plain ids, and name resolution finds its types.
// It reports whether the file has such a type.
func renameDuplicates(f *sourceFile, tab *table) bool {
	dup := false
	var prefixes []string
	for _, t := range tab.dups[f.rel] {
		dup = true
		if owner := tab.types[t]; owner != nil && owner.scope != nil && owner.scope.file != f.rel {
			prefixes = append(prefixes, string(typeID(t)))
		}
	}
	if len(prefixes) == 0 {
		return dup
	}
	renamed := map[graphdb.NodeID]graphdb.NodeID{}
	for i := range f.res.Nodes {
		id := string(f.res.Nodes[i].ID)
		for _, p := range prefixes {
			if rest, ok := strings.CutPrefix(id, p); ok && (rest == "" || rest[0] == '.' || rest[0] == '(' || rest[0] == '#') {
				nid := graphdb.NodeID(id + "@" + f.rel)
				renamed[f.res.Nodes[i].ID] = nid
				f.res.Nodes[i].ID = nid
				break
			}
		}
	}
	for i, e := range f.res.Edges {
		if to, ok := renamed[e.From]; ok {
			f.res.Edges[i].From = to
		}
		if to, ok := renamed[e.To]; ok {
			f.res.Edges[i].To = to
		}
	}
	return true
}

// linkUse writes the edge of a declared type that lies in the
// repository.
func linkUse(l *lookup, f *sourceFile, u typeUse) {
	ctx := u.ctx
	if ctx != nil {
		ctx = l.tab.typeIn(f.scope, ctx)
	}
	t := l.resolve(f.scope, ctx, u.written)
	if t == nil || t.ID == "" {
		return
	}
	e := graphdb.Edge{From: u.from, To: t.ID, Kind: u.kind, File: f.rel, Line: u.line}
	if u.reverse {
		e.From, e.To = t.ID, u.from
	}
	f.res.Edges = append(f.res.Edges, e)
}

// scopeOf returns the table's scope for the file of sc.
func (t *table) scopeOf(sc *fileScope) *fileScope {
	for _, ty := range sc.Types {
		if tt := t.types[ty.Q]; tt != nil && tt.scope != nil && tt.scope.file == sc.file {
			return tt.scope
		}
	}
	return nil
}

// typeIn maps a type of a freshly extracted scope to the table's copy.
func (t *table) typeIn(sc *fileScope, ty *typeDef) *typeDef {
	if ty == nil || ty.ID == "" {
		return ty
	}
	if tt := t.types[ty.Q]; tt != nil && tt.scope == sc {
		return tt
	}
	return ty
}

// packageNodes builds the pseudo-owner of the package nodes: one module
// node per package, placed in the directory of its first file.
func packageNodes(j *frontend.Job, scopes map[string]*fileScope) frontend.FileResult {
	res := frontend.FileResult{Rec: graphdb.FileRecord{Path: pkgOwner, Hash: j.ConfigHash, Language: "java"}}
	first := map[string]string{}
	for _, rel := range frontend.SortedKeys(scopes) {
		if _, ok := first[scopes[rel].Pkg]; !ok {
			first[scopes[rel].Pkg] = rel
		}
	}
	for _, pkg := range frontend.SortedKeys(first) {
		name, q := pkg[strings.LastIndexByte(pkg, '.')+1:], pkg
		if pkg == "" {
			name = "(default package)"
		}
		dir := path.Dir(first[pkg])
		res.Nodes = append(res.Nodes, graphdb.Node{ID: moduleID(pkg), Kind: graphdb.KindModule, SubKind: "package",
			Name: name, QName: q, Loc: dir, File: dir, Language: "java", Signature: "package " + pkg, Exported: true,
			Test: isTest(first[pkg]), Testdata: frontend.IsTestdata(first[pkg])})
	}
	return res
}

// loadStored decodes the stored scopes of the files on disk (a file whose
// node is missing or unreadable is parsed instead) and, in gone, of the
// deleted files, whose methods were by-name candidates.
func (p *indexer) loadStored(ctx context.Context, j *frontend.Job, parse map[string]bool) (out, gone map[string]*storedFile, err error) {
	out, gone = map[string]*storedFile{}, map[string]*storedFile{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.Workers)
	rels := frontend.SortedKeys(j.Files)
	for rel := range j.Deleted {
		rels = append(rels, rel)
	}
	for _, rel := range rels {
		if _, ok := j.Stored[rel]; !ok {
			continue
		}
		g.Go(func() error {
			n, err := j.Reader.Node(gctx, frontend.FileID(rel))
			var st *storedFile
			if err == nil {
				if sc, ok := decodeScope(rel, n.Attrs[attrScope]); ok {
					st = &storedFile{scope: sc, deps: frontend.SplitLines(n.Attrs[attrDeps]), unres: n.Attrs[attrUnres] == "1", surface: n.Attrs[attrSurface], dup: n.Attrs[attrDup] == "1",
						byName: frontend.SplitLines(n.Attrs[attrByName])}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case j.Deleted[rel]:
				if st != nil {
					gone[rel] = st
				}
			case st == nil:
				parse[rel] = true
			default:
				out[rel] = st
			}
			return gctx.Err()
		})
	}
	return out, gone, g.Wait()
}

// dependents lists the stored files to re-resolve after files were parsed,
// and drops the parsed ones from stored (their fresh scopes replace them).
func (p *indexer) dependents(j *frontend.Job, stored, gone map[string]*storedFile, files []*sourceFile) []string {
	byName := byNameDependents(stored, gone, files)
	changed := map[string]bool{}
	for rel := range j.Deleted {
		changed[rel] = true
	}
	added := len(j.Deleted) > 0
	parsed := map[string]bool{}
	for _, f := range files {
		parsed[f.rel] = true
		if _, ok := j.Stored[f.rel]; !ok {
			added = true
		}
		old, ok := stored[f.rel]
		if _, s := f.scope.encode(); !ok || old.surface != s {
			changed[f.rel] = true
		}
	}
	fresh := map[string]bool{}
	for _, f := range files {
		for _, t := range f.scope.Types {
			fresh[t.Q] = true
		}
	}
	var out []string
	for rel, st := range stored {
		if parsed[rel] {
			delete(stored, rel)
			continue
		}
		dep := added && st.unres || len(j.Deleted) > 0 && st.dup || byName[rel]
		for _, t := range st.scope.Types {
			dep = dep || fresh[t.Q] // a parsed file may now take or give up the plain ids
		}
		for _, d := range st.deps {
			dep = dep || changed[d]
		}
		if dep {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
