package frontend

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
type FileResult struct {
	Rec   graphdb.FileRecord
	Nodes []graphdb.Node
	Edges []graphdb.Edge
}

// idCounts makes node ids unique within the owners one extractor writes:
// the n-th declaration of an id (blank fields, code that redeclares) gets
// "<id>#n".
type IDCounts map[graphdb.NodeID]int

func (c IDCounts) Unique(id graphdb.NodeID) graphdb.NodeID {
	n := c[id]
	c[id] = n + 1
	if n == 0 {
		return id
	}
	return graphdb.NodeID(fmt.Sprintf("%s#%d", id, n+1))
}

// sortResult puts nodes and edges in a canonical order and drops duplicate
// edges, so that two runs over the same tree write identical owners.
func (r *FileResult) Sort() {
	sort.Slice(r.Nodes, func(i, j int) bool {
		a, b := r.Nodes[i], r.Nodes[j]
		if a.StartLine != b.StartLine {
			return a.StartLine < b.StartLine
		}
		return a.ID < b.ID
	})
	sort.Slice(r.Edges, func(i, j int) bool { return EdgeLess(r.Edges[i], r.Edges[j]) })
	out := r.Edges[:0]
	for i, e := range r.Edges {
		if i > 0 && e == r.Edges[i-1] {
			continue
		}
		out = append(out, e)
	}
	r.Edges = out
}

