//go:build cgo

package rust

import (
	"context"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	"golang.org/x/sync/errgroup"
)

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// indexer indexes Rust with tree-sitter (parse.go, decl.go:
// declarations; table.go, types.go: names, types and methods; body.go,
// expr.go, macroargs.go: calls).
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "rust" }

func newParser() *sitter.Parser {
	return sitter.ParserFor("rust", sitter.NewLanguage(tsrust.Language()))
}

// storedFile is what an unchanged file's node holds.
type storedFile struct {
	scope   *fileScope
	deps    []string
	unres   []string
	surface string
	byName  []string
}

// DESIGN: a Rust run has two passes, as Java's does. The layout
// (layout.go) names every file's crate and module from the paths and the
// Cargo manifests. The first pass parses the changed files for their
// declarations (fileScope); unchanged files contribute the scope stored on
// their file node (rust.scope). With every scope known, the table
// (table.go) resolves the impl blocks' Self types and traits, and the
// second pass parses again the files to resolve — the changed ones and
// their dependents — and resolves their uses, declared types and calls. A
// dependent is a stored file whose resolution read (rust.deps) a file
// whose surface changed or that was deleted; a file in which a name did
// not resolve (rust.unres lists them) that a changed surface declares or
// declared; and a file whose by-name calls
// (rust.byname) look up a name whose candidates changed. A change to the
// manifests, or a file whose module name changed, runs Rust in full.
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	configChanged := j.Stored[crateOwner].Hash != j.ConfigHash
	if !j.Full && len(j.Deleted) == 0 && len(j.Changed) == 0 && !configChanged {
		return d, nil
	}
	t0 := time.Now()
	lay := newLayout(frontend.SortedKeys(j.Files), p.manifests(j))
	full := j.Full || configChanged
	for rel, rec := range j.Stored {
		if _, ok := j.Files[rel]; ok && rec.Module != lay.mods[rel].Path {
			full = true // a module was renamed: every path may resolve elsewhere
		}
	}
	parse := map[string]bool{}
	for rel := range j.Files {
		if full || j.Changed[rel] {
			parse[rel] = true
		}
	}
	stored, old := map[string]*storedFile{}, map[string]*storedFile{}
	if !full {
		var err error
		if stored, old, err = p.loadStored(ctx, j, parse); err != nil {
			return d, err
		}
	}
	d.Phases["rust.load"] = int64(time.Since(t0))
	t0 = time.Now()
	rels := frontend.SortedKeys(parse)
	decls, err := frontend.ParseEach(ctx, j, rels, 0, len(rels), newParser, (*sitter.Parser).Close,
		func(ps *sitter.Parser, rel string) *sourceFile { return p.parseFile(ctx, j, ps, rel, lay, nil, false) })
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
	if !full {
		more := dependents(j, stored, old, decls)
		resolve = append(append([]string(nil), rels...), more...)
		sort.Strings(resolve)
		p.log.Debug("rust incremental", "parsed", len(rels), "dependents", len(more))
	}
	d.Phases["rust.declare"] = int64(time.Since(t0))

	t0 = time.Now()
	tab := newTable(scopes, lay)
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
		func(ps *sitter.Parser, rel string) *sourceFile { return p.parseFile(ctx, j, ps, rel, lay, tab, true) })
	if err != nil {
		return d, err
	}
	for _, f := range files {
		f.res.Sort()
		emit(f.res)
	}
	d.Global = append(d.Global, frontend.FileResult{Rec: graphdb.FileRecord{Path: crateOwner, Hash: j.ConfigHash, Language: "rust"}})
	d.Phases["rust.resolve"] = int64(time.Since(t0))
	d.Units = len(files)
	return d, ctx.Err()
}

// manifests reads the crate names of the Cargo manifests; one that
// cannot be read or parsed names no crate (its directory does).
func (p *indexer) manifests(j *frontend.Job) map[string]string {
	out := map[string]string{}
	for _, rel := range j.Configs {
		data, err := j.Read(rel)
		if err != nil {
			j.Note(frontend.Diagnostic{Pos: rel, Msg: frontend.Reason(err)})
			continue
		}
		out[rel] = crateName(data)
	}
	return out
}

