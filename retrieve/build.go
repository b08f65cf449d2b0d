package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/safefs"
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// maxFileIndexBytes caps the text of one file in the file-level index.
const maxFileIndexBytes = 64 << 10

// BuildOptions configure Build.
type BuildOptions struct {
	// Dir is where the index lives (relay's state directory); default
	// <root>/.relay. When it lies inside root, Build does not index it.
	Dir string
	// Embedder, when set, computes a vector per chunk (cached by the chunk's
	// content hash, so only new or changed chunks are sent).
	Embedder Embedder
	// Force ignores the previous index and rebuilds everything.
	Force bool
	Log   *slog.Logger
	// Symbols, when set, holds every node of the graph as the graph
	// indexer wrote them (relay index of a new store collects them): Build
	// then takes a file's symbols from it instead of querying the graph
	// once per file.
	Symbols *Symbols
	// SecretFiles decides which files are secret-bearing and left out of
	// the index (internal/egress); nil means egress.DefaultSecretFiles.
	SecretFiles *egress.FilePolicy

	// Key is this user's store key: Build writes the index's
	// MAC under it, and a previous index without that MAC is neither
	// reused nor called up to date but rebuilt. Nil judges nothing.
	Key []byte
	// TrustForeign reuses a previous index whatever its MAC (a store
	// shared on purpose) and gives it Key's MAC.
	TrustForeign bool

	segmentFiles int // files per segment; 0: segmentFiles (tests cut small segments)
}

// Symbols collects the nodes a graph indexer writes that the search index
// cuts chunks from (functions, methods, types), keeping only the fields a
// chunk uses. Its Written method is an index.Options.Written.
type Symbols struct {
	owners map[string][]graphdb.Node
}

// NewSymbols returns an empty collection.
func NewSymbols() *Symbols { return &Symbols{owners: map[string][]graphdb.Node{}} }

// Written records the nodes of an owner written (replacing what it had),
// or drops them when nodes is empty (an owner deleted). It is not safe for
// concurrent use.
func (s *Symbols) Written(owner graphdb.FileRecord, nodes []graphdb.Node) {
	var keep []graphdb.Node
	for _, n := range nodes {
		if chunk.KindOf(n) == "" {
			continue
		}
		n.Attrs = nil // only Synthetic reads them, and synthetic nodes are left out
		keep = append(keep, n)
	}
	if len(keep) == 0 {
		delete(s.owners, owner.Path)
		return
	}
	s.owners[owner.Path] = keep
}

// byFile groups the nodes by the file that declares them, each file's in
// the order of FindSymbols (start line, qualified name, id), which
// chunk.File keeps among symbols that start on the same line under the
// same name.
func (s *Symbols) byFile() map[string][]graphdb.Node {
	out := map[string][]graphdb.Node{}
	for _, ns := range s.owners {
		for _, n := range ns {
			out[n.File] = append(out[n.File], n)
		}
	}
	for _, ns := range out {
		slices.SortFunc(ns, func(a, b graphdb.Node) int {
			if c := cmp.Compare(a.StartLine, b.StartLine); c != 0 {
				return c
			}
			if c := strings.Compare(a.QName, b.QName); c != 0 {
				return c
			}
			return strings.Compare(string(a.ID), string(b.ID))
		})
	}
	return out
}

// BuildStats says what Build did.
type BuildStats struct {
	Files       int `json:"files"`        // text files indexed
	Changed     int `json:"changed"`      // files (re)chunked: new or changed content or graph
	Reused      int `json:"reused"`       // files whose chunks were reused
	Removed     int `json:"removed"`      // files gone since the last build
	Chunks      int `json:"chunks"`       // chunks in the index
	Terms       int `json:"terms"`        // distinct lexical terms per segment, summed over the segments
	Embedded    int `json:"embedded"`     // vectors computed by this build
	EmbedCached int `json:"embed_cached"` // vectors reused from the cache
	// Skipped lists what could hold text but was not read, as "path: why":
	// links leading outside the repository, link loops, directories that
	// cannot be read, files that stopped being regular files.
	Skipped  []string      `json:"skipped,omitempty"`
	Duration time.Duration `json:"duration_ns"`
}

