//go:build cgo

package typescript

import (
	"cmp"
	"context"
	"log/slog"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
)

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// indexer indexes TypeScript and JavaScript with tree-sitter, a file at
// a time, then resolves names across the repository's files
// (tsparse.go, tsdecl.go, tsclass.go, tsmodule.go, tsresolve.go,
// tsconfig.go).
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "typescript" }

// parserSet holds one parser per grammar for one worker.
type parserSet struct {
	ts, tsx, js *sitter.Parser
}

func newParser(lang *sitter.Language) *sitter.Parser { return sitter.ParserFor("typescript", lang) }

func (ps *parserSet) get(rel string) *sitter.Parser {
	switch path.Ext(rel) {
	case ".tsx":
		if ps.tsx == nil {
			ps.tsx = newParser(sitter.NewLanguage(tsts.LanguageTSX()))
		}
		return ps.tsx
	case ".js", ".jsx", ".mjs", ".cjs":
		if ps.js == nil {
			ps.js = newParser(sitter.NewLanguage(tsjs.Language()))
		}
		return ps.js
	}
	if ps.ts == nil {
		ps.ts = newParser(sitter.NewLanguage(tsts.LanguageTypescript()))
	}
	return ps.ts
}

// parse parses one file's data and returns the tree with the text to
// read it against. A TypeScript file that does not parse is parsed again
// with what the grammar lacks rewritten (blankModifiers; in declaration
// files also nameDefaultSignatures), and that tree is kept unless it has
// more syntax errors. Offsets are the same in both texts: a source file's
// tree is read against data, so signatures show the modifiers; a
// declaration file's (no nodes, only names and types) against the
// rewritten text, where the anonymous default function is named default.
func (ps *parserSet) parse(ctx context.Context, rel string, data []byte, timeout time.Duration) (*sitter.Tree, []byte, error) {
	p := ps.get(rel)
	t, err := sitter.ParseLimited(ctx, p, data, timeout)
	if err != nil {
		return nil, nil, err
	}
	if !t.RootNode().HasError() || languageOf(rel) != "typescript" {
		return t, data, nil
	}
	fixed, ok := blankModifiers(data)
	if isDecl(rel) {
		var named bool
		fixed, named = nameDefaultSignatures(fixed)
		ok = ok || named
	}
	if !ok {
		return t, data, nil
	}
	t2, err := sitter.ParseLimited(ctx, p, fixed, timeout)
	if err != nil {
		t.Close()
		return nil, nil, err
	}
	if t2.RootNode().HasError() && len(sitter.SyntaxErrors(t2.RootNode())) > len(sitter.SyntaxErrors(t.RootNode())) {
		t2.Close()
		return t, data, nil
	}
	t.Close()
	if isDecl(rel) {
		return t2, fixed, nil
	}
	return t2, data, nil
}

func (ps *parserSet) close() {
	for _, p := range []*sitter.Parser{ps.ts, ps.tsx, ps.js} {
		if p != nil {
			p.Close()
		}
	}
}

// moduleNames names every file's module: its path without extension;
// when files share it (a.ts next to its compiled a.js; types.js,
// types.cjs, types.d.ts and types.d.cts as a package built for both ESM
// and CommonJS ships them), the one whose extension ranks first in
// moduleRank keeps it and the others are named by their full path, so
// the name does not depend on how the extensions sort (.cjs before .js).
func moduleNames(files map[string]*frontend.DiskFile) map[string]string {
	byName := map[string][]string{}
	for rel := range files {
		m := moduleName(rel)
		byName[m] = append(byName[m], rel)
	}
	out := make(map[string]string, len(files))
	for m, rels := range byName {
		slices.SortFunc(rels, func(a, b string) int {
			return cmp.Or(cmp.Compare(moduleRank(a), moduleRank(b)), strings.Compare(a, b))
		})
		out[rels[0]] = m
		for _, rel := range rels[1:] {
			out[rel] = rel
		}
	}
	return out
}

// moduleRanks orders same-stem siblings for their module name: the
// TypeScript source first, then the JavaScript (ESM before CommonJS),
// then the declaration files, which have no nodes of their own.
var moduleRanks = []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".d.ts", ".d.mts", ".d.cts"}

// moduleRank is rel's place in moduleRanks (the longest matching
// extension: a.d.ts is a declaration, not a .ts).
func moduleRank(rel string) int {
	r, n := len(moduleRanks), 0
	for i, e := range moduleRanks {
		if strings.HasSuffix(rel, e) && len(e) > n {
			r, n = i, len(e)
		}
	}
	return r
}

