package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// FormatVersion is the index format this package writes. A store holding
// another version is re-indexed from scratch. go-2: calls in package-level
// variable initialisers (synthetic "#vars" callers).
const FormatVersion = "go-3"

// Meta keys written by Run.
const (
	MetaVersion = "index.go.version" // FormatVersion of the last run
	MetaConfig  = "index.go.config"  // hash of every go.mod and go.work: a change forces a full run
	// MetaPyVersion holds PyFormatVersion of the last run; a change forces
	// a full Python run (Go is untouched).
	MetaPyVersion = "index.py.version"
)

// PyFormatVersion is the format of the Python records (language "python");
// they are versioned apart from Go's.
const PyFormatVersion = "py-1"

// ErrNotGo is returned by Run for a root holding no Go module, workspace or
// file and no Python file: nothing it can index.
var ErrNotGo = errors.New("not a Go repository")

// Options configures Run.
type Options struct {
	Root     string         // repository root (required)
	Logger   *slog.Logger   // nil: discard
	Progress func(Progress) // optional; never called concurrently, always from one goroutine
	Full     bool           // ignore the stored hashes and re-index everything
	Workers  int            // parse/type-check parallelism; 0: GOMAXPROCS
	// ListTimeout bounds each `go list` run (0: DefaultListTimeout); one
	// that runs longer is stopped with its children and the run fails.
	ListTimeout time.Duration
}

// DefaultListTimeout is the default Options.ListTimeout: far above what
// listing a large repository with a cold module cache takes, so that only
// a go list that hangs (a blocking file it reads, a stuck download) meets
// it.
const DefaultListTimeout = 10 * time.Minute

// Progress reports how far a run got.
type Progress struct {
	// Phase is one of "scan" (files found), "list" (go list running),
	// "check" (Done of Total packages type-checked and extracted),
	// "files" (Done of Total files indexed from syntax alone),
	// "implements" and "commit".
	Phase string
	Done  int
	Total int
	Item  string // the package or file just finished
}

// Summary tells what a run did.
type Summary struct {
	Packages  int  // Go packages (re)loaded and extracted
	Modules   int  // Python modules (re)extracted
	Files     int  // Go and Python files in the index after the run
	Python    int  // of Files, Python files
	Changed   int  // files (re)written: added or modified, plus their package mates
	Deleted   int  // files removed from the index
	Unchanged bool // nothing changed on disk: no loading, no write
	Stats     graphdb.Stats
	Errors    []Diagnostic // list, parse and type errors; sorted
	// Notes lists the files and directories that were not indexed and
	// why, by repository-relative path: files that are not regular (FIFOs,
	// devices), symbolic links leading outside the repository, symbolic
	// link loops, paths too long to open, unreadable or vanished files;
	// sorted.
	Notes    []Diagnostic
	Duration time.Duration
	// Phases times the run: scan, list, parse+typecheck and extract (summed
	// over workers), loose, implements, write (time inside the store) and
	// commit.
	Phases map[string]time.Duration
}

// Diagnostic is one problem found while indexing. Indexing goes on.
type Diagnostic struct {
	Package string // import path, "" for files outside packages
	Pos     string // "path/file.go:line:col", "path/file.go" or ""
	Msg     string
}

func sortDiagnostics(ds []Diagnostic) {
	sort.Slice(ds, func(i, k int) bool {
		a, b := ds[i], ds[k]
		if a.Package != b.Package {
			return a.Package < b.Package
		}
		if a.Pos != b.Pos {
			return a.Pos < b.Pos
		}
		return a.Msg < b.Msg
	})
}

// uniqueNotes sorts notes and keeps one per path and reason (the scan and
// the Go frontend may both meet an unreadable file).
func uniqueNotes(ns []Diagnostic) []Diagnostic {
	sort.SliceStable(ns, func(i, k int) bool {
		if ns[i].Pos != ns[k].Pos {
			return ns[i].Pos < ns[k].Pos
		}
		return ns[i].Msg < ns[k].Msg
	})
	out := ns[:0]
	for i, n := range ns {
		if i > 0 && n.Pos == ns[i-1].Pos && n.Msg == ns[i-1].Msg {
			continue
		}
		out = append(out, n)
	}
	return out
}

func (d Diagnostic) String() string {
	s := d.Msg
	if d.Pos != "" {
		s = d.Pos + ": " + s
	}
	if d.Package != "" {
		s = d.Package + ": " + s
	}
	return s
}