func EdgeLess(a, b graphdb.Edge) bool {
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
type Frontend interface {
	// language is the FileRecord.Language the frontend owns.
	Language() string
	// index extracts what changed. full asks for everything.
	Index(ctx context.Context, job *Job, emit func(FileResult)) (Done, error)
}

// job is the input of one frontend run.
type Job struct {
	Lang    string                           // fileLang.name
	Root    string                           // the repository root (absolute)
	Read    func(rel string) ([]byte, error) // reads a file beneath the root (safe file reading)
	BadDirs []string                         // directories the scan could not read
	Files   map[string]*DiskFile             // this language's files on disk, by rel
	Stored  map[string]graphdb.FileRecord    // this language's records, by path (pseudo-owners included)
	Changed map[string]bool                  // added or modified files (rel)
	Deleted map[string]bool                  // stored files gone from disk
	Full    bool
	Workers int
	Budget  Budgets        // per-file limits (budget.go)
	Reader  graphdb.Reader // the store as it was before this run
	// rewrite receives, before any emit, the stored owners that the run
	// will rewrite, so that ids can move between them inside the
	// transaction.
	Rewrite  func(paths []string) error
	Progress func(Progress)
	Diag     func(Diagnostic)
	Note     func(Diagnostic) // a file not indexed (Summary.Notes)

	// configs are the language's configuration files (fileLang.config),
	// sorted; configHash fingerprints their contents (fileLang.configOwner).
	Configs    []string
	ConfigHash string
	// irregular lists the names the language would claim that are not
	// regular files or lead outside the repository (noted by the scan;
	// Go hides them from go list).
	Irregular []string
}

// done is what a frontend reports when it finishes.
type Done struct {
	Units  int          // units (packages, modules, files) re-extracted: Summary.Languages[...].Units
	Global []FileResult // owners computed across the repository, written last
	Remove []string     // owners to delete (vanished packages)
	Phases map[string]int64
}

// preparer is implemented by a frontend that reads its configuration
// files before the plan (Go reads go.mod and go.work).
type Preparer interface {
	// prepare reads j.configs; it fails the run on a configuration it
	// cannot use.
	Prepare(ctx context.Context, j *Job) (Prepared, error)
}

// prepared is what a preparer found.
type Prepared struct {
	Full       bool              // the configuration changed since the stored run: run in full
	Meta       map[string]string // Meta entries the commit writes
	SyntaxOnly int               // files indexed from syntax alone (Summary.Languages[...].SyntaxOnly)
}

// feEnv is what a frontend is made with.
type Env struct {
	Log         *slog.Logger
	ListTimeout time.Duration // Options.ListTimeout (Go)
	GoProxy     string        // Options.GoProxy (Go)
	CacheDir    string        // Options.CacheDir
}

// fileLang is one indexed language: what the scan hands it and how Run
// runs it. The languages are listed, in order, by languages (langs.go); a
// language that this build cannot index (tree-sitter without cgo) has
// newFrontend nil, and Run notes its files as not indexed.
type Lang struct {
	Name       string // FileRecord.Language
	Title      string // Summary.Languages key and how messages name it
	Files      string // its files, for messages (".ts, .tsx … files")
	Version    string // format version, kept in Meta versionKey
	VersionKey string // "index.<name>.version" ("index.py.version" for Python)
	Unit       string // what LanguageSummary.Units counts ("packages", "modules", "files")
	// source reports whether a file (repo-relative path, base name) is a
	// source file of the language; config whether it is a file the
	// language reads to resolve names (go.mod, tsconfig.json,
	// package.json). The first language whose source claims a file owns it.
	Source, Config func(rel, base string) bool
	// configOwner, when set, is the pseudo-owner whose FileRecord.Hash
	// fingerprints the configuration files (job.configHash); Run treats a
	// change as work.
	ConfigOwner string
	// configPresent: a configuration file alone makes the language
	// present (a go.mod without .go files is still a Go module).
	ConfigPresent bool
	// unfiltered: the language's own tool reads every file it claims (go
	// list), so .gitignore does not hide them, and a configuration file
	// that is not a regular file is claimed anyway (reading it fails with
	// advice).
	Unfiltered bool
	// Yields and YieldsTo hand files the language claims but shares with
	// another (C's .h headers, which C++ uses too) to the language named
	// YieldsTo when that language has source files of its own in the
	// repository; Yields reports which of its files are such.
	Yields   func(rel string) bool
	YieldsTo string
	// budgeted: the files are held to the per-file budgets (budget.go);
	// a change to the budgets runs the language in full.
	Budgeted    bool
	New         func(Env) Frontend // nil: unavailable in this build
	Unavailable string             // why, when newFrontend is nil
}

// parseEach parses rels on j.workers goroutines, each with its own parser
// state (open when the worker starts, shut when it ends), and reports
// progress as files finish; doneSoFar and total place these files within
// the run's progress. Files parse returns nil for (unreadable) are left out;
// the order of the others follows rels.
func ParseEach[S, F any](ctx context.Context, j *Job, rels []string, doneSoFar, total int, open func() S, shut func(S), parse func(S, string) *F) ([]*F, error) {
	out := make([]*F, len(rels))
	next := make(chan int)
	g, gctx := errgroup.WithContext(ctx)
	var mu sync.Mutex
	n := doneSoFar
	for range min(j.Workers, max(len(rels), 1)) {
		g.Go(func() error {
			st := open()
			defer shut(st)
			for i := range next {
				out[i] = ParseOne(j, st, rels[i], parse)
				mu.Lock()
				n++
				if n%64 == 0 || n == total {
					j.Progress(Progress{Phase: "files", Done: n, Total: total, Item: rels[i]})
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
func ParseOne[S, F any](j *Job, st S, rel string, parse func(S, string) *F) (f *F) {
	defer func() {
		if v := recover(); v != nil {
			j.Diag(Diagnostic{Pos: rel, Msg: fmt.Sprintf("not indexed: extracting the file failed (%v at %s); please report it", v, PanicSite())})
			f = nil
		}
	}()
	if TestHookExtract != nil {
		TestHookExtract(j.Lang, rel)
	}
	return parse(st, rel)
}

// testHookExtract, when set by a test, runs before each file (language
// name, path) or Go package (language "go", import path) is extracted.
var TestHookExtract func(lang, unit string)

// PanicSite names the function of relay's indexer that panicked, from the
// stack of a deferred recover: the first frame in package index or below
// it (a frontend) under the runtime's panic frames.
func PanicSite() string {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	for {
		fr, more := frames.Next()
		if (strings.Contains(fr.Function, "/index.") || strings.Contains(fr.Function, "/index/")) && !strings.Contains(fr.Function, "/internal/frontend.") {
			return fmt.Sprintf("%s:%d", path.Base(fr.File), fr.Line)
		}
		if !more {
			return "unknown"
		}
	}
}
