package golang

import (
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/tools/go/packages"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/golang/internal/goshim"
	"github.com/relayhq/relay/index/internal/frontend"
)

// indexer indexes Go: package metadata from go/packages (`go list`),
// parsing and type checking with go/parser and go/types in dependency order,
// extraction from the typed syntax.
type indexer struct {
	log         *slog.Logger
	listTimeout time.Duration // the longest one `go list` may run
	goProxy     string        // Options.GoProxy
	cacheDir    string        // Options.CacheDir ("": no type cache)
	tree        *moduleTree   // modules and workspace, read by prepare
}

func (g *indexer) Language() string { return "go" }

// testHookListed, when set by a test, runs between listing and loading.
var testHookListed func(root string)

// testHookChecked, when set by a test, receives the go list IDs of the
// packages each pass checks from source (the others come from the type
// cache).
var testHookChecked func(ids []string)

// listGroup is one `go list` invocation.
type listGroup struct {
	dir      string   // absolute working directory
	env      []string // added to the environment
	patterns []string
	goMod    string // the go.mod of a module listed alone (repo-relative); "" for a workspace
	module   bool   // a module listed alone, not a go.work's modules
}

// gpkg is one package to type-check: a repository package to extract (root)
// or a dependency checked only for its exported types.
type gpkg struct {
	meta    *packages.Package
	root    bool
	imports map[string]*gpkg
	waits   []*gpkg
	done    chan struct{}
	tpkg    *types.Package
	users   atomic.Int32 // packages still to check that import this one
	key     string       // depCache key of a dependency outside the repository, or its type cache key ("" if none)
	// cached: the type cache holds p under key; fromCache: p is loaded
	// from it, not checked (a dependency whose imports all are too).
	// A package with type errors is cached as checked (export data keeps
	// invalid types), so that cgo packages, whose C types are opaque
	// (FakeImportC), do not send everything above them to source.
	cached, fromCache bool
	// testdata: a root whose files all lie under testdata. It is extracted
	// only when it lists, parses and type-checks without error; otherwise
	// checkOne sets failed and its files are indexed from syntax.
	testdata bool
	failed   bool
	refused  string           // why the package was not type-checked (generic.go), "" if it was
	growth   map[string]int64 // its types' growth (generic.go), for its importers' screens
}

// parsed is one cached parse, shared by the variants of a package (the
// plain package and its test variant list the same files).
type parsed struct {
	once      sync.Once
	refs      int32
	file      *ast.File
	hash      string
	size      int64
	lines     int
	generated bool
	errs      []string
	readErr   error
}

// runState is the state of one Go frontend run.
type runState struct {
	*indexer
	j      *frontend.Job
	fset   *token.FileSet
	sizes  types.Sizes
	inRepo map[string]bool
	emit   func(frontend.FileResult)

	pkgNodes   map[string]graphdb.Node // stored module nodes read so far; zero Node: absent
	rewritten  map[string]bool         // stored owners deleted for rewriting
	reloaded   map[string]bool         // package paths extracted in this run
	encoded    map[string]string       // package path → its new attrMethodSets value
	exts       map[string][]extIface   // package path → the external interfaces it references (fresh)
	apis       map[string]string       // package path → its API fingerprint (apiHash), fresh
	types      *typeCache              // nil: dependencies are checked from source
	cacheLoads int                     // packages loaded from the type cache

	mu        sync.Mutex
	cache     map[string]*parsed
	sets      []methodSet
	roots     int
	doneRoots int
	extractNS atomic.Int64
	checkNS   atomic.Int64
}

func (g *indexer) Index(ctx context.Context, j *frontend.Job, emit func(frontend.FileResult)) (frontend.Done, error) {
	r := &runState{
		indexer: g, j: j, fset: token.NewFileSet(), emit: emit,
		sizes: types.SizesFor("gc", runtime.GOARCH), cache: map[string]*parsed{}, inRepo: map[string]bool{},
		pkgNodes: map[string]graphdb.Node{}, encoded: map[string]string{},
		exts: map[string][]extIface{}, apis: map[string]string{},
	}
	if g.cacheDir != "" {
		r.types = openTypeCache(filepath.Join(g.cacheDir, "go-types"), g.log)
	}
	return r.run(ctx)
}