// parseFile reads and extracts one file within the job's budgets; nil
// when it vanished or the run was cancelled. A file a budget kept from
// being parsed gets its file and module nodes only.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, ps *parserSet, rel, module string) *sourceFile {
	pf := sitter.ParseWithin(ctx, j, rel, module, func(data []byte) (*sitter.Tree, []byte, error) {
		return ps.parse(ctx, rel, data, j.Budget.Timeout)
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	f := extract(rel, module, pf.Text, pf.Root(), pf.Up)
	f.res.Rec.Hash = frontend.ContentHash(pf.Data) // text is data rewritten for a declaration file that did not parse
	for _, e := range f.res.Rec.Errors {
		pos, msg, _ := strings.Cut(e, ": ")
		j.Diag(frontend.Diagnostic{Package: module, Pos: rel + ":" + pos, Msg: msg})
	}
	if pf.Problem != "" {
		f.res.Rec.Errors = append(f.res.Rec.Errors, pf.Problem)
	}
	return f
}

// parseAll parses rels with one set of parsers per worker.
func (p *indexer) parseAll(ctx context.Context, j *frontend.Job, rels []string, mods map[string]string) ([]*sourceFile, error) {
	return frontend.ParseEach(ctx, j, rels, 0, len(rels), func() *parserSet { return &parserSet{} }, (*parserSet).close,
		func(ps *parserSet, rel string) *sourceFile { return p.parseFile(ctx, j, ps, rel, mods[rel]) })
}

// storedFile is what an unchanged file's module node holds.
type storedFile struct {
	scope   *fileScope
	deps    []string
	unres   bool
	surface string
	byName  []string // method names of its by-name calls
}

// DESIGN: incremental TypeScript/JavaScript runs. Resolution needs every
// file's scope: fresh ones for the files parsed in this run, the stored
// JSON (module-node Attrs ts.scope) for the others. A file is parsed when
// its content or module name changed, when a file its resolution read
// (ts.deps: the files its imports, re-export chains and base classes went
// through) changed its surface (ts.surface, the fingerprint of ts.scope)
// or was added or deleted, and, when files were added or deleted, when one
// of its in-repository-looking imports did not resolve (ts.unres).
// Declaration files have no nodes; they are parsed on every run that
// parses anything, for the types they give. A change of a tsconfig.json,
// jsconfig.json or package.json (pseudo-owner @ts/config) re-indexes every
// file.
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	mods := moduleNames(j.Files)
	cfg := j.ConfigHash
	full := j.Full || j.Stored[configOwner].Hash != cfg
	parse := map[string]bool{}
	for rel := range j.Files {
		if full || j.Changed[rel] || j.Stored[rel].Module != mods[rel] || isDecl(rel) {
			parse[rel] = true
		}
	}
	if !full && len(j.Deleted) == 0 && len(j.Changed) == 0 {
		return d, nil
	}
	t0 := time.Now()
	stored := map[string]*storedFile{}
	if !full {
		var err error
		if stored, err = p.loadStored(ctx, j, mods, parse); err != nil {
			return d, err
		}
	}
	d.Phases["ts.load"] = int64(time.Since(t0))

	t0 = time.Now()
	files, err := p.parseAll(ctx, j, frontend.SortedKeys(parse), mods)
	if err != nil {
		return d, err
	}
	if !full {
		more := p.dependents(j, stored, files)
		extra, err := p.parseAll(ctx, j, more, mods)
		if err != nil {
			return d, err
		}
		files = append(files, extra...)
		p.log.Debug("typescript incremental", "parsed", len(files)-len(extra), "dependents", len(extra))
	}
	d.Phases["ts.parse"] = int64(time.Since(t0))

	t0 = time.Now()
	all := map[string]bool{}
	for rel := range j.Files {
		all[rel] = true
	}
	table := &symbolTable{files: map[string]*fileScope{}, r: newResolver(all, j.Configs, j.Read)}
	for rel, st := range stored {
		table.files[rel] = st.scope
	}
	for _, f := range files {
		table.files[f.rel] = f.scope
	}
	var rewrite []string
	for _, f := range files {
		if _, ok := j.Stored[f.rel]; ok && (!f.decl || j.Changed[f.rel] || full) {
			rewrite = append(rewrite, f.rel)
		}
	}
	sort.Strings(rewrite)
	if err := j.Rewrite(rewrite); err != nil {
		return d, err
	}
	sort.Slice(files, func(a, b int) bool { return files[a].rel < files[b].rel })
	n := 0
	for _, f := range files {
		if f.decl {
			if j.Changed[f.rel] || full {
				emit(f.res) // the record only: declaration files are not indexed as code
			}
			continue
		}
		table.link(f)
		f.res.Sort()
		emit(f.res)
		n++
	}
	if full || j.Stored[configOwner].Hash != cfg {
		d.Global = append(d.Global, frontend.FileResult{Rec: graphdb.FileRecord{Path: configOwner, Hash: cfg, Language: "typescript"}})
	}
	d.Phases["ts.resolve"] = int64(time.Since(t0))
	d.Units = n
	return d, ctx.Err()
}