// Build (re)builds the retrieval index of the repository at root from its
// files and the code graph r, and writes it atomically to
// <dir>/retrieve.idx (temp file + rename: an interrupted build leaves
// the previous index intact). Files whose content and graph record are
// unchanged reuse their chunks; vectors are reused by chunk hash. A
// previous index that is damaged or of another format is rebuilt.
func Build(ctx context.Context, root string, r graphdb.Reader, opts BuildOptions) (BuildStats, error) {
	_, st, err := build(ctx, root, r, opts, true)
	return st, err
}

// OpenInMemory builds the retrieval index of root as Build does but writes
// nothing, and returns a Searcher over it: for an index directory that
// cannot be written (a read-only file system) whose index is missing or of
// another format. It computes no embeddings (they would be thrown away
// after this run), so searches are lexical.
func OpenInMemory(ctx context.Context, root string, graph graphdb.Reader, opts OpenOptions) (*Searcher, BuildStats, error) {
	ix, st, err := build(ctx, root, graph, BuildOptions{Dir: opts.Dir, Log: opts.Log, SecretFiles: opts.SecretFiles}, false)
	if err != nil {
		return nil, BuildStats{}, err
	}
	return newSearcher(root, graph, ix, opts), st, nil
}

// buildRun is one build: its settings and what it found of the tree.
type buildRun struct {
	root, dir string
	opts      BuildOptions
	persist   bool
	start     time.Time
	log       *slog.Logger
	model     string // the embeddings model, "" for none
	graphHash map[string]string
	paths     []string // the walked files
	notes     []string // BuildStats.Skipped
	fsys      *safefs.Root
	syms      symbolsOf
}

// build makes the index; persist writes it (and the manifest) to the
// index directory, otherwise nothing is written and the index is returned.
// Its steps: walk the tree, stop early when the manifest proves nothing
// changed, find the files that changed, plan the segments (segments.go),
// stop when every segment is kept, then chunk the files of the segments
// to rewrite (reusing the chunks and postings of their unchanged files),
// embed the new chunks, and write those segments and a new commit.
func build(ctx context.Context, root string, r graphdb.Reader, opts BuildOptions, persist bool) (*diskindex.Index, BuildStats, error) {
	run := &buildRun{root: root, dir: opts.Dir, opts: opts, persist: persist, start: time.Now(), log: opts.Log,
		model: embedModel(opts.Embedder), syms: symbolSource(r, opts.Symbols)}
	if run.log == nil {
		run.log = slog.New(slog.DiscardHandler)
	}
	if run.dir == "" {
		run.dir = filepath.Join(root, ".relay")
	}
	dir, log := run.dir, run.log
	var err error
	if run.graphHash, err = graphHashes(ctx, r); err != nil {
		return nil, BuildStats{}, err
	}
	if run.paths, run.notes, err = walkTree(root, dir, opts.SecretFiles); err != nil {
		return nil, BuildStats{}, fmt.Errorf("walk %s: %w", root, err)
	}
	if run.fsys, err = safefs.OpenRoot(root); err != nil {
		return nil, BuildStats{}, fmt.Errorf("open %s: %w", root, err)
	}
	defer run.fsys.Close()
	stale := persist && diskindex.CheckStale(dir) != nil
	if stale {
		log.Info("search index marked stale; checking the files against it", "dir", dir)
	}
	owned := diskindex.CheckOwner(dir, opts.Key, opts.TrustForeign)
	m := loadManifest(dir)
	if m != nil {
		m.root = root
	}
	if !opts.Force && persist && owned == nil && !stale && m != nil {
		if st, ok := m.upToDate(dir, run.fsys, run.paths, run.graphHash, run.model); ok {
			if err := diskindex.Adopt(dir, opts.Key); err != nil {
				return nil, BuildStats{}, err
			}
			st.Skipped = run.notes
			st.Duration = time.Since(run.start)
			log.Info("retrieval index up to date (manifest)", "files", st.Files, "dur", st.Duration)
			return nil, st, nil
		}
	}
	var prev *prevIndex
	if !opts.Force {
		prev = previousCommit(dir, owned, log)
	}
	log.Debug("search index: files listed", "files", len(run.paths), "dur", time.Since(run.start))
	// The stamps prove files unchanged against the commit they were
	// written after, even under the stale mark (which relay index makes
	// before every update after the graph changed): the mark says that
	// an update did not finish, not that the commit and its manifest
	// disagree.
	changed, read, err := changedFiles(ctx, run.fsys, run.paths, run.graphHash, prev, stampsFor(m, dir, prev, run.model))
	if err != nil {
		return nil, BuildStats{}, err
	}
	log.Debug("search index: files checked", "read", read, "dur", time.Since(run.start))
	damaged := damagedSegments(prev)
	dirty := make([]bool, len(damaged))
	for k := range damaged {
		if damaged[k] {
			log.Warn("search index segment damaged; rebuilding its files", "segment", prev.commit.Segments[k].Name)
		}
		dirty[k] = damaged[k] || prev.commit.EmbedModel != run.model
	}
	target := opts.segmentFiles
	if target <= 0 {
		target = segmentFiles
	}
	plans := planSegments(run.paths, prev, changed, dirty, target)
	log.Debug("search index: segments planned", "segments", len(plans), "dur", time.Since(run.start))
	fresh := map[string]bool{}
	for i, c := range changed {
		if c {
			fresh[run.paths[i]] = true
		}
	}
	return run.update(ctx, prev, plans, damaged, fresh)
}

