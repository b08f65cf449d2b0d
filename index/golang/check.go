package golang

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/types"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// check type-checks every root and its dependencies in dependency order, at
// most j.workers at a time, extracting each root as soon as it is checked.
//
// DESIGN: one goroutine per package waits for its imports' done channels,
// then takes a worker slot; waiting never holds a slot, so the pool cannot
// deadlock. Import cycles (code that does not compile) are cut where the
// depth-first walk meets them. Parsed files are shared between the plain and
// test variants of a package and dropped when the last user is checked, and
// a root's syntax and types.Info are dropped right after extraction, so peak
// memory is the type information of the whole graph plus the syntax of the
// packages in flight.
func (r *runState) check(ctx context.Context, roots []*gpkg) error {
	// Depth-first order; cycle edges are not waited on.
	state := map[*gpkg]int{}
	var all []*gpkg
	var visit func(p *gpkg)
	visit = func(p *gpkg) {
		state[p] = 1
		paths := make([]string, 0, len(p.imports))
		for path := range p.imports {
			paths = append(paths, path)
		}
		sort.Strings(paths)
		for _, path := range paths {
			q := p.imports[path]
			switch state[q] {
			case 0:
				visit(q)
				p.waits = append(p.waits, q)
			case 2:
				p.waits = append(p.waits, q)
			}
		}
		state[p] = 2
		all = append(all, p)
	}
	for _, p := range roots {
		if state[p] == 0 {
			visit(p)
		}
	}
	if r.types != nil {
		r.loadCached(all)
	}
	if testHookChecked != nil {
		var checked []string
		for _, p := range all {
			if !p.fromCache {
				checked = append(checked, p.meta.ID)
			}
		}
		testHookChecked(checked)
	}
	for _, p := range all {
		if p.fromCache {
			continue
		}
		for _, f := range p.meta.GoFiles {
			r.entry(f).refs++
		}
		for _, q := range p.waits {
			q.users.Add(1)
		}
	}
	r.mu.Lock()
	r.roots, r.doneRoots = len(roots), 0
	r.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, r.j.Workers)
	var wg sync.WaitGroup
	for _, p := range all {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(p.done)
			if p.fromCache {
				return
			}
			for _, q := range p.waits {
				select {
				case <-q.done:
				case <-ctx.Done():
					return
				}
			}
			select {
			case sem <- struct{}{}:
			case <-ctx.Done():
				return
			}
			defer func() { <-sem }()
			r.checkOne(p)
			// Drop type information nobody will import again; what other
			// packages' types still reference stays alive through them.
			for _, q := range p.waits {
				if q.users.Add(-1) == 0 && !q.fromCache {
					q.tpkg = nil
				}
			}
			if p.users.Load() == 0 {
				p.tpkg = nil
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

func (r *runState) entry(file string) *parsed {
	r.mu.Lock()
	defer r.mu.Unlock()
	e := r.cache[file]
	if e == nil {
		e = &parsed{}
		r.cache[file] = e
	}
	return e
}

// parse returns the cached parse of file, parsing it on first use.
func (r *runState) parse(file string) *parsed {
	e := r.entry(file)
	e.once.Do(func() {
		// Repository files are opened beneath the root (a file swapped
		// for a link outside after the scan is refused), every file only
		// when regular (a FIFO cannot block the run).
		rel, inRepo := r.rel(file)
		var data []byte
		var err error
		if inRepo {
			data, err = r.j.Read(rel)
		} else {
			data, err = frontend.ReadRegular(file)
		}
		if err != nil {
			e.readErr = err
			return
		}
		mode := parser.SkipObjectResolution
		if inRepo {
			mode |= parser.ParseComments
		}
		f, err := parser.ParseFile(r.fset, file, data, mode)
		e.file = f
		if err != nil {
			e.errs = append(e.errs, errorLines(err)...)
		}
		if inRepo {
			e.hash, e.size, e.lines = frontend.ContentHash(data), int64(len(data)), frontend.CountLines(data)
			e.generated = f != nil && ast.IsGenerated(f)
		}
	})
	return e
}

// release drops a reference to file's parse; the last one frees the syntax.
func (r *runState) release(file string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.cache[file]; e != nil {
		e.refs--
		if e.refs <= 0 {
			delete(r.cache, file)
		}
	}
}

// errorLines flattens a parser error list.
func errorLines(err error) []string {
	var out []string
	var list interface{ Unwrap() []error }
	if errors.As(err, &list) {
		for _, e := range list.Unwrap() {
			out = append(out, e.Error())
		}
		return out
	}
	return []string{err.Error()}
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// checkOne parses and type-checks one package and, for a root, extracts it.
// A dependency is checked without function bodies, and taken from the
// cache of dependency packages when another run already checked it.
func (r *runState) checkOne(p *gpkg) {
	start := time.Now()
	defer func() {
		for _, f := range p.meta.GoFiles {
			r.release(f)
		}
	}()
	// A panic while parsing, type-checking or extracting the package is
	// its error: its files are indexed from syntax alone.
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("type check or extraction panicked", "package", p.meta.PkgPath, "panic", v, "stack", string(debug.Stack()))
			r.refuse(p, fmt.Sprintf("not type-checked: the type checker or the extraction failed (%v); its files are indexed from syntax alone", v))
		}
	}()
	if !p.root && r.types == nil {
		p.key = r.depKey(p)
		if tp, growth := depCacheGet(p.key); tp != nil {
			p.tpkg, p.growth = tp, growth
			return
		}
	}
	src := r.parseFiles(p)
	growth, err := screenGenerics(src.files, p.importedGrowth(), p.importName)
	p.growth = growth
	if err != nil {
		r.refuse(p, err.Error())
		return
	}
	if frontend.TestHookExtract != nil {
		frontend.TestHookExtract("go", p.meta.PkgPath)
	}
	var info *types.Info
	if p.root {
		info = &types.Info{
			Defs:       map[*ast.Ident]types.Object{},
			Uses:       map[*ast.Ident]types.Object{},
			Selections: map[*ast.SelectorExpr]*types.Selection{},
		}
	}
	conf := r.typesConfig(p, src)
	tpkg, _ := conf.Check(p.meta.PkgPath, r.fset, src.files, info)
	if p.key != "" && r.types == nil {
		tpkg = depCacheAdd(p.key, tpkg, p.growth)
	}
	p.tpkg = tpkg
	if r.types != nil && p.key != "" && !p.cached && !p.failed {
		r.types.store(p, r.fset)
	}
	r.checkNS.Add(int64(time.Since(start)))
	if !p.root || p.failed {
		return
	}
	if len(src.srcs) == 0 {
		return // every file vanished: nothing to own the package
	}
	r.extractRoot(p, tpkg, info, src)
}

// importedGrowth returns the lookup of the growth of imported types for
// screenGenerics: from the imports p waits for (checked, so their growths
// are known); an import cut from a cycle counts 0.
func (p *gpkg) importedGrowth() func(path, name string) int64 {
	waited := make(map[*gpkg]bool, len(p.waits))
	for _, q := range p.waits {
		waited[q] = true
	}
	return func(path, name string) int64 {
		if q := p.imports[path]; q != nil && waited[q] {
			return q.growth[name]
		}
		return 0
	}
}

// importName is the package name of an import of p.
func (p *gpkg) importName(path string) string {
	if q := p.imports[path]; q != nil {
		return q.meta.Name
	}
	return ""
}

// refuse records that p could not be type-checked: a root is reported and
// marked failed (dropFailed sends its files to the syntax-only path), a
// dependency is left without types (its importers report it not loaded).
func (r *runState) refuse(p *gpkg, msg string) {
	p.tpkg = nil
	p.refused = msg
	if p.root {
		p.failed = true
		if !p.testdata { // testdata is indexed from syntax unreported, as when it does not build
			r.j.Diag(frontend.Diagnostic{Package: p.meta.PkgPath, Msg: msg})
		}
	}
}

// pkgSources is one package's parsed files.
type pkgSources struct {
	files []*ast.File  // what the type checker reads
	srcs  []*srcFile   // of a root, the files inside the repository: what it owns
	cgo   bool         // a file imports "C"
	errs  fileMessages // type errors by file, added by typesConfig's handler
}

// fileMessages are "line:col: msg" errors by repository-relative file.
type fileMessages map[string][]string

// parseFiles parses (or takes from the shared cache) the files of p. For a
// root, files inside the repository become srcFiles with their syntax
// errors (reported, except in testdata, which the syntax-only path
// indexes), and unreadable ones are noted.
func (r *runState) parseFiles(p *gpkg) *pkgSources {
	src := &pkgSources{errs: fileMessages{}}
	for _, f := range p.meta.GoFiles {
		e := r.parse(f)
		rel, inRepo := r.rel(f)
		if e.readErr != nil {
			if p.root && inRepo {
				r.j.Note(frontend.Diagnostic{Package: p.meta.PkgPath, Pos: frontend.ShortRel(rel), Msg: frontend.Reason(e.readErr)})
			}
			continue
		}
		if e.file == nil {
			continue
		}
		src.files = append(src.files, e.file)
		for _, imp := range e.file.Imports {
			src.cgo = src.cgo || imp.Path.Value == `"C"`
		}
		if !p.root || !inRepo {
			continue
		}
		sf := &srcFile{
			rel: rel, ast: e.file, hash: e.hash, size: e.size, lines: e.lines,
			test: strings.HasSuffix(rel, "_test.go"), generated: e.generated, testdata: frontend.IsTestdata(rel),
		}
		for _, msg := range e.errs {
			if p.testdata {
				p.failed = true // reported by the syntax-only path
				continue
			}
			sf.errors = append(sf.errors, trimFilePrefix(msg, f, rel))
			r.j.Diag(frontend.Diagnostic{Package: p.meta.PkgPath, Pos: rel, Msg: trimFilePrefix(msg, f, rel)})
		}
		src.srcs = append(src.srcs, sf)
	}
	return src
}

// typesConfig is the type checker's configuration for p: imports resolve
// to the packages go list named, already checked; a dependency is checked
// without bodies and its errors ignored; a root's errors are reported and
// kept by file in src.errs.
func (r *runState) typesConfig(p *gpkg, src *pkgSources) types.Config {
	return types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			if path == "unsafe" {
				return types.Unsafe, nil
			}
			q := p.imports[path]
			if q == nil {
				return nil, fmt.Errorf("go list did not resolve %s (see its list errors)", path)
			}
			if q.tpkg == nil && q.refused != "" {
				return nil, fmt.Errorf("package %s was %s", path, q.refused)
			}
			if q.tpkg == nil {
				return nil, fmt.Errorf("package %s could not be loaded (import cycle or list error)", path)
			}
			return q.tpkg, nil
		}),
		FakeImportC:      true,
		IgnoreFuncBodies: !p.root,
		Sizes:            r.sizes,
		Error: func(err error) {
			if p.root {
				r.typeError(p, src, err)
			}
		},
	}
}

