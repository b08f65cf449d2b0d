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
// variable initialisers (synthetic "#vars" callers). go-4: references
// edges, implements edges of generic types and between interfaces,
// testdata packages that type-check indexed as packages.
const FormatVersion = "go-4"

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
const PyFormatVersion = "py-3"

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

	// Languages counts, for each language of fileLangs present in the
	// repository (by title, such as "TypeScript/JavaScript"), its files on
	// disk (also counted in Files); Units the files (re)extracted in this
	// run.
	Languages map[string]int
	Units     map[string]int
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
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	root, err := checkRoot(opts.Root)
	if err != nil {
		return Summary{}, err
	}
	workers := defaultWorkers(opts.Workers)
	sum := Summary{Phases: map[string]time.Duration{}}
	var diagMu sync.Mutex
	diag := func(d Diagnostic) {
		diagMu.Lock()
		sum.Errors = append(sum.Errors, d)
		diagMu.Unlock()
	}

	// Progress goes through one goroutine.
	progCh := make(chan Progress, 64)
	progDone := make(chan struct{})
	go func() {
		defer close(progDone)
		for p := range progCh {
			if opts.Progress != nil {
				opts.Progress(p)
			}
		}
	}()
	progClosed := false
	closeProgress := func() {
		if !progClosed {
			progClosed = true
			close(progCh)
			<-progDone
		}
	}
	defer closeProgress()
	progress := func(p Progress) { progCh <- p }

	t0 := time.Now()
	tree, err := scan(ctx, root, workers)
	if err != nil {
		return Summary{}, err
	}
	defer tree.rf.close()
	note := func(d Diagnostic) {
		diagMu.Lock()
		sum.Notes = append(sum.Notes, d)
		diagMu.Unlock()
	}
	for _, n := range tree.notes {
		note(n)
	}
	sum.Phases["scan"] = time.Since(t0)
	progress(Progress{Phase: "scan", Done: len(tree.files), Total: len(tree.files)})

	records, err := st.Files(ctx)
	if err != nil {
		return Summary{}, fmt.Errorf("read stored files: %w", err)
	}
	version, err := st.Meta(ctx, MetaVersion)
	if err != nil {
		return Summary{}, fmt.Errorf("read index version: %w", err)
	}
	config, err := st.Meta(ctx, MetaConfig)
	if err != nil {
		return Summary{}, fmt.Errorf("read index config: %w", err)
	}
	full := opts.Full || version != FormatVersion || config != tree.config
	if !opts.Full && full && version != "" {
		log.Info("full re-index", "stored_version", version, "version", FormatVersion, "config_changed", config != tree.config)
	}

	pyVersion, err := st.Meta(ctx, MetaPyVersion)
	if err != nil {
		return Summary{}, fmt.Errorf("read index version: %w", err)
	}
	pyFull := opts.Full || pyVersion != PyFormatVersion
	listTimeout := opts.ListTimeout
	if listTimeout <= 0 {
		listTimeout = DefaultListTimeout
	}
	goFE := &goFrontend{log: log, listTimeout: listTimeout}
	pyFE := &pyFrontend{log: log}
	newJob := func(fe frontend, files map[string]*diskFile, full bool) *job {
		j := &job{
			tree: tree, files: files, stored: map[string]graphdb.FileRecord{}, changed: map[string]bool{}, deleted: map[string]bool{},
			full: full, workers: workers, reader: st, progress: progress, diag: diag, note: note,
		}
		for _, rec := range records {
			if rec.Language == fe.language() {
				j.stored[rec.Path] = rec
			}
		}
		for rel, df := range files {
			if df.err != nil {
				note(Diagnostic{Pos: shortRel(rel), Msg: reason(df.err)})
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
	goJob := newJob(goFE, tree.files, full)
	pyJob := newJob(pyFE, tree.py, pyFull)
	var gone []string
	type step struct {
		fe frontend
		j  *job
	}
	var steps []step
	langs, err := planLangs(ctx, st, tree, opts.Full, log, note)
	if err != nil {
		return Summary{}, err
	}
	sum.Languages = map[string]int{}
	sum.Units = map[string]int{}
	if tree.hasGo() {
		steps = append(steps, step{goFE, goJob})
		for p := range goJob.deleted {
			gone = append(gone, p)
		}
	} else {
		// No Go left: drop every Go owner, pseudo-owners included.
		for p := range goJob.stored {
			gone = append(gone, p)
		}
	}
	if len(tree.py) > 0 {
		steps = append(steps, step{pyFE, pyJob})
		for p := range pyJob.deleted {
			gone = append(gone, p)
		}
	} else {
		for p := range pyJob.stored {
			gone = append(gone, p)
		}
	}
	for i := range langs {
		lr := &langs[i]
		if lr.fe == nil {
			continue // unavailable in this build: the stored records stay
		}
		lr.j = newJob(lr.fe, tree.langs[lr.idx], lr.full)
		if len(tree.langs[lr.idx]) == 0 {
			for p := range lr.j.stored {
				gone = append(gone, p)
			}
			continue
		}
		lr.j.configs = tree.langConfigs[lr.idx]
		lr.j.configHash = configHash(tree, lr.idx)
		steps = append(steps, step{lr.fe, lr.j})
		for p := range lr.j.deleted {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	work := len(gone) > 0 || full && tree.hasGo() || pyFull && len(tree.py) > 0
	for _, lr := range langs {
		if lr.fe == nil {
			continue // noted by planLangs
		}
		sum.Files += len(tree.langs[lr.idx])
		if len(tree.langs[lr.idx]) > 0 {
			sum.Languages[lr.l.title] = len(tree.langs[lr.idx])
			work = work || lr.full || lr.j.stored[lr.l.configOwner].Hash != lr.j.configHash
		}
	}
	for _, s := range steps {
		work = work || len(s.j.changed) > 0
	}
	sum.Files += len(tree.files) + len(tree.py)
	if !work {
		sum.Unchanged = true
		sum.Notes = uniqueNotes(sum.Notes)
		if sum.Stats, err = st.Stats(ctx); err != nil {
			return Summary{}, fmt.Errorf("read stats: %w", err)
		}
		sum.Duration = time.Since(start)
		log.Debug("index unchanged", "files", sum.Files, "dur", sum.Duration)
		return sum, nil
	}
	log.Debug("index plan", "full", full, "go_changed", len(goJob.changed), "py_changed", len(pyJob.changed), "deleted", len(gone))

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

	// One writer goroutine owns the transaction: every write, deletions
	// included, goes through it in order.
	var writeDur time.Duration
	var written []string
	var writeErr error
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type writeOp struct {
		res     fileResult
		del     bool     // a deletion batch instead of res
		deletes []string // for del
	}
	ops := make(chan writeOp, 64)
	wdone := make(chan struct{})
	go func() {
		defer close(wdone)
		for op := range ops {
			if writeErr != nil {
				continue
			}
			t := time.Now()
			if op.del {
				for _, p := range op.deletes {
					if err := tx.DeleteFile(wctx, p); err != nil {
						writeErr = fmt.Errorf("delete %s: %w", p, err)
						cancel()
						break
					}
				}
			} else {
				fr := op.res
				if err := tx.ReplaceFile(wctx, fr.rec, fr.nodes, fr.edges); err != nil {
					writeErr = fmt.Errorf("write %s: %w", fr.rec.Path, err)
					cancel()
				}
				written = append(written, fr.rec.Path)
			}
			writeDur += time.Since(t)
		}
	}()
	send := func(op writeOp) {
		select {
		case ops <- op:
		case <-wctx.Done():
		}
	}
	emit := func(fr fileResult) { send(writeOp{res: fr}) }
	rewrite := func(paths []string) error {
		if len(paths) > 0 {
			send(writeOp{del: true, deletes: paths})
		}
		return wctx.Err()
	}
	send(writeOp{del: true, deletes: gone})

	var ferr error
	var results []done
	for _, s := range steps {
		s.j.rewrite = rewrite
		res, err := s.fe.index(wctx, s.j, emit)
		for _, g := range res.global {
			emit(g)
		}
		if len(res.remove) > 0 {
			send(writeOp{del: true, deletes: res.remove})
		}
		results = append(results, res)
		if err != nil {
			ferr = fmt.Errorf("index %s: %w", s.fe.language(), err)
			break
		}
	}
	close(ops)
	<-wdone
	if writeErr != nil {
		return Summary{}, writeErr
	}
	if ferr != nil {
		return Summary{}, ferr
	}
	if err := ctx.Err(); err != nil {
		return Summary{}, err
	}
	if err := tx.SetMeta(ctx, MetaVersion, FormatVersion); err != nil {
		return Summary{}, fmt.Errorf("write index version: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaConfig, tree.config); err != nil {
		return Summary{}, fmt.Errorf("write index config: %w", err)
	}
	if err := tx.SetMeta(ctx, MetaPyVersion, PyFormatVersion); err != nil {
		return Summary{}, fmt.Errorf("write index version: %w", err)
	}
	for _, lr := range langs {
		if lr.fe == nil {
			continue
		}
		if err := tx.SetMeta(ctx, langMetaKey(lr.l), lr.l.version); err != nil {
			return Summary{}, fmt.Errorf("write index version: %w", err)
		}
	}
	progress(Progress{Phase: "commit"})
	tc := time.Now()
	if err := tx.Commit(); err != nil {
		return Summary{}, fmt.Errorf("commit index: %w", err)
	}
	committed = true
	sum.Phases["commit"] = time.Since(tc)
	sum.Phases["write"] = writeDur
	for i, res := range results {
		for k, v := range res.phases {
			sum.Phases[k] += time.Duration(v)
		}
		switch lang := steps[i].fe.language(); {
		case lang == "python":
			sum.Modules = res.packages
		case lang == "go":
			sum.Packages = res.packages
		default:
			for _, lr := range langs {
				if lr.l.name == lang {
					sum.Units[lr.l.title] = res.packages
				}
			}
		}
	}
	for _, p := range written {
		if tree.files[p] != nil || tree.py[p] != nil || inLangs(tree, p) {
			sum.Changed++
		}
	}
	sum.Deleted = len(goJob.deleted) + len(pyJob.deleted)
	for _, lr := range langs {
		if lr.j != nil {
			sum.Deleted += len(lr.j.deleted)
		}
	}
	sum.Python = len(tree.py)
	if sum.Stats, err = st.Stats(ctx); err != nil {
		return Summary{}, fmt.Errorf("read stats: %w", err)
	}
	sortDiagnostics(sum.Errors)
	sum.Notes = uniqueNotes(sum.Notes)
	sum.Duration = time.Since(start)
	closeProgress()
	log.Info("indexed", "packages", sum.Packages, "files", sum.Files, "changed", sum.Changed, "deleted", sum.Deleted,
		"errors", len(sum.Errors), "dur", sum.Duration)
	return sum, nil
}
