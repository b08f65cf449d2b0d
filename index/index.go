package index

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"runtime/debug"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
)

// ErrNoSource is returned by Run for a root holding no source of any
// indexed language (no Go module, workspace or file, no Python,
// TypeScript/JavaScript or Java file): nothing it can index. The error
// names the languages and their files.
var ErrNoSource = errors.New("no source file of a language relay indexes")

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
	// GoProxy is the GOPROXY the go command may use to download modules;
	// "" (or "off"): none, modules resolve from the module cache alone.
	// The go command never switches toolchain or fetches from version
	// control either way (see "The go command's environment" in package
	// index/golang's doc).
	GoProxy string
	// CacheDir is a directory where the frontends keep what makes later
	// runs faster (Go: the type information of the packages it checked, so
	// that an edit does not check its dependencies again); "" keeps
	// nothing between runs. What is kept there never changes the graph.
	CacheDir string
	// Written, when set, receives each owner the run writes with its
	// nodes (and each owner it deletes, with none), once the transaction
	// accepted it, from one goroutine, in write order; the nodes are the
	// callee's to keep. Nothing is visible
	// in the store before Run returns: a run that fails wrote nothing.
	// (relay index hands them to the search index of a new store, which
	// then need not read them back.)
	Written func(owner graphdb.FileRecord, nodes []graphdb.Node)

	// Budgets per Python, TypeScript/JavaScript and Java file (see
	// budget.go): 0 takes the default, a negative value turns the limit
	// off.
	//
	// MaxFileBytes: a larger file, or one that looks minified or bundled
	// (64 KiB or more, under one line break per 1,000 bytes), is not
	// parsed; it is listed in Summary.Notes and only its file node is
	// written (DefaultMaxFileBytes). A negative value parses every file,
	// minified ones too.
	MaxFileBytes int64
	// MaxDepth: a file whose syntax tree nests deeper than this is not
	// extracted; the file's error in Summary.Errors says so
	// (DefaultMaxDepth). Java files are held to the Java frontend's own
	// nesting limits instead, which keep what lies above them.
	MaxDepth int
	// ParseTimeout bounds each file's tree-sitter parse; a parse past it
	// stops, and the file's error says so (DefaultParseTimeout). A
	// cancelled context stops a parse in progress either way.
	ParseTimeout time.Duration
}

// DefaultListTimeout is the default Options.ListTimeout: far above what
// listing a large repository with a cold module cache takes, so that only
// a go list that hangs (a blocking file it reads, a stuck download) meets
// it.
const DefaultListTimeout = 10 * time.Minute

// Progress reports how far a run got (internal/frontend).
type Progress = frontend.Progress

// Diagnostic is one problem found while indexing; indexing goes on
// (internal/frontend).
type Diagnostic = frontend.Diagnostic

// Summary tells what a run did (internal/frontend, so that the
// languages' tests share one rendering of it).
type Summary = frontend.Summary

// LanguageSummary is one language's part of a run.
type LanguageSummary = frontend.LanguageSummary