// typeError reports one type error of root p.
func (r *runState) typeError(p *gpkg, src *pkgSources, err error) {
	if p.testdata {
		p.failed = true // testdata is often broken on purpose: indexed from syntax, not reported
		return
	}
	var te types.Error
	if !errors.As(err, &te) {
		r.j.Diag(frontend.Diagnostic{Package: p.meta.PkgPath, Msg: err.Error()})
		return
	}
	if src.cgo && strings.Contains(te.Msg, "invalid type") {
		// C types are opaque without running cgo (FakeImportC):
		// errors about them are artifacts of indexing, not of the code.
		return
	}
	pos := te.Fset.PositionFor(te.Pos, false)
	rel, _ := r.rel(pos.Filename)
	where := fmt.Sprintf("%s:%d:%d", rel, pos.Line, pos.Column)
	msg := strings.TrimSpace(te.Msg) // continuation lines ("\tother declaration of X") start with a tab
	src.errs[rel] = append(src.errs[rel], fmt.Sprintf("%d:%d: %s", pos.Line, pos.Column, msg))
	r.j.Diag(frontend.Diagnostic{Package: p.meta.PkgPath, Pos: where, Msg: msg})
}

// extractRoot extracts a checked root package: its files' owners and the
// package owner (its module node), emitted for writing, and its method
// sets and external interfaces, kept for the implements pass.
func (r *runState) extractRoot(p *gpkg, tpkg *types.Package, info *types.Info, src *pkgSources) {
	t1 := time.Now()
	for _, sf := range src.srcs {
		sf.errors = append(sf.errors, src.errs[sf.rel]...)
	}
	x := &extractor{fset: r.fset, pkg: tpkg, info: info, inRepo: r.isRepo}
	x.extract(src.srcs)
	exts := x.externals()
	sets := methodSets(tpkg)
	mod := packageNode(tpkg, src.srcs, p.testdata, sets, exts)
	r.extractNS.Add(int64(time.Since(t1)))
	api := apiHash(tpkg)
	// The package owner's Hash is its API fingerprint: the next run
	// reloads the importers when it differs (importers).
	owner := frontend.FileResult{Rec: graphdb.FileRecord{Path: pkgOwner(tpkg.Path()), Language: "go", Module: tpkg.Path(), Hash: api}, Nodes: []graphdb.Node{mod}}
	r.emit(owner)
	for _, fr := range x.files {
		fr.Sort()
		r.emit(*fr)
	}
	r.mu.Lock()
	r.sets = append(r.sets, sets...)
	r.encoded[tpkg.Path()] = mod.Attrs[attrMethodSets]
	r.exts[tpkg.Path()] = exts
	r.apis[tpkg.Path()] = api
	r.doneRoots++
	n := r.doneRoots
	r.mu.Unlock()
	r.j.Progress(frontend.Progress{Phase: "check", Done: n, Total: r.roots, Item: p.meta.PkgPath})
}