func (r *runState) run(ctx context.Context) (frontend.Done, error) {
	j := r.j
	d := frontend.Done{Phases: map[string]int64{}}
	r.rewritten = map[string]bool{}
	r.reloaded = map[string]bool{}
	for _, rec := range j.Stored {
		if rec.Module != "" && !rec.IsPseudo() {
			r.inRepo[rec.Module] = true
		}
	}
	loadDirs, goDirs := r.firstDirs()
	// Later passes reload the importers of the packages whose API changed
	// in the previous pass, until none does.
	loaded := map[string]bool{}
	for pass := 0; ; pass++ {
		for dir := range loadDirs {
			loaded[dir] = true
		}
		roots, err := r.pass(ctx, loadDirs, pass == 0, &d)
		if err != nil {
			return d, err
		}
		if j.Full {
			break
		}
		next, err := r.importers(ctx, r.apiChanged(roots), loaded, goDirs)
		if err != nil {
			return d, err
		}
		if len(next) == 0 {
			break
		}
		r.log.Debug("reload importers", "pass", pass+1, "dirs", len(next))
		loadDirs = next
	}
	if r.types != nil {
		r.log.Debug("go type cache", "loaded", r.cacheLoads)
		if j.Full {
			r.types.sweep()
		}
	}

	if err := r.implements(ctx, &d); err != nil {
		return d, err
	}
	d.Phases["parse+typecheck"] = r.checkNS.Load()
	d.Phases["extract"] = r.extractNS.Load()
	return d, nil
}

// firstDirs returns the directories (repo-relative) an incremental run
// loads first, those of the changed and deleted files that hold Go files
// of a module, and every directory holding Go files. Both are empty in a
// full run.
func (r *runState) firstDirs() (loadDirs, goDirs map[string]bool) {
	j := r.j
	loadDirs, goDirs = map[string]bool{}, map[string]bool{}
	if j.Full {
		return loadDirs, goDirs
	}
	for f := range j.Changed {
		loadDirs[path.Dir(f)] = true
	}
	for f := range j.Deleted {
		loadDirs[path.Dir(f)] = true
	}
	for rel := range j.Files {
		goDirs[path.Dir(rel)] = true
	}
	testdata := r.tree.testdataDirs()
	for dir := range loadDirs {
		if (frontend.IsTestdata(dir+"/") && !testdata[dir]) || !goDirs[dir] {
			delete(loadDirs, dir)
			continue
		}
		if _, ok := r.tree.moduleOf(dir); !ok {
			delete(loadDirs, dir)
		}
	}
	return loadDirs, goDirs
}

// implements computes the implements edges and the external interface
// nodes from every package's fingerprints and references: fresh ones for
// the packages loaded in this run, stored ones for the others.
func (r *runState) implements(ctx context.Context, d *frontend.Done) error {
	j := r.j
	j.Progress(frontend.Progress{Phase: "implements"})
	t3 := time.Now()
	sets := r.sets
	need := map[string]bool{}
	for p, rec := range j.Stored {
		if rec.IsPseudo() || r.rewritten[p] || rec.Module == "" || r.reloaded[rec.Module] {
			continue
		}
		need[rec.Module] = true
	}
	mods := make([]string, 0, len(need))
	for m := range need {
		mods = append(mods, m)
	}
	sort.Strings(mods)
	for _, m := range mods {
		n, ok, err := r.storedPkg(ctx, m)
		if err != nil {
			return err
		}
		if ok {
			sets = append(sets, decodeMethodSets(m, n.Attrs[attrMethodSets])...)
			if a := n.Attrs[attrExtIfaces]; a != "" {
				r.exts[m] = decodeExternals(a)
			}
		}
	}
	extNodes, extEdges, extSets := externalNodes(r.allExternals())
	edges := append(implementsEdges(append(sets, extSets...)), extEdges...)
	sort.Slice(edges, func(i, k int) bool { return frontend.EdgeLess(edges[i], edges[k]) })
	d.Global = append(d.Global, frontend.FileResult{
		Rec:   graphdb.FileRecord{Path: implOwner, Language: "go"},
		Nodes: extNodes,
		Edges: edges,
	})
	d.Phases["implements"] = int64(time.Since(t3))
	return nil
}

