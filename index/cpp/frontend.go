//go:build cgo

package cpp

import (
	"context"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	"golang.org/x/sync/errgroup"
)

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// indexer indexes C++ with tree-sitter.
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "cpp" }

func newParser() *sitter.Parser {
	return sitter.ParserFor("cpp", sitter.NewLanguage(tscpp.Language()))
}

// storedFile is what an unchanged file's node holds.
type storedFile struct {
	scope   *fileScope
	deps    []string
	unres   bool
	surface string
	byName  []string
	macros  string // the fingerprint of the macros it was parsed with
}

// DESIGN: a C++ run has two passes, as Java's. The first parses the
// changed files for their declarations (fileScope); unchanged files
// contribute the scope stored on their file node (cpp.scope). With every
// scope known, the table (table.go) decides each declaration's node id
// and owner, and the second pass parses again the files to resolve — the
// changed ones and their dependents — emitting their nodes and resolving
// their calls. A stored file is a dependent when a file its resolution
// read (cpp.deps) changed its surface or was deleted; when it declares a
// name a changed surface declares (or declared) too, since which file
// owns a function's node (its definition's) and which type keeps the
// plain id depend on every declaration of the name; when one of its
// by-name calls (cpp.byname) names a function a changed surface
// declares or declared; and, when files were added or deleted, when a
// name of it did not resolve (cpp.unres).
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	if !j.Full && len(j.Deleted) == 0 && len(j.Changed) == 0 && j.Stored[nsOwner].Hash == j.ConfigHash {
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
	ms := macrosOf(j, parse, stored)
	for rel, st := range stored {
		if st.macros != ms.fp {
			parse[rel] = true // parsed with other macros
		}
	}
	d.Phases["cpp.load"] = int64(time.Since(t0))
	t0 = time.Now()
	rels := frontend.SortedKeys(parse)
	decls, err := frontend.ParseEach(ctx, j, rels, 0, len(rels), newParser, (*sitter.Parser).Close,
		func(ps *sitter.Parser, rel string) *sourceFile {
			return p.parseFile(ctx, j, ps, rel, ms, nil, nil, false)
		})
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
		more := dependents(j, stored, gone, decls)
		resolve = append(append([]string(nil), rels...), more...)
		sort.Strings(resolve)
		p.log.Debug("cpp incremental", "parsed", len(rels), "dependents", len(more))
	}
	d.Phases["cpp.declare"] = int64(time.Since(t0))

	t0 = time.Now()
	tab := newTable(scopes)
	incs := newIncludes(frontend.SortedKeys(j.Files))
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
		func(ps *sitter.Parser, rel string) *sourceFile {
			return p.parseFile(ctx, j, ps, rel, ms, tab, incs, true)
		})
	if err != nil {
		return d, err
	}
	for _, f := range files {
		f.res.Sort()
		emit(f.res)
	}
	d.Global = append(d.Global, namespaceNodes(j, scopes))
	d.Phases["cpp.resolve"] = int64(time.Since(t0))
	d.Units = len(files)
	return d, ctx.Err()
}

