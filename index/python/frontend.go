//go:build cgo

package python

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
)

// indexer indexes Python with tree-sitter, a file at a time, then
// resolves names across the repository's modules (resolve.go).
type indexer struct {
	log *slog.Logger
}

func (p *indexer) Language() string { return "python" }

// newFrontend makes the frontend of Lang.
var newFrontend = func(env frontend.Env) frontend.Frontend { return &indexer{log: env.Log} }

// fileModule is the module a file defines.
type fileModule struct {
	name  string
	isPkg bool
}

// moduleNames names every Python file's module: the dotted path
// relative to the directory above its outermost package (a chain of
// directories holding __init__.py), or to the repository root for files
// outside packages; __init__.py is its package. When two files claim the
// same name (two copies of a package in one repository), the first in path
// order keeps it and the others are named by their full path.
func moduleNames(files map[string]*frontend.DiskFile) map[string]fileModule {
	pkgDirs := map[string]bool{}
	for rel := range files {
		if path.Base(rel) == "__init__.py" && path.Dir(rel) != "." {
			pkgDirs[path.Dir(rel)] = true
		}
	}
	rels := frontend.SortedKeys(files)
	out := make(map[string]fileModule, len(rels))
	taken := map[string]bool{}
	for _, rel := range rels {
		dir, base := path.Dir(rel), strings.TrimSuffix(path.Base(rel), ".py")
		top := "" // the directory names are relative to
		if pkgDirs[dir] {
			top = dir
			for pkgDirs[path.Dir(top)] {
				top = path.Dir(top)
			}
			top = path.Dir(top)
		}
		relTo := func(base string) string {
			p := path.Join(dir, base)
			if top != "" && top != "." {
				p = strings.TrimPrefix(p, top+"/")
			}
			return strings.ReplaceAll(p, "/", ".")
		}
		m := fileModule{isPkg: base == "__init__"}
		if m.isPkg {
			m.name = relTo("")
			if dir == "." {
				m.name = "__init__"
			}
		} else {
			m.name = relTo(base)
		}
		if taken[m.name] {
			m.name = strings.ReplaceAll(strings.TrimSuffix(rel, ".py"), "/", ".")
		}
		taken[m.name] = true
		out[rel] = m
	}
	return out
}

// newParser returns a parser for Python; Close it.
func newParser() *sitter.Parser {
	return sitter.ParserFor("python", sitter.NewLanguage(tspython.Language()))
}

// fieldIDs holds the grammar's field ids by name: looking a field up by
// name allocates a C string on every call, which showed in profiles.
var fieldIDs = func() map[string]uint16 {
	lang := sitter.NewLanguage(tspython.Language())
	m := map[string]uint16{}
	for i := uint16(1); i <= uint16(lang.FieldCount()); i++ {
		m[lang.FieldNameForId(i)] = i
	}
	return m
}()

// fieldChild is n's child in the named field, nil when absent.
func fieldChild(n *sitter.Node, name string) *sitter.Node {
	id, ok := fieldIDs[name]
	if !ok {
		panic("tree-sitter python: no field " + name) // a typo in this package
	}
	return n.ChildByFieldId(id)
}

// parseFile reads and extracts one file within the job's budgets; nil
// when it vanished or the run was cancelled. A file a budget kept from
// being parsed gets its file and module nodes only.
func (p *indexer) parseFile(ctx context.Context, j *frontend.Job, parser *sitter.Parser, rel string, m fileModule) *sourceFile {
	pf := sitter.ParseWithin(ctx, j, rel, m.name, func(data []byte) (*sitter.Tree, []byte, error) {
		t, err := sitter.ParseLimited(ctx, parser, data, j.Budget.Timeout)
		return t, data, err
	})
	if pf == nil {
		return nil
	}
	if pf.Tree != nil {
		defer pf.Tree.Close()
	}
	f := extract(rel, m.name, m.isPkg, pf.Data, pf.Root(), pf.Up)
	for _, e := range f.res.Rec.Errors {
		j.Diag(frontend.Diagnostic{Package: m.name, Pos: rel + ":" + strings.SplitN(e, ": ", 2)[0], Msg: strings.SplitN(e, ": ", 2)[1]})
	}
	if pf.Problem != "" {
		f.res.Rec.Errors = append(f.res.Rec.Errors, pf.Problem)
	}
	return f
}