// pass lists, rewrites, type-checks and extracts the packages of loadDirs
// (everything in a full run), then the files of those directories that no
// package claims. first adds the changed files outside packages (testdata).
func (r *runState) pass(ctx context.Context, loadDirs map[string]bool, first bool, d *frontend.Done) ([]*gpkg, error) {
	j := r.j
	groups := r.groups(loadDirs)
	r.log.Debug("go list", "groups", len(groups), "dirs", len(loadDirs), "full", j.Full)
	j.Progress(frontend.Progress{Phase: "list", Total: len(groups)})
	t0 := time.Now()
	roots, err := r.list(ctx, groups)
	if err != nil {
		return nil, err
	}
	d.Phases["list"] += int64(time.Since(t0))
	if testHookListed != nil {
		testHookListed(j.Root)
	}

	claimed, ignored := r.claim(roots)
	if err := r.rewriteOwners(loadDirs, first); err != nil {
		return nil, err
	}

	// Type-check and extract.
	t1 := time.Now()
	if err := r.check(ctx, roots); err != nil {
		return nil, err
	}
	d.Phases["check"] += int64(time.Since(t1))
	roots = r.dropFailed(roots, claimed)
	d.Units += len(roots)

	// Files no package claims: testdata, directories outside any module,
	// files go list could not place. Syntax only.
	var loose []string
	for rel := range j.Files {
		if claimed[rel] {
			continue
		}
		if j.Full || (first && j.Changed[rel]) || loadDirs[path.Dir(rel)] {
			loose = append(loose, rel)
		}
	}
	sort.Strings(loose)
	t2 := time.Now()
	if err := r.looseFiles(ctx, loose, ignored); err != nil {
		return nil, err
	}
	d.Phases["loose"] += int64(time.Since(t2))
	return roots, nil
}

// claim returns the files the listed packages claim (repo-relative) and,
// sorted, those among them excluded by build constraints: extracted files,
// and excluded files kept as file nodes so the next run sees them. It
// marks the packages as in the repository and reloaded.
func (r *runState) claim(roots []*gpkg) (claimed map[string]bool, ignored []string) {
	claimed = map[string]bool{}
	for _, p := range roots {
		for _, f := range p.meta.GoFiles {
			if rel, ok := r.rel(f); ok {
				claimed[rel] = true
			}
		}
		r.inRepo[p.meta.PkgPath] = true
		r.reloaded[p.meta.PkgPath] = true
	}
	for _, p := range roots {
		for _, f := range p.meta.IgnoredFiles {
			if rel, ok := r.rel(f); ok && strings.HasSuffix(rel, ".go") && !claimed[rel] && r.j.Files[rel] != nil {
				claimed[rel] = true
				ignored = append(ignored, rel)
			}
		}
	}
	sort.Strings(ignored)
	return claimed, ignored
}