// Run indexes the repository at opts.Root into st and returns what it did.
// It writes everything in one transaction: a run that fails or is
// cancelled leaves the previous graph untouched. A second run re-extracts
// only the packages whose files changed (by content hash); a run with no
// change loads nothing and writes nothing.
func Run(ctx context.Context, st graphdb.Store, opts Options) (Summary, error) {
	start := time.Now()
	root, err := checkRoot(opts.Root)
	if err != nil {
		return Summary{}, err
	}
	r := newRunner(st, opts, root, start)
	defer r.closeProgress()
	if err := r.scan(ctx); err != nil {
		return Summary{}, err
	}
	defer r.tree.rf.close()
	work, err := r.plan(ctx)
	if err != nil {
		return Summary{}, err
	}
	if !work {
		return r.unchanged(ctx)
	}
	tx, err := st.Begin(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("begin index transaction: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback()
		}
	}()
	results, err := r.write(ctx, tx)
	if err != nil {
		return Summary{}, err
	}
	if err := r.commit(ctx, tx); err != nil {
		return Summary{}, err
	}
	committed = true
	return r.summarize(ctx, results)
}

// runner is the state of one Run, step by step: scan the tree, plan the
// work per frontend against the stored records, write it through one
// transaction, commit, and summarize.
type runner struct {
	st      graphdb.Store
	opts    Options
	root    string
	log     *slog.Logger
	workers int
	start   time.Time

	mu  sync.Mutex // guards sum.Errors and sum.Notes, appended by the frontends' workers
	sum Summary

	// Progress goes through one goroutine.
	progCh     chan Progress
	progDone   chan struct{}
	progClosed bool

	tree    *tree
	records []graphdb.FileRecord
	full    bool // Go: every package re-extracted
	pyFull  bool // Python: every module re-extracted
	goJob   *job
	pyJob   *job
	steps   []step
	gone    []string // stored owners to delete first

	writeDur time.Duration
	written  []string
}

// step is one frontend and its job in a run.
type step struct {
	fe frontend
	j  *job
}

func newRunner(st graphdb.Store, opts Options, root string, start time.Time) *runner {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	r := &runner{st: st, opts: opts, root: root, log: log, workers: defaultWorkers(opts.Workers), start: start,
		sum:    Summary{Phases: map[string]time.Duration{}},
		progCh: make(chan Progress, 64), progDone: make(chan struct{})}
	go func() {
		defer close(r.progDone)
		for p := range r.progCh {
			if opts.Progress != nil {
				opts.Progress(p)
			}
		}
	}()
	return r
}

func (r *runner) progress(p Progress) { r.progCh <- p }

func (r *runner) closeProgress() {
	if !r.progClosed {
		r.progClosed = true
		close(r.progCh)
		<-r.progDone
	}
}

func (r *runner) diag(d Diagnostic) {
	r.mu.Lock()
	r.sum.Errors = append(r.sum.Errors, d)
	r.mu.Unlock()
}

func (r *runner) note(d Diagnostic) {
	r.mu.Lock()
	r.sum.Notes = append(r.sum.Notes, d)
	r.mu.Unlock()
}

// scan walks the tree and records the files it could not read.
func (r *runner) scan(ctx context.Context) error {
	t0 := time.Now()
	tree, err := scan(ctx, r.root, r.workers)
	if err != nil {
		return err
	}
	r.tree = tree
	for _, n := range tree.notes {
		r.note(n)
	}
	r.sum.Phases["scan"] = time.Since(t0)
	r.progress(Progress{Phase: "scan", Done: len(tree.files), Total: len(tree.files)})
	return nil
}