// update carries out the plan: it writes the segments to rewrite and a
// commit naming them with the ones kept, or, when every segment is kept,
// only says that the index is up to date.
func (run *buildRun) update(ctx context.Context, prev *prevIndex, plans []segPlan, damaged []bool, changed map[string]bool) (*diskindex.Index, BuildStats, error) {
	dir, log := run.dir, run.log
	written := 0
	for _, p := range plans {
		if p.keep < 0 {
			written++
		}
	}
	if written == 0 && prev != nil && len(plans) == len(prev.commit.Segments) {
		st := commitStats(prev.commit)
		st.Reused, st.Skipped = st.Files, run.notes
		if run.model != "" {
			st.EmbedCached = st.Chunks // every segment was written with the model's vectors
		}
		if run.persist {
			if err := diskindex.Adopt(dir, run.opts.Key); err != nil {
				return nil, BuildStats{}, err
			}
			run.manifest(prev.commit, st)
			if err := diskindex.ClearStale(dir); err != nil {
				return nil, BuildStats{}, err
			}
		}
		st.Duration = time.Since(run.start)
		log.Info("retrieval index up to date", "files", st.Files, "dur", st.Duration)
		if run.persist {
			return nil, st, nil
		}
		ix, err := diskindex.Read(prev.path)
		return ix, st, err
	}
	if run.persist {
		if err := diskindex.MarkStale(dir); err != nil {
			return nil, BuildStats{}, &writeError{err: err}
		}
	}
	segs, st, err := run.rewrite(ctx, prev, plans, damaged, changed)
	if err != nil {
		return nil, BuildStats{}, err
	}
	st.Removed = prev.files() - kept(prev, plans, segs)
	if !run.persist {
		ix, err := run.inMemory(prev, plans, segs)
		st.Skipped, st.Duration = run.notes, time.Since(run.start)
		return ix, st, err
	}
	if err := run.commit(prev, plans, segs, st); err != nil {
		return nil, BuildStats{}, err
	}
	st.Skipped = run.notes
	st.Duration = time.Since(run.start)
	log.Info("retrieval index built", "files", st.Files, "changed", st.Changed, "segments", len(plans), "written", written,
		"chunks", st.Chunks, "terms", st.Terms, "dur", st.Duration)
	return nil, st, nil
}

// kept counts the files of prev that the new index, of plans and segs,
// still holds.
func kept(prev *prevIndex, plans []segPlan, segs []*newSegment) int {
	n := 0
	for i, p := range plans {
		if p.keep >= 0 {
			n += len(prev.commit.Segments[p.keep].Files)
			continue
		}
		for _, f := range segs[i].ix.Files {
			if _, ok := prev.entry(f.Path); ok {
				n++
			}
		}
	}
	return n
}

// commitStats are the stats of an index made of c's segments.
func commitStats(c *diskindex.Commit) BuildStats {
	var st BuildStats
	for _, s := range c.Segments {
		st.Files += len(s.Files)
		st.Chunks += int(s.Chunks)
		st.Terms += int(s.Terms)
	}
	return st
}