// sortDiagnostics sorts ds and drops repeats (a file two passes of a
// frontend both failed on).
func sortDiagnostics(ds []Diagnostic) []Diagnostic {
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
	return slices.Compact(ds)
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

// Run indexes the repository at opts.Root into st and returns what it did.
// It writes everything in one transaction: a run that fails or is
// cancelled leaves the previous graph untouched. A second run re-extracts
// only the packages whose files changed (by content hash); a run with no
// change loads nothing and writes nothing but, at times, the stamps table
// that spares the next run reading files whose stat did not change
// (stamps.go).
//
// Its steps (methods of runner): scan the tree, plan what each frontend
// re-extracts and which owners go, write through one transaction, commit
// with the format versions, and summarize.
func Run(ctx context.Context, st graphdb.Store, opts Options) (Summary, error) {
	r, err := newRunner(st, opts)
	if err != nil {
		return Summary{}, err
	}
	defer r.prog.close()
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
	if err := r.write(ctx, tx); err != nil {
		return Summary{}, err
	}
	if err := r.commit(ctx, tx); err != nil {
		return Summary{}, err
	}
	committed = true
	return r.summarize(ctx)
}

// runner carries one Run through its steps.
type runner struct {
	st      graphdb.Store
	opts    Options
	log     *slog.Logger
	root    string
	workers int
	start   time.Time
	prog    *progressPump

	mu  sync.Mutex // guards sum.Errors and sum.Notes, added from many goroutines
	sum Summary

	tree  *tree
	langs []langRun  // by fileLangs
	steps []*langRun // the languages that run, in order
	gone  []string   // owners deleted before anything is written, sorted

	results  []frontend.Done // by steps
	written  []string        // owners written
	writeDur time.Duration
}

func newRunner(st graphdb.Store, opts Options) (*runner, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	root, err := checkRoot(opts.Root)
	if err != nil {
		return nil, err
	}
	return &runner{
		st: st, opts: opts, log: log, root: root, workers: defaultWorkers(opts.Workers), start: time.Now(),
		prog: startProgress(opts.Progress), sum: Summary{Phases: map[string]time.Duration{}},
	}, nil
}

// diag records a list, parse or type error (Summary.Errors).
func (r *runner) diag(d Diagnostic) {
	r.mu.Lock()
	r.sum.Errors = append(r.sum.Errors, d)
	r.mu.Unlock()
}

// note records a file not indexed (Summary.Notes).
func (r *runner) note(d Diagnostic) {
	r.mu.Lock()
	r.sum.Notes = append(r.sum.Notes, d)
	r.mu.Unlock()
}

// scan walks the repository, trusting the stamps of the last run
// (MetaStamps) unless Options.Full.
func (r *runner) scan(ctx context.Context) error {
	t0 := time.Now()
	var prev *stamps
	if !r.opts.Full {
		text, err := r.st.Meta(ctx, MetaStamps)
		if err != nil {
			return fmt.Errorf("read index stamps: %w", err)
		}
		if prev, err = decodeStamps(text); err != nil {
			r.log.Warn("index stamps unusable; hashing every file", "err", err)
		}
	}
	tree, err := scan(ctx, r.root, r.workers, prev)
	if err != nil {
		return err
	}
	r.log.Debug("index scan", "hashed", tree.hashed, "settled", tree.settled)
	r.tree = tree
	for _, n := range tree.notes {
		r.note(n)
	}
	r.sum.Phases["scan"] = time.Since(t0)
	n := 0
	for _, fs := range tree.langs {
		n += len(fs)
	}
	r.prog.send(Progress{Phase: "scan", Done: n, Total: n})
	return nil
}

// unchanged is the summary of a run with nothing to do. Its one write is
// the stamps table, when enough files the last table could not vouch for
// would now be trusted (worthWriting); failing to write it costs the next
// run only some hashing, so it is logged, not returned.
func (r *runner) unchanged(ctx context.Context) (Summary, error) {
	if worthWriting(r.tree.settled, len(r.tree.stamps.files)) {
		if err := r.writeStamps(ctx); err != nil {
			r.log.Info("index stamps not written", "err", err)
		}
	}
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

// write runs the frontends in order, streaming their owners into tx
// through one writer goroutine; the owners in r.gone are deleted first.
func (r *runner) write(ctx context.Context, tx graphdb.Tx) error {
	w := startWriter(ctx, tx, r.opts.Written)
	rewrite := func(paths []string) error {
		if len(paths) > 0 {
			w.send(writeOp{del: true, deletes: paths})
		}
		return w.ctx.Err()
	}
	w.send(writeOp{del: true, deletes: r.gone})
	var ferr error
	for _, s := range r.steps {
		s.j.Rewrite = rewrite
		res, err := r.index(w.ctx, s, w.emit)
		for _, g := range res.Global {
			w.emit(g)
		}
		if len(res.Remove) > 0 {
			w.send(writeOp{del: true, deletes: res.Remove})
		}
		r.results = append(r.results, res)
		if err != nil {
			ferr = fmt.Errorf("index %s: %w", s.fe.Language(), err)
			break
		}
	}
	if err := w.finish(); err != nil {
		return err
	}
	r.written, r.writeDur = w.written, w.dur
	if ferr != nil {
		return ferr
	}
	return ctx.Err()
}

// index runs one language's frontend. A panic on the frontend's own
// goroutine outside any one file or package (those are recovered where
// they are extracted: ParseOne, index/golang's checkOne) is the language's error,
// not the run's end: what the frontend wrote stays, and the language's
// format version is not recorded, so that the next run indexes it in full.
func (r *runner) index(ctx context.Context, lr *langRun, emit func(frontend.FileResult)) (res frontend.Done, err error) {
	defer func() {
		if v := recover(); v != nil {
			r.log.Error("frontend panicked", "language", lr.l.Name, "panic", v, "stack", string(debug.Stack()))
			r.diag(Diagnostic{Msg: fmt.Sprintf("%s not fully indexed: the frontend failed (%v at %s); please report it; the next run indexes %s again", lr.l.Title, v, frontend.PanicSite(), lr.l.Title)})
			lr.failed = true
			res, err = frontend.Done{}, nil
		}
	}()
	return lr.fe.Index(ctx, lr.j, emit)
}

// writeStamps writes the stamps table of this run's scan in a
// transaction of its own.
func (r *runner) writeStamps(ctx context.Context) error {
	tx, err := r.st.Begin(ctx)
	if err != nil {
		return fmt.Errorf("begin stamps transaction: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaStamps, r.tree.stamps.encode()); err != nil {
		return errors.Join(fmt.Errorf("write index stamps: %w", err), tx.Rollback())
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit index stamps: %w", err)
	}
	return nil
}

// commit records the format versions, the languages' Meta entries, the
// budgets and the stamps table, and commits tx.
func (r *runner) commit(ctx context.Context, tx graphdb.Tx) error {
	if err := tx.SetMeta(ctx, MetaBudgets, budgetsOf(r.opts).Fingerprint()); err != nil {
		return fmt.Errorf("write index budgets: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaStamps, r.tree.stamps.encode()); err != nil {
		return fmt.Errorf("write index stamps: %w", err)
	}
	for _, lr := range r.langs {
		if lr.fe == nil {
			continue
		}
		version := lr.l.Version
		if lr.failed {
			version = "" // a full run next time
		}
		if err := tx.SetMeta(ctx, lr.l.VersionKey, version); err != nil {
			return fmt.Errorf("write index version: %w", err)
		}
		for _, k := range slices.Sorted(maps.Keys(lr.meta)) {
			if err := tx.SetMeta(ctx, k, lr.meta[k]); err != nil {
				return fmt.Errorf("write index %s: %w", k, err)
			}
		}
	}
	r.prog.send(Progress{Phase: "commit"})
	tc := time.Now()
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit index: %w", err)
	}
	r.sum.Phases["commit"] = time.Since(tc)
	r.sum.Phases["write"] = r.writeDur
	return nil
}

// summarize completes the Summary of a run that committed.
func (r *runner) summarize(ctx context.Context) (Summary, error) {
	sum, tree := r.sum, r.tree
	for i, res := range r.results {
		for k, v := range res.Phases {
			sum.Phases[k] += time.Duration(v)
		}
		title := r.steps[i].l.Title
		ls := sum.Languages[title]
		ls.Units = res.Units
		sum.Languages[title] = ls
	}
	for _, p := range r.written {
		if inLangs(tree, p) {
			sum.Changed++
		}
	}
	for _, lr := range r.langs {
		if lr.j != nil {
			sum.Deleted += len(lr.j.Deleted)
		}
	}
	var err error
	if sum.Stats, err = r.st.Stats(ctx); err != nil {
		return Summary{}, fmt.Errorf("read stats: %w", err)
	}
	sum.Errors = sortDiagnostics(sum.Errors)
	sum.Notes = uniqueNotes(sum.Notes)
	sum.Duration = time.Since(r.start)
	r.prog.close()
	r.log.Info("indexed", "files", sum.Files, "changed", sum.Changed, "deleted", sum.Deleted,
		"errors", len(sum.Errors), "dur", sum.Duration)
	return sum, nil
}

// progressPump hands progress to Options.Progress from one goroutine.
type progressPump struct {
	ch     chan Progress
	done   chan struct{}
	closed bool
}

func startProgress(fn func(Progress)) *progressPump {
	p := &progressPump{ch: make(chan Progress, 64), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for ev := range p.ch {
			if fn != nil {
				fn(ev)
			}
		}
	}()
	return p
}

func (p *progressPump) send(ev Progress) { p.ch <- ev }

// close waits until every event sent was handed over; only Run's
// goroutine calls it, after the frontends are done.
func (p *progressPump) close() {
	if !p.closed {
		p.closed = true
		close(p.ch)
		<-p.done
	}
}

// writeOp is one write of the run: an owner, or a batch of deletions.
type writeOp struct {
	res     frontend.FileResult
	del     bool     // a deletion batch instead of res
	deletes []string // for del
}

// txWriter is the one goroutine that owns the transaction: every write,
// deletions included, goes through it in order. Its first error cancels
// ctx, which stops the frontends.
type txWriter struct {
	tx      graphdb.Tx
	ctx     context.Context
	cancel  context.CancelFunc
	ops     chan writeOp
	done    chan struct{}
	err     error
	dur     time.Duration                            // inside the store
	written []string                                 // owners written
	onWrite func(graphdb.FileRecord, []graphdb.Node) // Options.Written
}

func startWriter(ctx context.Context, tx graphdb.Tx, onWrite func(graphdb.FileRecord, []graphdb.Node)) *txWriter {
	w := &txWriter{tx: tx, ops: make(chan writeOp, 64), done: make(chan struct{}), onWrite: onWrite}
	w.ctx, w.cancel = context.WithCancel(ctx)
	go w.loop()
	return w
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
				if w.onWrite != nil {
					w.onWrite(graphdb.FileRecord{Path: p}, nil)
				}
			}
		} else {
			fr := op.res
			if err := w.tx.ReplaceFile(w.ctx, fr.Rec, fr.Nodes, fr.Edges); err != nil {
				w.err = fmt.Errorf("write %s: %w", fr.Rec.Path, err)
				w.cancel()
			} else if w.onWrite != nil {
				w.onWrite(fr.Rec, fr.Nodes)
			}
			w.written = append(w.written, fr.Rec.Path)
		}
		w.dur += time.Since(t)
	}
}

// send queues op, unless the run was cancelled or a write failed.
func (w *txWriter) send(op writeOp) {
	select {
	case w.ops <- op:
	case <-w.ctx.Done():
	}
}

// emit queues one owner; frontends call it from many goroutines.
func (w *txWriter) emit(fr frontend.FileResult) { w.send(writeOp{res: fr}) }

// finish waits for the queued writes and returns the first error.
func (w *txWriter) finish() error {
	close(w.ops)
	<-w.done
	w.cancel()
	return w.err
}