// packageNode is the module node of a Go package (srcs: its files, at
// least one): its doc, whether it is test-only or testdata, and in Attrs
// its method sets and the external interfaces it uses.
func packageNode(tpkg *types.Package, srcs []*srcFile, testdata bool, sets []methodSet, exts []extIface) graphdb.Node {
	mod := graphdb.Node{
		ID: pkgID(tpkg.Path()), Kind: graphdb.KindModule, SubKind: "package", Name: tpkg.Name(),
		QName: tpkg.Path(), Language: "go", Signature: "package " + tpkg.Name(),
		Exported: true, Attrs: map[string]string{},
	}
	mod.File = dirOf(srcs[0].rel)
	mod.Loc = mod.File
	allTest := true
	for _, sf := range srcs {
		allTest = allTest && sf.test
		if mod.Doc == "" && sf.ast.Doc != nil && !sf.test {
			mod.Doc = docLine(sf.ast.Doc)
		}
	}
	mod.Test = allTest
	mod.Testdata = testdata
	if len(sets) > 0 {
		mod.Attrs[attrMethodSets] = encodeMethodSets(tpkg.Path(), sets)
	}
	if len(exts) > 0 {
		mod.Attrs[attrExtIfaces] = encodeExternals(exts)
	}
	if len(mod.Attrs) == 0 {
		mod.Attrs = nil
	}
	return mod
}