// rewrite chunks the files of the segments plans rewrites, reading the
// old segments their unchanged files are in (not damaged ones; a file not
// in changed is taken over without being read, unless the embeddings
// need its text), and
// assembles and embeds the new segments: one per plan, nil for a kept
// one. Its stats count the files and chunks of the whole new index.
func (run *buildRun) rewrite(ctx context.Context, prev *prevIndex, plans []segPlan, damaged []bool, changed map[string]bool) ([]*newSegment, BuildStats, error) {
	var paths []string
	var starts []int
	olds := map[string]oldFile{}
	read := map[int]*diskindex.Index{}
	cache := map[string][]float32{}
	var st BuildStats
	for _, p := range plans {
		if p.keep >= 0 {
			ref := prev.commit.Segments[p.keep]
			st.Files += len(ref.Files)
			st.Chunks += int(ref.Chunks)
			st.Terms += int(ref.Terms)
			continue
		}
		starts = append(starts, len(paths))
		paths = append(paths, p.paths...)
		for _, rel := range p.paths {
			if prev == nil {
				break
			}
			at, ok := prev.at[rel]
			if !ok || damaged[at.seg] {
				continue
			}
			seg := read[at.seg]
			if seg == nil {
				var err error
				if seg, err = diskindex.ReadSegment(prev.path, prev.commit.Segments[at.seg]); err != nil {
					return nil, BuildStats{}, err
				}
				read[at.seg] = seg
				if prev.commit.EmbedModel == run.model {
					maps.Copy(cache, seg.Vectors)
				}
			}
			olds[rel] = oldFile{seg: seg, entry: at.entry, known: !changed[rel] && run.opts.Embedder == nil}
		}
	}
	run.log.Debug("search index: old segments read", "segments", len(read), "dur", time.Since(run.start))
	ch, err := chunkFiles(ctx, run.fsys, run.syms, paths, starts, run.graphHash, olds, run.opts.Embedder != nil)
	if err != nil {
		return nil, BuildStats{}, err
	}
	run.log.Debug("search index: files chunked and tokenized", "dur", time.Since(run.start))
	for _, r := range ch.files {
		if r.note != "" {
			run.notes = append(run.notes, r.note)
		}
	}
	segs := make([]*newSegment, len(plans))
	var fresh []newSegment
	k := 0
	for i, p := range plans {
		if p.keep >= 0 {
			continue
		}
		end := len(paths)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		ix, changed, reused := assembleSegment(paths[starts[k]:end], ch.files[starts[k]:end], ch.lex[k], ch.flex[k], olds)
		segs[i] = &newSegment{ix: ix, files: ch.files[starts[k]:end]}
		fresh = append(fresh, *segs[i])
		st.Files += changed + reused
		st.Changed += changed
		st.Reused += reused
		st.Chunks += len(ix.Chunks)
		st.Terms += len(ix.Lex.Terms)
		k++
	}
	st.Reused = st.Files - st.Changed
	run.log.Debug("search index: postings encoded", "dur", time.Since(run.start))
	if run.opts.Embedder != nil {
		if err := embedChunks(ctx, fresh, cache, run.opts.Embedder, run.log, &st); err != nil {
			return nil, BuildStats{}, err
		}
	}
	return segs, st, nil
}

// inMemory returns the index of the plans without writing anything:
// the kept segments read, the new ones as built.
func (run *buildRun) inMemory(prev *prevIndex, plans []segPlan, segs []*newSegment) (*diskindex.Index, error) {
	var all []*diskindex.Index
	for i, p := range plans {
		if p.keep < 0 {
			if len(segs[i].ix.Files) > 0 {
				all = append(all, segs[i].ix)
			}
			continue
		}
		seg, err := diskindex.ReadSegment(prev.path, prev.commit.Segments[p.keep])
		if err != nil {
			return nil, err
		}
		all = append(all, seg)
	}
	ix := diskindex.Concat(all, nil)
	ix.EmbedModel = run.model
	return ix, nil
}