// rewriteOwners deletes the stored owners this pass rewrites, with the
// module owners of their packages, first, so that ids may move between
// them.
func (r *runState) rewriteOwners(loadDirs map[string]bool, first bool) error {
	j := r.j
	var rewrite []string
	for p, rec := range j.Stored {
		if r.rewritten[p] {
			continue
		}
		re := j.Full || (first && (j.Changed[p] || j.Deleted[p])) || (!rec.IsPseudo() && loadDirs[path.Dir(p)])
		if !re {
			continue
		}
		rewrite = append(rewrite, p)
		r.rewritten[p] = true
		if rec.Module != "" && !rec.IsPseudo() {
			if _, ok := j.Stored[pkgOwner(rec.Module)]; ok && !r.rewritten[pkgOwner(rec.Module)] {
				rewrite = append(rewrite, pkgOwner(rec.Module))
				r.rewritten[pkgOwner(rec.Module)] = true
			}
		}
	}
	sort.Strings(rewrite)
	return j.Rewrite(rewrite)
}

// dropFailed returns the roots without the testdata packages that did not
// type-check: their files go to the syntax-only path with the files no
// package claims (they are removed from claimed).
func (r *runState) dropFailed(roots []*gpkg, claimed map[string]bool) []*gpkg {
	kept := roots[:0]
	for _, p := range roots {
		if !p.failed {
			kept = append(kept, p)
			continue
		}
		for _, f := range p.meta.GoFiles {
			if rel, ok := r.rel(f); ok {
				delete(claimed, rel)
			}
		}
		delete(r.inRepo, p.meta.PkgPath)
		delete(r.reloaded, p.meta.PkgPath)
	}
	return kept
}

// storedPkg returns the stored module node of a package (cached).
func (r *runState) storedPkg(ctx context.Context, pkgPath string) (graphdb.Node, bool, error) {
	if n, ok := r.pkgNodes[pkgPath]; ok {
		return n, n.ID != "", nil
	}
	n, err := r.j.Reader.Node(ctx, pkgID(pkgPath))
	if errors.Is(err, graphdb.ErrNotFound) {
		r.pkgNodes[pkgPath] = graphdb.Node{}
		return graphdb.Node{}, false, nil
	}
	if err != nil {
		return graphdb.Node{}, false, fmt.Errorf("read package %s: %w", pkgPath, err)
	}
	r.pkgNodes[pkgPath] = n
	return n, true, nil
}

// apiChanged returns the packages of this pass whose API, as importers
// see it, differs from the stored one (the Hash of their package owner,
// apiHash), and the stored packages whose
// owners this pass rewrote without extracting them again (vanished, or no
// longer type-checked): their importers' view changed too.
func (r *runState) apiChanged(roots []*gpkg) map[string]bool {
	changed := map[string]bool{}
	for _, p := range roots {
		path := p.meta.PkgPath
		api := r.apis[path] // "" for a root not extracted (no file left)
		if api == "" || r.j.Stored[pkgOwner(path)].Hash != api {
			r.log.Debug("package API changed: importers reload", "package", path)
			changed[path] = true
		}
	}
	for owner, rec := range r.j.Stored {
		if strings.HasPrefix(owner, "@go/pkg/") && r.rewritten[owner] && !r.reloaded[rec.Module] {
			r.log.Debug("package gone: importers reload", "package", rec.Module)
			changed[rec.Module] = true
		}
	}
	return changed
}

