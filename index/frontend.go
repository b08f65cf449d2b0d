package index

import (
	"context"
	"fmt"
	"log/slog"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"golang.org/x/sync/errgroup"
)

// fileResult is everything one owner contributes to the graph: its record,
// the nodes it declares and the edges it produces.
type fileResult struct {
	rec   graphdb.FileRecord
	nodes []graphdb.Node
	edges []graphdb.Edge
}

// idCounts makes node ids unique within the owners one extractor writes:
// the n-th declaration of an id (blank fields, code that redeclares) gets
// "<id>#n".
type idCounts map[graphdb.NodeID]int

func (c idCounts) unique(id graphdb.NodeID) graphdb.NodeID {
	n := c[id]
	c[id] = n + 1
	if n == 0 {
		return id
	}
	return graphdb.NodeID(fmt.Sprintf("%s#%d", id, n+1))
}

// sortResult puts nodes and edges in a canonical order and drops duplicate
// edges, so that two runs over the same tree write identical owners.
func (r *fileResult) sortResult() {
	sort.Slice(r.nodes, func(i, j int) bool {
		a, b := r.nodes[i], r.nodes[j]
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.ID < b.ID
	})
	sort.Slice(r.edges, func(i, j int) bool { return edgeLess(r.edges[i], r.edges[j]) })
	out := r.edges[:0]
	for i, e := range r.edges {
		if i > 0 && e == r.edges[i-1] {
			continue
		}
		out = append(out, e)
	}
	r.edges = out
}