// commit writes the new segments, then the commit naming them with the
// kept ones, its MAC and the manifest, clears the stale mark and removes
// the segments no longer named (see diskindex.MarkStale).
func (run *buildRun) commit(prev *prevIndex, plans []segPlan, segs []*newSegment, st BuildStats) error {
	c := &diskindex.Commit{EmbedModel: run.model}
	var written []string
	for i, p := range plans {
		if p.keep >= 0 {
			c.Segments = append(c.Segments, prev.commit.Segments[p.keep])
			continue
		}
		if len(segs[i].ix.Files) == 0 {
			continue // every file of it skipped
		}
		ref, err := diskindex.WriteSegment(run.dir, segs[i].ix)
		if err != nil {
			diskindex.RemoveSegments(run.dir, written)
			return &writeError{err: err, marked: true}
		}
		written = append(written, ref.Name)
		c.Segments = append(c.Segments, ref)
	}
	if err := diskindex.WriteCommit(run.dir, c); err != nil {
		diskindex.RemoveSegments(run.dir, written)
		return &writeError{err: err, marked: true}
	}
	if err := diskindex.WriteMAC(run.dir, run.opts.Key); err != nil {
		return &writeError{err: err, marked: true}
	}
	run.log.Debug("search index: written", "dur", time.Since(run.start))
	run.manifest(c, st)
	// The segments the previous commit named and this one drops go at
	// once; others no commit names only once they are not recent.
	named := map[string]bool{}
	for _, s := range c.Segments {
		named[s.Name] = true
	}
	var dropped []string
	if prev != nil {
		for _, s := range prev.commit.Segments {
			if !named[s.Name] {
				dropped = append(dropped, s.Name)
			}
		}
	}
	err := errors.Join(diskindex.RemoveSegments(run.dir, dropped), diskindex.RemoveUnreferenced(run.dir, c, orphanGrace))
	if err != nil {
		run.log.Warn("remove old search index segments", "err", err)
	}
	return diskindex.ClearStale(run.dir)
}

// orphanGrace spares the segment files no commit names that were written
// this recently: they may be those of another update still in progress.
// (Two updates of one index directory at once: the later commit wins,
// and when the other dropped a segment it keeps, Open finds that segment
// missing and refuses the index as damaged until the next build rebuilds
// that segment's files; no answer comes from a wrong segment.)
const orphanGrace = 10 * time.Minute

// manifest writes the manifest of the index c; a failure only costs the
// next build its shortcuts, so it is logged.
func (run *buildRun) manifest(c *diskindex.Commit, st BuildStats) {
	keys := map[string]string{}
	for _, s := range c.Segments {
		for _, f := range s.Files {
			keys[f.Path] = f.Key
		}
	}
	if err := writeManifest(run.dir, run.root, run.paths, run.graphHash, keys, run.opts.Embedder, run.start, st); err != nil {
		run.log.Warn("write retrieval manifest", "err", err)
	}
}

// ErrIndexNotWritten is matched (errors.Is) by Build's error when the new
// index, or its MAC, could not be written (a full disk, a directory that
// cannot be written). The index in the directory is then marked stale
// (or removed, when the mark cannot be made), so that Open refuses it
// until a Build succeeds; when neither could be done, the error says so.
// It matches its cause too.
var ErrIndexNotWritten = errors.New("search index not written")

// writeError is a failure to write the index; it matches
// ErrIndexNotWritten and its cause. marked: the previous index is marked
// stale.
type writeError struct {
	err    error
	marked bool
}

func (e *writeError) Error() string {
	if e.marked {
		return fmt.Sprintf("%v (the previous search index is marked stale)", e.err)
	}
	return e.err.Error()
}

func (e *writeError) Unwrap() []error { return []error{ErrIndexNotWritten, e.err} }

// previousCommit reads the commit of the index in dir to start from;
// nil when there is none, it is damaged or of another format (then the
// build rebuilds it, and says so), or it is not this user's (owned).
func previousCommit(dir string, owned error, log *slog.Logger) *prevIndex {
	p := filepath.Join(dir, IndexFile)
	c, err := diskindex.ReadCommit(p)
	var ie *diskindex.Error
	switch {
	case errors.As(err, &ie) && errors.Is(err, diskindex.ErrNoIndex):
		log.Warn("search index of another relay version; rebuilding it", "path", ie.Path, "problem", ie.Reason)
		return nil
	case errors.As(err, &ie):
		log.Warn("previous search index unusable; rebuilding it", "path", ie.Path, "problem", ie.Reason)
		return nil
	case err != nil && !errors.Is(err, os.ErrNotExist):
		log.Warn("previous search index unreadable; rebuilding it", "err", err)
		return nil
	case err != nil:
		return nil
	}
	if owned != nil {
		log.Warn("previous search index not written by this user's relay; rebuilding it", "problem", owned)
		return nil
	}
	return newPrevIndex(p, c)
}