// importers returns the directories, not loaded yet, of the stored files
// that import a package whose API changed (the imports edges into its
// module node): what they type-check against changed, and with it their
// calls, errors and method sets.
//
// DESIGN: an importer's facts depend only on what its imports export, and
// an import's API fingerprint covers all of that — its declarations and
// every declaration of other packages they reach (deep export data) — so
// a package whose imports' fingerprints are unchanged needs no reload,
// even when a package further below changed: whatever of it shows through
// an import is part of that import's fingerprint. A reloaded importer's
// own fingerprint is compared in turn in the next pass.
func (r *runState) importers(ctx context.Context, changed, loaded, goDirs map[string]bool) (map[string]bool, error) {
	pkgs := make([]string, 0, len(changed))
	for p := range changed {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	next := map[string]bool{}
	for _, p := range pkgs {
		edges, err := r.j.Reader.Neighbors(ctx, pkgID(p), graphdb.EdgeImports, graphdb.Inbound, 0)
		if err != nil {
			return nil, fmt.Errorf("read importers of %s: %w", p, err)
		}
		for _, e := range edges {
			rel, ok := strings.CutPrefix(string(e.From), "file:")
			if !ok {
				continue
			}
			dir := path.Dir(rel)
			if loaded[dir] || !goDirs[dir] || r.j.Files[rel] == nil {
				continue
			}
			if _, ok := r.tree.moduleOf(dir); ok {
				next[dir] = true
			}
		}
	}
	return next, nil
}

// overlay hides from go list the .go names the scan found unfit to read
// (not regular files, links leading outside the repository, loops, broken
// links): each is replaced by a file excluded by an impossible build
// constraint, so go list neither opens it (a FIFO would block it forever)
// nor lists it (nothing from outside the repository is parsed).
func (r *runState) overlay() map[string][]byte {
	if len(r.j.Irregular) == 0 {
		return nil
	}
	stub := []byte("//go:build relay_excluded && !relay_excluded\n\npackage excluded\n")
	out := make(map[string][]byte, len(r.j.Irregular))
	for _, rel := range r.j.Irregular {
		out[filepath.Join(r.j.Root, filepath.FromSlash(rel))] = stub
	}
	return out
}

// relDir names a directory below the root in messages ("." for the root).
func (r *runState) relDir(abs string) string {
	if rel, ok := r.rel(abs); ok {
		return rel
	}
	return filepath.Base(abs)
}

// rel maps an absolute file name to a repo-relative path inside the root.
func (r *runState) rel(abs string) (string, bool) {
	rel, err := filepath.Rel(r.j.Root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// groups plans the `go list` invocations: with a go.work at the root its
// modules are listed together in workspace mode; every other module alone
// with GOWORK=off. loadDirs restricts an incremental run to directories.
func (r *runState) groups(loadDirs map[string]bool) []listGroup {
	t := r.tree
	inWork := map[string]bool{}
	for _, w := range t.work {
		inWork[w] = true
	}
	var work listGroup
	work.dir = t.root
	var out []listGroup
	mods := append([]module(nil), t.modules...)
	sort.Slice(mods, func(i, j int) bool { return mods[i].dir < mods[j].dir })
	var testdata map[string]bool
	if r.j.Full {
		testdata = t.testdataDirs()
	}
	for _, m := range mods {
		var pats []string
		want := loadDirs
		if r.j.Full && !t.walkFailedIn(m) {
			// "./..." skips testdata: those directories are named.
			pats = []string{"./..."}
			want = testdata
		} else if r.j.Full {
			// "./..." fails as a whole on a directory it cannot read
			// (a path too long to open) and lists nothing: name the
			// package directories the scan found instead.
			want = t.goDirs()
			for dir := range testdata {
				want[dir] = true
			}
		}
		var dirs []string
		for dir := range want {
			if mm, _ := t.moduleOf(dir); mm.dir == m.dir {
				dirs = append(dirs, dir)
			}
		}
		sort.Strings(dirs)
		for _, dir := range dirs {
			if dir == m.dir {
				pats = append(pats, ".")
			} else if m.dir == "." {
				pats = append(pats, "./"+dir)
			} else {
				pats = append(pats, "./"+strings.TrimPrefix(dir, m.dir+"/"))
			}
		}
		if len(pats) == 0 {
			continue
		}
		if inWork[m.dir] {
			for _, p := range pats {
				work.patterns = append(work.patterns, "./"+path.Join(m.dir, p)) // Join drops "./" and keeps "..."
			}
			continue
		}
		out = append(out, listGroup{
			dir: filepath.Join(t.root, filepath.FromSlash(m.dir)), env: []string{"GOWORK=off"}, patterns: pats,
			goMod: path.Join(m.dir, "go.mod"), module: true,
		})
	}
	if len(work.patterns) > 0 {
		out = append([]listGroup{work}, out...)
	}
	return out
}

// list runs the go list groups and returns the root packages to extract,
// with the whole dependency graph linked.
func (r *runState) list(ctx context.Context, groups []listGroup) ([]*gpkg, error) {
	results, err := r.goList(ctx, groups)
	if err != nil {
		return nil, err
	}
	return r.link(results), nil
}

// goList runs the go list groups in parallel and returns their packages,
// group by group. A group the go command refuses as a whole (a go.mod it
// rejects: a newer go line, a syntax error) is that module's error: its
// files are left unclaimed, for the syntax-only path, and the other groups
// go on. Only a go list that outlives the list timeout, or a cancelled
// run, fails the run.
func (r *runState) goList(ctx context.Context, groups []listGroup) ([][]*packages.Package, error) {
	results := make([][]*packages.Package, len(groups))
	overlay := r.overlay()
	release := goshim.Acquire(r.log)
	defer release()
	env := &goEnv{proxy: r.goProxy}
	defer env.close()
	// go list runs under a deadline of its own: a file it reads that the
	// scan could not see (a vendored FIFO, a hung file system) must not
	// hang the run. gocommand sends the process group SIGINT, then SIGKILL
	// after 5 s, when the context ends.
	lctx, cancel := context.WithTimeout(ctx, r.listTimeout)
	defer cancel()
	g, gctx := errgroup.WithContext(lctx)
	genvs := make([][]string, len(groups))
	for i, grp := range groups {
		genv, err := env.forGroup(grp, r.j.Read)
		if err != nil {
			r.j.Diag(frontend.Diagnostic{Pos: grp.goMod, Msg: fmt.Sprintf("not listed: %v", err)})
			continue
		}
		genvs[i] = genv
	}
	for i, grp := range groups {
		genv := genvs[i]
		if genv == nil {
			continue
		}
		g.Go(func() error {
			cfg := &packages.Config{
				Context: gctx,
				Mode:    packages.NeedName | packages.NeedFiles | packages.NeedImports | packages.NeedDeps | packages.NeedModule,
				Dir:     grp.dir,
				Env:     slices.Concat(os.Environ(), grp.env, genv),
				Tests:   true,
				Overlay: overlay,
			}
			pkgs, err := packages.Load(cfg, grp.patterns...)
			if err != nil {
				if ctx.Err() == nil && errors.Is(lctx.Err(), context.DeadlineExceeded) {
					return fmt.Errorf("go list in %s did not finish within %s and was stopped: a file it reads may block (a FIFO or device under vendor/ or in the module cache) or a module download may hang; fix the tree or raise the list timeout", r.relDir(grp.dir), r.listTimeout)
				}
				if gctx.Err() != nil {
					return fmt.Errorf("list Go packages in %s: %w", r.relDir(grp.dir), err)
				}
				r.listFailed(grp, env, err)
				return nil
			}
			results[i] = pkgs
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return results, nil
}

// listFailed reports a go list group that failed as a whole.
func (r *runState) listFailed(grp listGroup, env *goEnv, err error) {
	pos := grp.goMod
	if pos == "" {
		pos = "go.work"
	}
	msg := listFailure(err, env.copies)
	r.log.Debug("go list failed; the module's Go files are indexed from syntax", "dir", r.relDir(grp.dir), "err", msg)
	r.j.Diag(frontend.Diagnostic{Pos: pos, Msg: "go list failed (its Go files are indexed from syntax alone): " + msg})
}

// link converts the listed packages into gpkgs, the variants of one
// package that list the same files shared, and returns the roots sorted by
// path: the packages with a file inside the repository, test variants in
// place of their plain packages, without generated test mains and
// testdata packages that do not build.
func (r *runState) link(results [][]*packages.Package) []*gpkg {
	byKey := map[string]*gpkg{}
	byPtr := map[*packages.Package]*gpkg{}
	var conv func(p *packages.Package) *gpkg
	conv = func(p *packages.Package) *gpkg {
		if gp, ok := byPtr[p]; ok {
			return gp
		}
		key := p.ID
		if len(p.GoFiles) > 0 {
			key += "\x00" + filepath.Dir(p.GoFiles[0])
		}
		if gp, ok := byKey[key]; ok {
			byPtr[p] = gp
			return gp
		}
		gp := &gpkg{meta: p, imports: map[string]*gpkg{}, done: make(chan struct{})}
		byKey[key], byPtr[p] = gp, gp
		for path, imp := range p.Imports {
			gp.imports[path] = conv(imp)
		}
		return gp
	}
	var roots []*gpkg
	seenPath := map[string]string{}
	for _, pkgs := range results {
		variant := map[string]bool{}
		for _, p := range pkgs {
			if p.ID == p.PkgPath+" ["+p.PkgPath+".test]" {
				variant[p.PkgPath] = true
			}
		}
		for _, p := range pkgs {
			if strings.HasSuffix(p.ID, ".test") && !strings.Contains(p.ID, " [") {
				continue // generated test main
			}
			if p.ID == p.PkgPath && variant[p.PkgPath] {
				continue // its test variant holds the same files and more
			}
			// A package with no Go file left (all excluded) is placed by
			// its import path, which mirrors its directory.
			td := len(p.GoFiles) > 0 || frontend.IsTestdata(p.PkgPath+"/")
			for _, f := range p.GoFiles {
				rel, ok := r.rel(f)
				td = td && ok && frontend.IsTestdata(rel)
			}
			if td && len(p.Errors) > 0 {
				continue // testdata that does not build: its files are indexed from syntax
			}
			r.packageErrors(p)
			r.missingImports(p)
			inside := false
			for _, f := range p.GoFiles {
				if _, ok := r.rel(f); ok {
					inside = true
				}
			}
			if !inside {
				continue
			}
			if prev, dup := seenPath[p.PkgPath]; dup {
				r.j.Diag(frontend.Diagnostic{Package: p.PkgPath, Msg: fmt.Sprintf("package path %s is declared twice (%s and %s); only the first is indexed", p.PkgPath, prev, p.ID)})
				continue
			}
			seenPath[p.PkgPath] = p.ID
			gp := conv(p)
			gp.root, gp.testdata = true, td
			roots = append(roots, gp)
		}
	}
	sort.Slice(roots, func(i, j int) bool { return roots[i].meta.PkgPath < roots[j].meta.PkgPath })
	return roots
}

// missingImports reports, as p's errors, the list errors of the packages
// p imports that go list could not find (a module missing from the module
// cache, a lookup the go command's environment forbids): go list files them
// under the missing package, which is not in the repository.
func (r *runState) missingImports(p *packages.Package) {
	paths := make([]string, 0, len(p.Imports))
	for path, q := range p.Imports {
		if len(q.Errors) > 0 && len(q.GoFiles) == 0 {
			paths = append(paths, path)
		}
	}
	sort.Strings(paths)
	for _, path := range paths {
		for _, e := range p.Imports[path].Errors {
			r.j.Diag(frontend.Diagnostic{Package: p.PkgPath, Pos: r.relPos(e.Pos), Msg: fmt.Sprintf("import %q: %s", path, e.Msg)})
		}
	}
}

// relPos makes the file of a go list position ("/abs/file.go:3:8")
// repository-relative.
func (r *runState) relPos(pos string) string {
	if i := strings.Index(pos, ":"); i > 0 {
		if rel, ok := r.rel(pos[:i]); ok {
			return rel + pos[i:]
		}
	}
	return pos
}

// packageErrors reports go list errors (missing imports, bad package
// clauses) as diagnostics.
func (r *runState) packageErrors(p *packages.Package) {
	for _, e := range p.Errors {
		r.j.Diag(frontend.Diagnostic{Package: p.PkgPath, Pos: r.relPos(e.Pos), Msg: e.Msg})
	}
}