// parseFile reads and parses one file within the job's budgets: its
// declarations, and with tab its resolved edges (reporting its syntax
// errors then); nil when it vanished or the run was cancelled.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, ps *sitter.Parser, rel string, lay *layout, tab *table, report bool) *sourceFile {
	m := lay.mods[rel]
	pf := sitter.ParseBudgeted(ctx, j, rel, m.Path, sitter.BudgetUse{Report: report, Depth: true}, func(data []byte) (*sitter.Tree, []byte, error) {
		t, err := sitter.ParseLimited(ctx, ps, data, j.Budget.Timeout)
		return t, data, err
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	reparse := func(src []byte) *sitter.Tree {
		t, err := sitter.ParseLimited(ctx, ps, src, j.Budget.Timeout)
		if err != nil {
			return nil
		}
		return t
	}
	f := extract(rel, m, lay, pf.Data, pf.Root(), reparse)
	defer f.close()
	if tab == nil {
		return f
	}
	resolveFile(f, pf.Data, tab, reparse)
	for _, e := range f.res.Rec.Errors {
		pos, msg, _ := strings.Cut(e, ": ")
		j.Diag(frontend.Diagnostic{Package: m.Path, Pos: rel + ":" + pos, Msg: msg})
	}
	if pf.Problem != "" {
		f.res.Rec.Errors = append(f.res.Rec.Errors, pf.Problem)
	}
	return f
}

// resolveFile links a parsed file against the table: impl blocks, uses,
// declared types and calls; it stores the file's scope, surface and
// dependencies on its file node.
func resolveFile(f *sourceFile, src []byte, tab *table, reparse func([]byte) *sitter.Tree) {
	l := newLookup(tab)
	x := &extractor{src: src, f: f}
	fid := frontend.FileID(f.rel)
	for _, im := range f.impls {
		selfE := l.resolveType(im.mod, im.decl.Self, "")
		owner := fid
		if isTypeKind(selfE.kind) && selfE.it != nil && selfE.it.ID != "" {
			owner = graphdb.NodeID(selfE.it.ID)
		}
		for _, m := range im.methods {
			f.res.Edges = append(f.res.Edges, graphdb.Edge{From: m, To: owner, Kind: graphdb.EdgeParent, File: f.rel})
		}
		if im.decl.Trait != "" && owner != fid && selfE.kind != "trait" { // a blanket impl over a bound is no type's
			if tr := l.resolveType(im.mod, im.decl.Trait, ""); tr.kind == "trait" && tr.it != nil {
				f.res.Edges = append(f.res.Edges, graphdb.Edge{From: owner, To: graphdb.NodeID(tr.it.ID), Kind: graphdb.EdgeImplements, File: f.rel, Line: im.line})
			}
		}
	}
	for _, u := range f.uses {
		e := l.resolveType(u.mod, u.text, u.self)
		if !isTypeKind(e.kind) && !(u.kind == graphdb.EdgeDecoratedBy && e.kind == "macro") || e.it == nil || e.it.ID == "" {
			continue
		}
		edge := graphdb.Edge{From: u.from, To: graphdb.NodeID(e.it.ID), Kind: u.kind, File: f.rel, Line: u.line}
		if u.reverse {
			edge.From, edge.To = edge.To, edge.From
		}
		f.res.Edges = append(f.res.Edges, edge)
	}
	for _, ms := range f.scope.Mods {
		for _, u := range ms.Uses {
			e := l.resolvePath(ms.Path, strings.Split(u.Path, "::"), "")
			target := ""
			switch {
			case e.kind == "mod":
				target = e.path
			case e.it != nil:
				target = e.it.mod
			case e.m != nil:
				target = e.m.mod
			}
			if _, ok := tab.mods[target]; ok && target != ms.Path {
				f.res.Edges = append(f.res.Edges, graphdb.Edge{From: fid, To: moduleID(target), Kind: graphdb.EdgeImports, File: f.rel, Line: u.Line})
			}
		}
	}
	w := &walker{x: x, l: l, f: f, parse: reparse}
	for _, b := range f.bodies {
		w.resolveBody(b)
	}
	js, surface := f.scope.encode()
	delete(l.deps, f.rel)
	delete(l.deps, "")
	n := &f.res.Nodes[f.fileN]
	n.Attrs = map[string]string{attrScope: js, attrSurface: surface}
	if len(l.deps) > 0 {
		n.Attrs[attrDeps] = strings.Join(frontend.SortedKeys(l.deps), "\n")
	}
	if len(l.unres) > 0 {
		n.Attrs[attrUnres] = strings.Join(frontend.SortedKeys(l.unres), "\n")
	}
	if len(l.byName) > 0 {
		n.Attrs[attrByName] = strings.Join(frontend.SortedKeys(l.byName), "\n")
	}
}

func isTypeKind(k string) bool {
	return k == "struct" || k == "enum" || k == "union" || k == "trait"
}

// loadStored decodes the stored scopes of the files on disk (a file whose
// node is missing or unreadable is parsed instead) and, in old, of the
// files to parse and the deleted files, whose surfaces and names they
// replace.
func (p *indexer) loadStored(ctx context.Context, j *frontend.Job, parse map[string]bool) (out, old map[string]*storedFile, err error) {
	out, old = map[string]*storedFile{}, map[string]*storedFile{}
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
					st = &storedFile{scope: sc, deps: frontend.SplitLines(n.Attrs[attrDeps]), unres: frontend.SplitLines(n.Attrs[attrUnres]), surface: n.Attrs[attrSurface],
						byName: frontend.SplitLines(n.Attrs[attrByName])}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case j.Deleted[rel] || parse[rel]:
				if st != nil {
					old[rel] = st
				}
			case st == nil:
				parse[rel] = true
			default:
				out[rel] = st
			}
			return gctx.Err()
		})
	}
	return out, old, g.Wait()
}