// plan compares the tree with the stored records and versions, builds each
// frontend's job and the owners to delete, and reports whether there is
// anything to write.
func (r *runner) plan(ctx context.Context) (bool, error) {
	var err error
	if r.records, err = r.st.Files(ctx); err != nil {
		return false, fmt.Errorf("read stored files: %w", err)
	}
	version, err := r.st.Meta(ctx, MetaVersion)
	if err != nil {
		return false, fmt.Errorf("read index version: %w", err)
	}
	config, err := r.st.Meta(ctx, MetaConfig)
	if err != nil {
		return false, fmt.Errorf("read index config: %w", err)
	}
	r.full = r.opts.Full || version != FormatVersion || config != r.tree.config
	if !r.opts.Full && r.full && version != "" {
		r.log.Info("full re-index", "stored_version", version, "version", FormatVersion, "config_changed", config != r.tree.config)
	}
	pyVersion, err := r.st.Meta(ctx, MetaPyVersion)
	if err != nil {
		return false, fmt.Errorf("read index version: %w", err)
	}
	r.pyFull = r.opts.Full || pyVersion != PyFormatVersion
	listTimeout := r.opts.ListTimeout
	if listTimeout <= 0 {
		listTimeout = DefaultListTimeout
	}
	goFE := &goFrontend{log: r.log, listTimeout: listTimeout}
	pyFE := &pyFrontend{log: r.log}
	r.goJob = r.newJob(goFE, r.tree.files, r.full)
	r.pyJob = r.newJob(pyFE, r.tree.py, r.pyFull)
	if r.tree.hasGo() {
		r.steps = append(r.steps, step{goFE, r.goJob})
		for p := range r.goJob.deleted {
			r.gone = append(r.gone, p)
		}
	} else {
		// No Go left: drop every Go owner, pseudo-owners included.
		for p := range r.goJob.stored {
			r.gone = append(r.gone, p)
		}
	}
	if len(r.tree.py) > 0 {
		r.steps = append(r.steps, step{pyFE, r.pyJob})
		for p := range r.pyJob.deleted {
			r.gone = append(r.gone, p)
		}
	} else {
		for p := range r.pyJob.stored {
			r.gone = append(r.gone, p)
		}
	}
	sort.Strings(r.gone)
	work := len(r.gone) > 0 || r.full && r.tree.hasGo() || r.pyFull && len(r.tree.py) > 0
	for _, s := range r.steps {
		work = work || len(s.j.changed) > 0
	}
	r.sum.Files = len(r.tree.files) + len(r.tree.py)
	if work {
		r.log.Debug("index plan", "full", r.full, "go_changed", len(r.goJob.changed), "py_changed", len(r.pyJob.changed), "deleted", len(r.gone))
	}
	return work, nil
}

// newJob prepares fe's job: its stored records, and which of its files
// changed (or all, when full) or were deleted. Unreadable files become
// notes and are left out.
func (r *runner) newJob(fe frontend, files map[string]*diskFile, full bool) *job {
	j := &job{
		tree: r.tree, files: files, stored: map[string]graphdb.FileRecord{}, changed: map[string]bool{}, deleted: map[string]bool{},
		full: full, workers: r.workers, reader: r.st, progress: r.progress, diag: r.diag, note: r.note,
	}
	for _, rec := range r.records {
		if rec.Language == fe.language() {
			j.stored[rec.Path] = rec
		}
	}
	for rel, df := range files {
		if df.err != nil {
			r.note(Diagnostic{Pos: shortRel(rel), Msg: reason(df.err)})
			delete(files, rel)
			continue
		}
		if rec, ok := j.stored[rel]; !ok || rec.Hash != df.hash || full {
			j.changed[rel] = true
		}
	}
	for p, rec := range j.stored {
		if !rec.IsPseudo() && files[p] == nil {
			j.deleted[p] = true
		}
	}
	return j
}

// unchanged is the summary of a run with nothing to write.
func (r *runner) unchanged(ctx context.Context) (Summary, error) {
	sum := r.sum
	sum.Unchanged = true
	sum.Notes = uniqueNotes(sum.Notes)
	var err error
	if sum.Stats, err = r.st.Stats(ctx); err != nil {
		return Summary{}, fmt.Errorf("read stats: %w", err)
	}
	sum.Duration = time.Since(r.start)
	r.log.Debug("index unchanged", "files", sum.Files, "dur", sum.Duration)
	return sum, nil
}