// parseFile reads and parses one file within the job's budgets: its
// declarations, and with tab its owner (reporting its syntax errors and
// what a budget kept from being parsed, once); nil when it vanished or
// the run was cancelled. A file a budget kept from being parsed gets its
// file node only.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, ps *sitter.Parser, rel string, ms *macroSet, tab *table, incs *includes, report bool) *sourceFile {
	pf := sitter.ParseBudgeted(ctx, j, rel, "", sitter.BudgetUse{Report: report, Depth: true}, func(data []byte) (*sitter.Tree, []byte, error) {
		text := ms.expand(data)
		t, err := sitter.ParseLimited(ctx, ps, text, j.Budget.Timeout)
		return t, text, err
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	f := extract(rel, pf.Data, pf.Text, pf.Root())
	if tab == nil {
		return f
	}
	remap(f, tab.scopes[rel])
	resolveFile(f, tab, incs, ms.fp)
	for _, e := range f.res.Rec.Errors { // syntax errors
		pos, msg, _ := strings.Cut(e, ": ")
		j.Diag(frontend.Diagnostic{Pos: rel + ":" + pos, Msg: msg})
	}
	if pf.Problem != "" {
		f.res.Rec.Errors = append(f.res.Rec.Errors, pf.Problem)
	}
	return f
}

// remap points a freshly extracted file's declarations and bodies at the
// table's copy of its scope (the same declarations, extracted in the
// first pass or decoded from the store), whose ids the table set. A
// scope of another shape (it cannot be, the file being unchanged) leaves
// the fresh one, whose declarations then have no node.
func remap(f *sourceFile, sc *fileScope) {
	if sc == nil || len(sc.Types) != len(f.scope.Types) || len(sc.Funcs) != len(f.scope.Funcs) {
		return
	}
	types := map[*typeDef]*typeDef{}
	funcs := map[*funcDef]*funcDef{}
	for i, td := range f.scope.Types {
		if len(sc.Types[i].Methods) != len(td.Methods) {
			return
		}
		types[td] = sc.Types[i]
		for k, m := range td.Methods {
			funcs[m] = sc.Types[i].Methods[k]
		}
	}
	for i, fd := range f.scope.Funcs {
		funcs[fd] = sc.Funcs[i]
	}
	for i := range f.decls {
		d := &f.decls[i]
		if d.td != nil {
			d.td = types[d.td]
		}
		if d.fd != nil {
			d.fd = funcs[d.fd]
		}
	}
	for i := range f.bodies {
		f.bodies[i].fd = funcs[f.bodies[i].fd]
	}
	f.scope = sc
}

// macrosOf returns the repository's macros: the stored scopes' of the
// unchanged files, read afresh from the files to parse (a file the
// budgets leave unparsed defines none).
func macrosOf(j *frontend.Job, parse map[string]bool, stored map[string]*storedFile) *macroSet {
	byFile := map[string]map[string]macro{}
	for rel, st := range stored {
		if !parse[rel] {
			byFile[rel] = st.scope.Macros
		}
	}
	for rel := range parse {
		data, err := j.Read(rel)
		if err != nil {
			continue
		}
		if why, _ := j.Budget.Skip(data); why == "" {
			byFile[rel] = scanMacros(data)
		}
	}
	return newMacroSet(byFile)
}

// nsOwner is the pseudo-owner of the namespace nodes, which no one file
// owns; its Hash is the (empty) configuration fingerprint.
const nsOwner = "@cpp/namespaces"

// namespaceNodes builds the namespace nodes: one module node per
// namespace, placed in the directory of its first file.
func namespaceNodes(j *frontend.Job, scopes map[string]*fileScope) frontend.FileResult {
	res := frontend.FileResult{Rec: graphdb.FileRecord{Path: nsOwner, Hash: j.ConfigHash, Language: "cpp"}}
	first := map[string]string{}
	for _, rel := range frontend.SortedKeys(scopes) {
		for _, ns := range scopes[rel].NS {
			if _, ok := first[ns]; !ok {
				first[ns] = rel
			}
		}
	}
	for _, ns := range frontend.SortedKeys(first) {
		dir := path.Dir(first[ns])
		res.Nodes = append(res.Nodes, graphdb.Node{ID: nsID(ns), Kind: graphdb.KindModule, SubKind: "namespace",
			Name: lastName(ns), QName: ns, Loc: dir, File: dir, Language: "cpp", Signature: "namespace " + ns, Exported: true,
			Test: isTest(first[ns]), Testdata: frontend.IsTestdata(first[ns])})
		if p := parentNS(ns); p != "" {
			res.Edges = append(res.Edges, graphdb.Edge{From: nsID(ns), To: nsID(p), Kind: graphdb.EdgeParent, File: nsOwner})
		}
	}
	return res
}

// loadStored decodes the stored scopes of the files on disk (a file whose
// node is missing or unreadable is parsed instead) and, in gone, of the
// deleted files.
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
					st = &storedFile{scope: sc, deps: frontend.SplitLines(n.Attrs[attrDeps]), unres: n.Attrs[attrUnres] == "1",
						surface: n.Attrs[attrSurface], byName: frontend.SplitLines(n.Attrs[attrByName]), macros: n.Attrs[attrMacros]}
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

// dependents lists the stored files to re-resolve after files were
// parsed (see the DESIGN note on Index), and drops the parsed ones from
// stored.
func dependents(j *frontend.Job, stored, gone map[string]*storedFile, files []*sourceFile) []string {
	changed := map[string]bool{}
	names := map[string]bool{} // declared by a changed surface, before or now
	for rel, st := range gone {
		changed[rel] = true
		st.scope.declared(names)
	}
	added := len(j.Deleted) > 0
	parsed := map[string]bool{}
	for _, f := range files {
		parsed[f.rel] = true
		if _, ok := j.Stored[f.rel]; !ok {
			added = true
		}
		old, ok := stored[f.rel]
		if _, s := f.scope.encode(); ok && old.surface == s {
			continue
		}
		changed[f.rel] = true
		f.scope.declared(names)
		if ok {
			old.scope.declared(names)
		}
	}
	var out []string
	for rel, st := range stored {
		if parsed[rel] {
			delete(stored, rel)
			continue
		}
		dep := added && st.unres
		for _, d := range st.deps {
			dep = dep || changed[d]
		}
		if !dep && len(names) > 0 {
			mine := map[string]bool{}
			st.scope.declared(mine)
			for q := range mine {
				if names[q] && !strings.HasPrefix(q, "name:") {
					dep = true
					break
				}
			}
			for _, n := range st.byName {
				dep = dep || names["name:"+n]
			}
		}
		if dep {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}