// parseAll parses rels with one parser per worker.
func (p *indexer) parseAll(ctx context.Context, j *frontend.Job, rels []string, mods map[string]fileModule, doneSoFar, total int) ([]*sourceFile, error) {
	return frontend.ParseEach(ctx, j, rels, doneSoFar, total, newParser, (*sitter.Parser).Close,
		func(parser *sitter.Parser, rel string) *sourceFile {
			return p.parseFile(ctx, j, parser, rel, mods[rel])
		})
}

// DESIGN: incremental Python runs. Names resolve across modules, so the
// resolution of a changed file needs every module's scope: fresh scopes for
// the files parsed in this run, scopes rebuilt from the store's nodes for
// the others (storedScope). A file is re-parsed when its content changed,
// when its module name changed (an __init__.py appeared or vanished), when
// it imports (py.deps) a module whose surface changed: a module added
// or deleted, or whose fingerprint (py.surface: top-level names, methods,
// base expressions, import bindings) differs from the stored one, and when
// the candidates of a name its by-name calls look up changed (py.byname,
// see byNameDependents). A dep
// matches a module when either is a dotted prefix of the other (`import
// pkg` reaches pkg.sub.f). Importers of importers are not re-resolved, so
// a self.m() call that resolved through a base class two imports away can
// go stale until its file changes; edges to deleted targets dangle and are
// not returned by the store.
func (p *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	d := frontend.Done{Phases: map[string]int64{}}
	mods := moduleNames(j.Files)
	parse := map[string]bool{}
	for rel := range j.Files {
		if j.Full || j.Changed[rel] || j.Stored[rel].Module != mods[rel].name {
			parse[rel] = true
		}
	}
	t0 := time.Now()
	stored, old := map[string]*moduleScope{}, map[string]*moduleScope{}
	if !j.Full {
		var err error
		if stored, old, err = p.loadStored(ctx, j, mods, parse); err != nil {
			return d, err
		}
	}
	d.Phases["py.load"] = int64(time.Since(t0))

	t0 = time.Now()
	files, err := p.parseChanged(ctx, j, mods, parse, stored, old)
	if err != nil {
		return d, err
	}
	d.Phases["py.parse"] = int64(time.Since(t0))

	t0 = time.Now()
	if err := p.link(j, files, stored, emit); err != nil {
		return d, err
	}
	d.Phases["py.resolve"] = int64(time.Since(t0))
	d.Units = len(files)
	return d, ctx.Err()
}

// loadStored rebuilds the scopes of the files not to parse from their
// stored nodes (a file whose module node is missing joins parse), and
// those the files to parse and the deleted files had (old), for their
// surfaces and methods.
func (p *indexer) loadStored(ctx context.Context, j *frontend.Job, mods map[string]fileModule, parse map[string]bool) (stored, old map[string]*moduleScope, err error) {
	stored, old = map[string]*moduleScope{}, map[string]*moduleScope{}
	var mu sync.Mutex
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(j.Workers)
	rels := frontend.SortedKeys(j.Files)
	for rel := range j.Deleted {
		rels = append(rels, rel)
	}
	var missing []string // joins parse once every goroutine is done
	for _, rel := range rels {
		prev := parse[rel] || j.Deleted[rel]
		g.Go(func() error {
			rec, ok := j.Stored[rel]
			if prev && !ok {
				return nil
			}
			nodes, err := j.Reader.FindSymbols(gctx, graphdb.SymbolQuery{File: rel})
			if err != nil {
				return fmt.Errorf("read stored nodes of %s: %w", rel, err)
			}
			name := mods[rel].name
			if prev {
				name = rec.Module
			}
			sc, found := storedScope(name, rel, nodes)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case prev && found:
				old[rel] = sc
			case prev:
			case found:
				stored[rel] = sc
			default:
				missing = append(missing, rel)
			}
			return nil
		})
	}
	err = g.Wait()
	for _, rel := range missing {
		parse[rel] = true
	}
	return stored, old, err
}