// dependents lists the stored files to re-resolve after files were
// parsed (see the DESIGN note on Index).
func dependents(j *frontend.Job, stored, old map[string]*storedFile, files []*sourceFile) []string {
	changed := map[string]bool{}
	names := map[string]bool{}    // functions and methods declared or removed by a changed surface
	declared := map[string]bool{} // every name declared or removed by a changed surface
	for rel := range j.Deleted {
		changed[rel] = true
		if st := old[rel]; st != nil {
			addNames(names, declared, st.scope)
		}
	}
	for _, f := range files {
		_, s := f.scope.encode()
		if st, ok := old[f.rel]; !ok || st.surface != s {
			changed[f.rel] = true
			addNames(names, declared, f.scope)
			if ok {
				addNames(names, declared, st.scope)
			}
		}
	}
	var out []string
	for rel, st := range stored {
		dep := false
		for _, n := range st.unres {
			dep = dep || declared[n]
		}
		for _, d := range st.deps {
			dep = dep || changed[d]
		}
		for _, n := range st.byName {
			dep = dep || names[n]
		}
		if dep {
			out = append(out, rel)
		}
	}
	sort.Strings(out)
	return out
}

// addNames adds the by-name keys of a scope's functions ("f") and
// methods (".m") to names, and every name it declares or binds (items,
// methods, variants, uses, the last names of its modules) to declared.
func addNames(names, declared map[string]bool, sc *fileScope) {
	for _, ms := range sc.Mods {
		declared[lastSeg(ms.Path)] = true
		for _, it := range ms.Items {
			declared[it.Name] = true
			if it.Kind == "fn" {
				names[it.Name] = true
			}
			for _, m := range it.Methods {
				names["."+m.Name], declared[m.Name] = true, true
			}
			for _, v := range it.Variants {
				declared[v] = true
			}
		}
		for _, u := range ms.Uses {
			declared[u.Name] = true
		}
		for _, d := range ms.Impls {
			for _, m := range d.Methods {
				names["."+m.Name], declared[m.Name] = true, true
			}
		}
	}
}