// loadStored decodes the stored scopes of the files not parsed; a file
// whose module node is missing or unreadable is parsed instead.
func (p *indexer) loadStored(ctx context.Context, j *frontend.Job, mods map[string]string, parse map[string]bool) (map[string]*storedFile, error) {
	out := map[string]*storedFile{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.Workers)
	rels := frontend.SortedKeys(j.Files)
	for rel := range j.Deleted {
		rels = append(rels, rel) // for their methods (by-name candidates), then dropped
	}
	for _, rel := range rels {
		rec, ok := j.Stored[rel]
		if !ok || isDecl(rel) {
			continue
		}
		g.Go(func() error {
			n, err := j.Reader.Node(gctx, moduleID(rec.Module))
			var st *storedFile
			if err == nil {
				if sc, ok := decodeScope(rel, rec.Module, n.Attrs[attrScope]); ok {
					st = &storedFile{scope: sc, deps: frontend.SplitLines(n.Attrs[attrDeps]), unres: n.Attrs[attrUnres] == "1",
						surface: n.Attrs[attrSurface], byName: frontend.SplitLines(n.Attrs[attrByName])}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case j.Deleted[rel]:
				if st != nil {
					out[rel] = st
				}
			case st == nil:
				parse[rel] = true
			case parse[rel]:
				out[rel] = st // parsed: only its old surface matters
			default:
				out[rel] = st
			}
			return gctx.Err()
		})
	}
	return out, g.Wait()
}

// dependents lists the stored files to re-resolve after files were parsed,
// and drops them (and the parsed ones) from stored.
func (p *indexer) dependents(j *frontend.Job, stored map[string]*storedFile, files []*sourceFile) []string {
	byName := byNameChanged(j, stored, files)
	changed := map[string]bool{}
	for rel := range j.Deleted {
		changed[rel] = true
		delete(stored, rel)
	}
	added := len(j.Deleted) > 0
	for _, f := range files {
		old, ok := stored[f.rel]
		if f.decl {
			if j.Changed[f.rel] {
				changed[f.rel] = true
			}
			continue
		}
		_, wasStored := j.Stored[f.rel]
		if !wasStored {
			added = true
		}
		if _, s := f.scope.encode(); !ok || old.surface != s {
			changed[f.rel] = true
		}
		delete(stored, f.rel)
	}
	var out []string
	for rel, st := range stored {
		dep := added && st.unres
		for _, d := range st.deps {
			dep = dep || changed[d]
		}
		for _, n := range st.byName {
			dep = dep || byName[n]
		}
		if dep {
			out = append(out, rel)
			delete(stored, rel)
		}
	}
	sort.Strings(out)
	return out
}

// byNameChanged returns the method names whose by-name candidates
// (candidateIndex, cut off at maxByName) differ between the stored
// scopes and the new ones: of the names the parsed and the deleted files
// declared before or declare now, those whose lists changed. Stored files
// whose by-name calls look one up (ts.byname) are re-resolved; a name that
// stays over the limit re-resolves none.
func byNameChanged(j *frontend.Job, stored map[string]*storedFile, files []*sourceFile) map[string]bool {
	touched := map[string]bool{}
	was, now := map[string]*fileScope{}, map[string]*fileScope{}
	for rel, st := range stored {
		was[rel] = st.scope
		if !j.Deleted[rel] {
			now[rel] = st.scope
		}
	}
	for _, f := range files {
		if f.decl {
			continue // no nodes, so no candidates
		}
		if old := stored[f.rel]; old != nil {
			old.scope.methodNames(touched)
		}
		f.scope.methodNames(touched)
		now[f.rel] = f.scope
	}
	for rel := range j.Deleted {
		if old := stored[rel]; old != nil {
			old.scope.methodNames(touched)
		}
	}
	changed := map[string]bool{}
	if len(touched) == 0 {
		return changed
	}
	a, b := candidateIndex(was, touched), candidateIndex(now, touched)
	for name := range touched {
		x, y := capped(a[name]), capped(b[name])
		if !slices.EqualFunc(x, y, func(p, q candidate) bool { return p.id == q.id }) {
			changed[name] = true
		}
	}
	return changed
}