// write deletes the owners that are gone and runs every frontend, whose
// results stream to one writer goroutine that owns tx (txWriter).
func (r *runner) write(ctx context.Context, tx graphdb.Tx) ([]done, error) {
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := &txWriter{tx: tx, ctx: wctx, cancel: cancel, ops: make(chan writeOp, 64), done: make(chan struct{})}
	go w.loop()
	w.delete(r.gone)
	var ferr error
	var results []done
	for _, s := range r.steps {
		s.j.rewrite = w.rewrite
		res, err := s.fe.index(wctx, s.j, w.emit)
		for _, g := range res.global {
			w.emit(g)
		}
		if len(res.remove) > 0 {
			w.delete(res.remove)
		}
		results = append(results, res)
		if err != nil {
			ferr = fmt.Errorf("index %s: %w", s.fe.language(), err)
			break
		}
	}
	close(w.ops)
	<-w.done
	r.writeDur, r.written = w.dur, w.written
	if w.err != nil {
		return nil, w.err
	}
	if ferr != nil {
		return nil, ferr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return results, nil
}

// commit records the format versions and the config hash, then commits.
func (r *runner) commit(ctx context.Context, tx graphdb.Tx) error {
	if err := tx.SetMeta(ctx, MetaVersion, FormatVersion); err != nil {
		return fmt.Errorf("write index version: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaConfig, r.tree.config); err != nil {
		return fmt.Errorf("write index config: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaPyVersion, PyFormatVersion); err != nil {
		return fmt.Errorf("write index version: %w", err)
	}
	r.progress(Progress{Phase: "commit"})
	tc := time.Now()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit index: %w", err)
	}
	r.sum.Phases["commit"] = time.Since(tc)
	return nil
}

// summarize fills the summary of a committed run.
func (r *runner) summarize(ctx context.Context, results []done) (Summary, error) {
	sum := &r.sum
	sum.Phases["write"] = r.writeDur
	for i, res := range results {
		for k, v := range res.phases {
			sum.Phases[k] += time.Duration(v)
		}
		if r.steps[i].fe.language() == "python" {
			sum.Modules = res.packages
		} else {
			sum.Packages = res.packages
		}
	}
	for _, p := range r.written {
		if r.tree.files[p] != nil || r.tree.py[p] != nil {
			sum.Changed++
		}
	}
	sum.Deleted = len(r.goJob.deleted) + len(r.pyJob.deleted)
	sum.Python = len(r.tree.py)
	var err error
	if sum.Stats, err = r.st.Stats(ctx); err != nil {
		return Summary{}, fmt.Errorf("read stats: %w", err)
	}
	sortDiagnostics(sum.Errors)
	sum.Notes = uniqueNotes(sum.Notes)
	sum.Duration = time.Since(r.start)
	r.closeProgress()
	r.log.Info("indexed", "packages", sum.Packages, "files", sum.Files, "changed", sum.Changed, "deleted", sum.Deleted,
		"errors", len(sum.Errors), "dur", sum.Duration)
	return *sum, nil
}

// writeOp is one write: a file's result, or a batch of deletions.
type writeOp struct {
	res     fileResult
	del     bool     // a deletion batch instead of res
	deletes []string // for del
}

// txWriter is the one goroutine that owns the transaction: every write,
// deletions included, goes through it in order. The first failure cancels
// ctx, which stops the frontends; later ops are dropped.
type txWriter struct {
	tx     graphdb.Tx
	ctx    context.Context
	cancel context.CancelFunc
	ops    chan writeOp
	done   chan struct{}

	// Owned by loop; read after done is closed.
	err     error
	dur     time.Duration
	written []string
}

func (w *txWriter) loop() {
	defer close(w.done)
	for op := range w.ops {
		if w.err != nil {
			continue
		}
		t := time.Now()
		if op.del {
			for _, p := range op.deletes {
				if err := w.tx.DeleteFile(w.ctx, p); err != nil {
					w.err = fmt.Errorf("delete %s: %w", p, err)
					w.cancel()
					break
				}
			}
		} else {
			fr := op.res
			if err := w.tx.ReplaceFile(w.ctx, fr.rec, fr.nodes, fr.edges); err != nil {
				w.err = fmt.Errorf("write %s: %w", fr.rec.Path, err)
				w.cancel()
			}
			w.written = append(w.written, fr.rec.Path)
		}
		w.dur += time.Since(t)
	}
}

func (w *txWriter) send(op writeOp) {
	select {
	case w.ops <- op:
	case <-w.ctx.Done():
	}
}

func (w *txWriter) emit(fr fileResult) { w.send(writeOp{res: fr}) }

func (w *txWriter) delete(paths []string) { w.send(writeOp{del: true, deletes: paths}) }

// rewrite deletes owners the run will rewrite, before any emit (see
// job.rewrite).
func (w *txWriter) rewrite(paths []string) error {
	if len(paths) > 0 {
		w.delete(paths)
	}
	return w.ctx.Err()
}