func edgeLess(a, b graphdb.Edge) bool {
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	if a.From != b.From {
		return a.From < b.From
	}
	if a.To != b.To {
		return a.To < b.To
	}
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

// frontend indexes one language. Go works a package at a time (it needs the
// type checker); the tree-sitter languages (Python, TypeScript/JavaScript,
// Java) a file at a time. The
// orchestration in Run (scan, diff against the store, one transaction,
// progress) is shared.
//
// DESIGN: a frontend receives the scanned tree, the store's records for its
// language and the changed/deleted sets, and decides what to re-extract; it
// streams owners through emit (called from many goroutines; emit serialises)
// and finally returns owners computed across the whole repository (such as
// Go's implements edges) and the owners to delete.
type frontend interface {
	// language is the FileRecord.Language the frontend owns.
	language() string
	// index extracts what changed. full asks for everything.
	index(ctx context.Context, job *job, emit func(fileResult)) (done, error)
}

// job is the input of one frontend run.
type job struct {
	lang    string // fileLang.name
	tree    *tree
	files   map[string]*diskFile          // this language's files on disk, by rel
	stored  map[string]graphdb.FileRecord // this language's records, by path (pseudo-owners included)
	changed map[string]bool               // added or modified files (rel)
	deleted map[string]bool               // stored files gone from disk
	full    bool
	workers int
	budget  budgets        // per-file limits (budget.go)
	reader  graphdb.Reader // the store as it was before this run
	// rewrite receives, before any emit, the stored owners that the run
	// will rewrite, so that ids can move between them inside the
	// transaction.
	rewrite  func(paths []string) error
	progress func(Progress)
	diag     func(Diagnostic)
	note     func(Diagnostic) // a file not indexed (Summary.Notes)

	// configs are the language's configuration files (fileLang.config),
	// sorted; configHash fingerprints their contents (fileLang.configOwner).
	configs    []string
	configHash string
	// irregular lists the names the language would claim that are not
	// regular files or lead outside the repository (noted by the scan;
	// Go hides them from go list).
	irregular []string
}

// done is what a frontend reports when it finishes.
type done struct {
	packages int          // units (packages, modules, files) re-extracted: Summary.Languages[...].Units
	global   []fileResult // owners computed across the repository, written last
	remove   []string     // owners to delete (vanished packages)
	phases   map[string]int64
}

// preparer is implemented by a frontend that reads its configuration
// files before the plan (Go reads go.mod and go.work).
type preparer interface {
	// prepare reads j.configs; it fails the run on a configuration it
	// cannot use.
	prepare(ctx context.Context, j *job) (prepared, error)
}

// prepared is what a preparer found.
type prepared struct {
	full       bool              // the configuration changed since the stored run: run in full
	meta       map[string]string // Meta entries the commit writes
	syntaxOnly int               // files indexed from syntax alone (Summary.Languages[...].SyntaxOnly)
}

// feEnv is what a frontend is made with.
type feEnv struct {
	log         *slog.Logger
	listTimeout time.Duration // Options.ListTimeout (Go)
	goProxy     string        // Options.GoProxy (Go)
}

// fileLang is one indexed language: what the scan hands it and how Run
// runs it. The languages are listed, in order, by languages (langs.go); a
// language that this build cannot index (tree-sitter without cgo) has
// newFrontend nil, and Run notes its files as not indexed.
type fileLang struct {
	name       string // FileRecord.Language
	title      string // Summary.Languages key and how messages name it
	files      string // its files, for messages (".ts, .tsx … files")
	version    string // format version, kept in Meta versionKey
	versionKey string // "index.<name>.version" ("index.py.version" for Python)
	unit       string // what LanguageSummary.Units counts ("packages", "modules", "files")
	// source reports whether a file (repo-relative path, base name) is a
	// source file of the language; config whether it is a file the
	// language reads to resolve names (go.mod, tsconfig.json,
	// package.json). The first language whose source claims a file owns it.
	source, config func(rel, base string) bool
	// configOwner, when set, is the pseudo-owner whose FileRecord.Hash
	// fingerprints the configuration files (job.configHash); Run treats a
	// change as work.
	configOwner string
	// configPresent: a configuration file alone makes the language
	// present (a go.mod without .go files is still a Go module).
	configPresent bool
	// unfiltered: the language's own tool reads every file it claims (go
	// list), so .gitignore does not hide them, and a configuration file
	// that is not a regular file is claimed anyway (reading it fails with
	// advice).
	unfiltered bool
	// budgeted: the files are held to the per-file budgets (budget.go);
	// a change to the budgets runs the language in full.
	budgeted    bool
	newFrontend func(feEnv) frontend // nil: unavailable in this build
	unavailable string               // why, when newFrontend is nil
}

// fileLangOf returns the index in fileLangs of the language whose source
// rel is, or -1.
func fileLangOf(rel, base string) int {
	for i, l := range fileLangs {
		if l.source(rel, base) {
			return i
		}
	}
	return -1
}

// parseEach parses rels on j.workers goroutines, each with its own parser
// state (open when the worker starts, shut when it ends), and reports
// progress as files finish; doneSoFar and total place these files within
// the run's progress. Files parse returns nil for (unreadable) are left out;
// the order of the others follows rels.
func parseEach[S, F any](ctx context.Context, j *job, rels []string, doneSoFar, total int, open func() S, shut func(S), parse func(S, string) *F) ([]*F, error) {
	out := make([]*F, len(rels))
	next := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	n := doneSoFar
	for range min(j.workers, max(len(rels), 1)) {
		g.Go(func() error {
			st := open()
			defer shut(st)
			for i := range next {
				out[i] = parseOne(j, st, rels[i], parse)
				mu.Lock()
				n++
				if n%64 == 0 || n == total {
					j.progress(Progress{Phase: "files", Done: n, Total: total, Item: rels[i]})
				}
				mu.Unlock()
			}
			return nil
		})
	}
	var err error
	for i := range rels {
		if err = gctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	if werr := g.Wait(); err == nil {
		err = werr
	}
	var files []*F
	for _, f := range out {
		if f != nil {
			files = append(files, f)
		}
	}
	return files, err
}

// parseOne runs parse on one file; a panic becomes the file's error
// (Summary.Errors) and the file is left out, instead of ending the run.
func parseOne[S, F any](j *job, st S, rel string, parse func(S, string) *F) (f *F) {
	defer func() {
		if v := recover(); v != nil {
			j.diag(Diagnostic{Pos: rel, Msg: fmt.Sprintf("not indexed: extracting the file failed (%v at %s); please report it", v, panicSite())})
			f = nil
		}
	}()
	if testHookExtract != nil {
		testHookExtract(j.lang, rel)
	}
	return parse(st, rel)
}

// testHookExtract, when set by a test, runs before each file (language
// name, path) or Go package (language "go", import path) is extracted.
var testHookExtract func(lang, unit string)

// panicSite names the function of this package that panicked, from the
// stack of a deferred recover: the first frame in package index below the
// runtime's panic frames.
func panicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		fr, more := frames.Next()
		if strings.Contains(fr.Function, "/index.") && !strings.Contains(fr.Function, "parseOne") {
			return fmt.Sprintf("%s:%d", path.Base(fr.File), fr.Line)
		}
		if !more {
			return "unknown"
		}
	}
}