func (r *runState) isRepo(pkgPath string) bool { return r.inRepo[pkgPath] }

func trimFilePrefix(msg, abs, rel string) string {
	if strings.HasPrefix(msg, abs+":") {
		return strings.TrimPrefix(msg, abs+":")
	}
	return msg
}

func dirOf(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// depCache keeps the type-checked packages from outside the repository (the
// standard library, the module cache) for later runs in the same process: a
// long-lived process re-indexing, and tests, skip re-checking them. Entries
// are keyed by the package's files (path, size, modification time), its
// platform and the keys of its imports, so any change to a dependency or
// below it misses. Packages inside the repository are never cached.
var depCache = struct {
	sync.Mutex
	m      map[string]*types.Package
	growth map[string]map[string]int64 // the screen's growths (generic.go) of the same keys
}{m: map[string]*types.Package{}, growth: map[string]map[string]int64{}}

// depCacheMax bounds the cache; when full it stops growing.
//
// DESIGN: every cached package must have been checked against the cached
// instances of its imports, or a run mixing a cached package with its own
// copy of a dependency sees two distinct types of the same name
// ("time.Duration is not time.Duration"). Two rules keep that true when runs
// overlap in one process: the first instance stored for a key wins and
// every checker adopts it (depCacheAdd) before anything imports it, and
// entries are never evicted (clearing would orphan packages built on the
// dropped instances), so a full cache simply stops adding.
const depCacheMax = 8192

func depCacheGet(key string) (*types.Package, map[string]int64) {
	if key == "" {
		return nil, nil
	}
	depCache.Lock()
	defer depCache.Unlock()
	return depCache.m[key], depCache.growth[key]
}

// depCacheAdd stores p under key unless an instance is already there, and
// returns the instance the caller must use from now on.
func depCacheAdd(key string, p *types.Package, growth map[string]int64) *types.Package {
	depCache.Lock()
	defer depCache.Unlock()
	if old, ok := depCache.m[key]; ok {
		return old
	}
	if len(depCache.m) < depCacheMax {
		depCache.m[key] = p
		depCache.growth[key] = growth
	}
	return p
}

// depKey returns the cache key of a dependency, or "" when it cannot be
// cached (files inside the repository, unreadable files, an import that
// cannot be cached).
func (r *runState) depKey(p *gpkg) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00", p.meta.ID, p.meta.PkgPath, runtime.GOARCH)
	for _, f := range p.meta.GoFiles {
		if _, inside := r.rel(f); inside {
			return ""
		}
		st, err := os.Stat(f)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f, st.Size(), st.ModTime().UnixNano())
	}
	if !r.importKeys(h, p) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}