// parseChanged parses the files in parse and, in incremental runs, the
// stored files importing a module whose surface changed and those whose
// by-name calls' candidates changed (removed from stored).
func (p *indexer) parseChanged(ctx context.Context, j *frontend.Job, mods map[string]fileModule, parse map[string]bool, stored, old map[string]*moduleScope) ([]*sourceFile, error) {
	rels := frontend.SortedKeys(parse)
	files, err := p.parseAll(ctx, j, rels, mods, 0, len(rels))
	if err != nil || j.Full {
		return files, err
	}
	changedMods := map[string]bool{}
	for rel := range j.Deleted {
		changedMods[j.Stored[rel].Module] = true
	}
	for _, f := range files {
		prev, ok := old[f.rel]
		if !ok || prev.surface != f.scope.surface || j.Stored[f.rel].Module != f.module {
			changedMods[f.module] = true
			if m := j.Stored[f.rel].Module; m != "" {
				changedMods[m] = true
			}
		}
	}
	var deps []string
	for rel, sc := range stored {
		if dependsOn(sc.deps, changedMods) {
			deps = append(deps, rel)
			delete(stored, rel)
		}
	}
	sort.Strings(deps)
	more, err := p.parseAll(ctx, j, deps, mods, len(rels), len(rels)+len(deps))
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	byName := byNameDependents(stored, old, files, parse)
	more, err = p.parseAll(ctx, j, byName, mods, len(files), len(files)+len(byName))
	if err != nil {
		return nil, err
	}
	p.log.Debug("python incremental", "parsed", len(rels), "dependents", len(deps), "by_name", len(byName), "changed_modules", len(changedMods))
	return append(files, more...), nil
}

// link resolves the parsed files against every module's scope and emits
// them in path order, after clearing the stored records they replace.
func (p *indexer) link(j *frontend.Job, files []*sourceFile, stored map[string]*moduleScope, emit func(frontend.FileResult)) error {
	table := &symbolTable{mods: map[string]*moduleScope{}}
	for _, sc := range stored {
		table.add(sc)
	}
	for _, f := range files {
		table.add(f.scope)
	}
	var rewrite []string
	for _, f := range files {
		if _, ok := j.Stored[f.rel]; ok {
			rewrite = append(rewrite, f.rel)
		}
	}
	sort.Strings(rewrite)
	if err := j.Rewrite(rewrite); err != nil {
		return err
	}
	sort.Slice(files, func(a, b int) bool { return files[a].rel < files[b].rel })
	for _, f := range files {
		table.link(f)
		f.res.Sort()
		emit(f.res)
	}
	return nil
}

// dependsOn reports whether a module importing deps must be re-resolved
// after the modules in changed changed.
func dependsOn(deps []string, changed map[string]bool) bool {
	for _, dep := range deps {
		if d, ok := strings.CutPrefix(dep, "__init__."); ok && dependsOn([]string{d}, changed) {
			return true // a relative import at the root (symbolTable.abs)
		}
		for m := dep; ; {
			if changed[m] {
				return true
			}
			i := strings.LastIndexByte(m, '.')
			if i < 0 {
				break
			}
			m = m[:i]
		}
	}
	for m := range changed {
		for _, dep := range deps {
			if strings.HasPrefix(m, dep+".") {
				return true
			}
		}
	}
	return false
}
