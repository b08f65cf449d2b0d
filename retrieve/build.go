package retrieve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/internal/safefs"
	"github.com/relayhq/relay/retrieve/internal/bm25"
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
	Terms       int `json:"terms"`        // distinct lexical terms
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

// build makes the index; persist writes it (and the manifest) to the
// index directory, otherwise nothing is written and the index is returned.
// Its steps: walk the tree, stop early when the manifest proves nothing
// changed, chunk every file (reusing the previous index's chunks for files
// whose key did not change), stop when nothing changed at all, then
// assemble the lexical indexes, embed the new chunks, and write.
func build(ctx context.Context, root string, r graphdb.Reader, opts BuildOptions, persist bool) (*diskindex.Index, BuildStats, error) {
	start := time.Now()
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(root, ".relay")
	}
	graphHash, err := graphHashes(ctx, r)
	if err != nil {
		return nil, BuildStats{}, err
	}
	paths, notes, err := walkTree(root, dir, opts.SecretFiles)
	if err != nil {
		return nil, BuildStats{}, fmt.Errorf("walk %s: %w", root, err)
	}
	fsys, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, BuildStats{}, fmt.Errorf("open %s: %w", root, err)
	}
	defer fsys.Close()
	force := opts.Force
	stale := persist && diskindex.CheckStale(dir) != nil
	if stale {
		log.Info("search index marked stale; checking every file against it", "dir", dir)
	}
	owned := diskindex.CheckOwner(dir, opts.Key, opts.TrustForeign)
	if !force && persist && owned == nil && !stale {
		if st, ok := quickUnchanged(dir, root, paths, graphHash, opts.Embedder); ok {
			if err := diskindex.Adopt(dir, opts.Key); err != nil {
				return nil, BuildStats{}, err
			}
			st.Skipped = notes
			st.Duration = time.Since(start)
			log.Info("retrieval index up to date (manifest)", "files", st.Files, "dur", st.Duration)
			return nil, st, nil
		}
	}
	var old *diskindex.Index
	if !force {
		old = previousIndex(dir, log)
		if old != nil && owned != nil {
			log.Warn("previous search index not written by this user's relay; rebuilding it", "problem", owned)
			old = nil
		}
	}
	log.Debug("search index: files listed", "files", len(paths), "dur", time.Since(start))
	ch, err := chunkFiles(ctx, fsys, symbolSource(r, opts.Symbols), paths, graphHash, old, opts.Embedder != nil)
	if err != nil {
		return nil, BuildStats{}, err
	}
	log.Debug("search index: files chunked and tokenized", "dur", time.Since(start))
	results := ch.files
	skipped, reused := make([]bool, len(results)), make([]bool, len(results))
	for i, r := range results {
		skipped[i], reused[i] = r.skip, r.reused
		if r.note != "" {
			notes = append(notes, r.note)
		}
	}
	if st, ok := unchanged(old, skipped, reused, opts.Embedder); ok {
		st.Skipped = notes
		if persist {
			if err := diskindex.Adopt(dir, opts.Key); err != nil {
				return nil, BuildStats{}, err
			}
			if err := writeManifest(dir, root, paths, graphHash, opts.Embedder, start, st); err != nil {
				log.Warn("write retrieval manifest", "err", err)
			}
			if err := diskindex.ClearStale(dir); err != nil {
				return nil, BuildStats{}, err
			}
		}
		st.Duration = time.Since(start)
		log.Info("retrieval index up to date", "files", st.Files, "dur", st.Duration)
		return old, st, nil
	}
	ix, st := assemble(paths, ch, old)
	log.Debug("search index: postings encoded", "dur", time.Since(start))
	if opts.Embedder != nil {
		if err := embedChunks(ctx, ix, old, results, opts.Embedder, log, &st); err != nil {
			return nil, BuildStats{}, err
		}
	}
	if persist {
		if err := persistIndex(dir, root, ix, paths, graphHash, opts, start, st, log); err != nil {
			return nil, BuildStats{}, err
		}
	}
	st.Skipped = notes
	st.Duration = time.Since(start)
	log.Info("retrieval index built", "files", st.Files, "changed", st.Changed, "chunks", st.Chunks, "terms", st.Terms, "dur", st.Duration, "written", persist)
	return ix, st, nil
}

// persistIndex writes ix, its MAC and its manifest to dir, marked stale
// until all are in place (see diskindex.MarkStale).
func persistIndex(dir, root string, ix *diskindex.Index, paths []string, graphHash map[string]string, opts BuildOptions, start time.Time, st BuildStats, log *slog.Logger) error {
	if err := diskindex.MarkStale(dir); err != nil {
		return &writeError{err: err}
	}
	if err := diskindex.Write(dir, ix); err != nil {
		return &writeError{err: err, marked: true}
	}
	if err := diskindex.WriteMAC(dir, opts.Key); err != nil {
		return &writeError{err: err, marked: true}
	}
	log.Debug("search index: written", "dur", time.Since(start))
	if err := writeManifest(dir, root, paths, graphHash, opts.Embedder, start, st); err != nil {
		log.Warn("write retrieval manifest", "err", err)
	}
	return diskindex.ClearStale(dir)
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

// previousIndex reads the index in dir to reuse its chunks, postings and
// vectors; nil when there is none or it is damaged or of another format
// (then the build rebuilds it, and says so).
func previousIndex(dir string, log *slog.Logger) *diskindex.Index {
	old, err := diskindex.Read(filepath.Join(dir, IndexFile))
	var ie *diskindex.Error
	switch {
	case errors.As(err, &ie):
		log.Warn("previous search index unusable; rebuilding it", "path", ie.Path, "problem", ie.Reason)
	case err != nil && !errors.Is(err, os.ErrNotExist):
		log.Warn("previous search index unreadable; rebuilding it", "err", err)
	}
	return old
}

// chunkedFile is one walked file after chunking.
type chunkedFile struct {
	key    string
	chunks []chunk.Chunk
	text   string   // the file's text; dropped once tokenized
	lines  []string // lines.Split(text); kept when the chunks' texts are needed again (embeddings)
	reused bool
	skip   bool
	note   string // why a walked file could not be read
}

// indexText returns the indexable text of chunk j (for the embeddings).
func (res *chunkedFile) indexText(j int) chunk.Fields {
	return chunk.FieldsOf(res.chunks[j], res.lines)
}

// symbolsOf returns the graph nodes declared in a file, in the order of
// FindSymbols; nodes that make no chunk may be left out.
type symbolsOf func(ctx context.Context, rel string) ([]graphdb.Node, error)

// symbolSource answers symbolsOf from the nodes collected, or else with
// one graph query per file.
func symbolSource(r graphdb.Reader, given *Symbols) symbolsOf {
	if given == nil {
		return func(ctx context.Context, rel string) ([]graphdb.Node, error) {
			return r.FindSymbols(ctx, graphdb.SymbolQuery{File: rel})
		}
	}
	byFile := given.byFile()
	return func(_ context.Context, rel string) ([]graphdb.Node, error) { return byFile[rel], nil }
}

// chunkBlock is a run of consecutive walked files, read, chunked and
// tokenized by one goroutine: its counters number chunks and files from 0
// at the block's first file, and the merge shifts them into place.
type chunkBlock struct {
	first, end int // paths[first:end]
	count      *fileCounter
	done       chan struct{} // closed when the goroutine is through
}

// blockSize is how many files one goroutine takes at a time: enough blocks
// to keep every core busy to the end, few enough that merging their
// vocabularies stays cheap.
func blockSize(files, workers int) int {
	return min(max(files/(16*workers), 16), 512)
}

// importable reports whether the previous index's postings can be taken
// over for the files that did not change.
func importable(old *diskindex.Index) bool {
	return old != nil && len(old.Lex.DocLen) == len(old.Chunks) && len(old.FileLex.DocLen) == len(old.Files)
}

// chunked is what chunkFiles returns: the files in paths order, and the
// chunk and whole-file postings of those it tokenized, numbered as
// assemble numbers chunks and files.
type chunked struct {
	files     []chunkedFile
	lex, flex *bm25.Builder
}

// chunkFiles reads, chunks and tokenizes every path, in blocks of
// consecutive files spread over the cores, and merges each block's
// postings as soon as the blocks before it are merged. The chunks of a
// file whose content and graph record did not change are taken from old,
// and so are its postings (assemble imports them) when old's are usable.
// keepLines keeps each file's lines for the embeddings.
func chunkFiles(ctx context.Context, fsys *safefs.Root, syms symbolsOf, paths []string, graphHash map[string]string, old *diskindex.Index, keepLines bool) (chunked, error) {
	oldFiles := map[string]diskindex.FileEntry{}
	if old != nil {
		for _, f := range old.Files {
			oldFiles[f.Path] = f
		}
	}
	imports := importable(old)
	lex := bm25.NewBuilders(2)
	out := chunked{files: make([]chunkedFile, len(paths)), lex: lex[0], flex: lex[1]}
	workers := runtime.GOMAXPROCS(0)
	size := blockSize(len(paths), workers)
	var blocks []*chunkBlock
	for first := 0; first < len(paths); first += size {
		blocks = append(blocks, &chunkBlock{first: first, end: min(first+size, len(paths)), done: make(chan struct{})})
	}
	// A block's counter goes back once merged, and a later block goes on
	// with its vocabulary (fileCounter.mergeInto). One more counter than
	// workers lets a block start while the one before it is being merged;
	// more would only hold more vocabularies.
	counters := make(chan *fileCounter, len(blocks))
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		out.mergeBlocks(blocks, counters)
	}()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	made := 0
	for _, b := range blocks {
		// Counters are handed out in block order, here: a later block
		// holding the last one while an earlier one waits would stall
		// the merge, which takes the blocks in order.
		select {
		case b.count = <-counters:
		default:
			if made < workers+1 {
				b.count = newFileCounter()
				made++
			} else {
				b.count = <-counters // an earlier block's merge frees one
			}
		}
		g.Go(func() error {
			defer close(b.done)
			var chunkNo, fileNo int32
			var buf []byte
			for i := b.first; i < b.end; i++ {
				if err := gctx.Err(); err != nil {
					return err
				}
				res, err := chunkOne(gctx, fsys, syms, paths[i], graphHash, old, oldFiles, &buf)
				if err != nil {
					return err
				}
				if !res.skip {
					if !res.reused || !imports {
						b.count.add(paths[i], res.text, res.lines, res.chunks, chunkNo, fileNo)
					}
					chunkNo += int32(len(res.chunks))
					fileNo++
				}
				res.text = ""
				if !keepLines {
					res.lines = nil
				}
				out.files[i] = res
			}
			return nil
		})
	}
	err := g.Wait()
	<-merged
	if err != nil {
		return chunked{}, err
	}
	return out, nil
}

// mergeBlocks merges the blocks' postings in order, each once it is done,
// at the chunk and file numbers its first file gets (those of the files
// before it that were not skipped).
func (c *chunked) mergeBlocks(blocks []*chunkBlock, counters chan<- *fileCounter) {
	var chunkBase, fileBase int32
	for _, b := range blocks {
		<-b.done
		b.count.mergeInto(c.lex, c.flex, chunkBase, fileBase)
		counters <- b.count // never blocks: room for every block's
		b.count = nil
		for i := b.first; i < b.end; i++ {
			if res := &c.files[i]; !res.skip {
				chunkBase += int32(len(res.chunks))
				fileBase++
			}
		}
	}
}

// chunkOne reads one file and cuts it into chunks, or takes its chunks from
// the previous index when its content and graph record are unchanged.
func chunkOne(ctx context.Context, fsys *safefs.Root, syms symbolsOf, rel string, graphHash map[string]string, old *diskindex.Index, oldFiles map[string]diskindex.FileEntry, buf *[]byte) (chunkedFile, error) {
	data, err := fsys.ReadFile(rel, MaxFileSize)
	if err != nil || isBinary(data) {
		res := chunkedFile{skip: true}
		// Missing or grown past MaxFileSize since the walk: skipped
		// without a note, as the walk skips big files.
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, safefs.ErrTooLarge) {
			res.note = rel + ": " + safefs.Reason(err)
		}
		return res, nil
	}
	lang, _ := LanguageOf(rel)
	text := string(data)
	ls := lines.Split(text)
	key := chunk.HashString(text) + "/" + graphHash[rel]
	res := chunkedFile{key: key, text: text, lines: ls}
	if of, ok := oldFiles[rel]; ok && of.Key == key {
		res.chunks = old.Chunks[of.First : of.First+of.Count]
		res.reused = true
		return res, nil
	}
	var nodes []graphdb.Node
	if _, ok := graphHash[rel]; ok {
		nodes, err = syms(ctx, rel)
		if err != nil {
			return chunkedFile{}, fmt.Errorf("symbols of %s: %w", rel, err)
		}
	}
	res.chunks = chunk.File(rel, lang, ls, nodes)
	for j, c := range res.chunks {
		res.chunks[j].Hash, *buf = chunk.Hash(c, ls, *buf)
	}
	return res, nil
}

// assemble builds the index from the chunked files: chunk and file
// entries, and the chunk and whole-file BM25 indexes from the merged
// postings. Unchanged files import their postings from the previous index
// instead of being tokenized again: remap takes old chunk and file numbers
// to new ones (−1: dropped).
func assemble(paths []string, ch chunked, old *diskindex.Index) (*diskindex.Index, BuildStats) {
	ix := &diskindex.Index{Version: diskindex.Version, Vectors: map[string][]float32{}}
	results, lb, flb := ch.files, ch.lex, ch.flex
	var remap, fileRemap []int32
	oldFileIdx := map[string]int{}
	if importable(old) {
		remap = make([]int32, len(old.Chunks))
		fileRemap = make([]int32, len(old.Files))
		for i := range remap {
			remap[i] = -1
		}
		for i := range fileRemap {
			fileRemap[i] = -1
		}
		for i, f := range old.Files {
			oldFileIdx[f.Path] = i
		}
	}
	var st BuildStats
	nFiles, nChunks := 0, 0
	for i := range results {
		if !results[i].skip {
			nFiles++
			nChunks += len(results[i].chunks)
		}
	}
	ix.Files, ix.Chunks = make([]diskindex.FileEntry, 0, nFiles), make([]chunk.Chunk, 0, nChunks)
	for i := range results {
		res := &results[i]
		if res.skip {
			continue
		}
		st.Files++
		if res.reused {
			st.Reused++
		} else {
			st.Changed++
		}
		first, fileNo := int32(len(ix.Chunks)), int32(len(ix.Files))
		ix.Files = append(ix.Files, diskindex.FileEntry{Path: paths[i], Key: res.key, First: first, Count: int32(len(res.chunks))})
		ix.Chunks = append(ix.Chunks, res.chunks...)
		if of, ok := oldFileIdx[paths[i]]; ok && res.reused {
			for j := range res.chunks {
				remap[int(old.Files[of].First)+j] = first + int32(j)
			}
			fileRemap[of] = fileNo
		}
	}
	if remap != nil {
		lb.ImportDocs(old.Lex, remap)
		flb.ImportDocs(old.FileLex, fileRemap)
	}
	if old != nil {
		present := map[string]bool{}
		for _, f := range ix.Files {
			present[f.Path] = true
		}
		for _, f := range old.Files {
			if !present[f.Path] {
				st.Removed++
			}
		}
	}
	// The two share their terms, sorted once; each encodes its postings
	// on every core.
	lb.Flush()
	flb.Flush()
	var wg sync.WaitGroup
	wg.Go(func() { ix.FileLex = flb.Finish() })
	ix.Lex = lb.Finish()
	wg.Wait()
	st.Chunks = len(ix.Chunks)
	st.Terms = len(ix.Lex.Terms)
	return ix, st
}

// embedChunks fills ix.Vectors: vectors of the previous index for the
// same model are reused by chunk hash, the other chunks are embedded in
// one call.
func embedChunks(ctx context.Context, ix, old *diskindex.Index, results []chunkedFile, emb Embedder, log *slog.Logger, st *BuildStats) error {
	ix.EmbedModel = emb.Model()
	var cache map[string][]float32
	if old != nil && old.EmbedModel == ix.EmbedModel {
		cache = old.Vectors
	}
	var todo []string
	var todoHash []string
	queued := map[string]bool{}
	for i := range results {
		res := &results[i]
		if res.skip {
			continue
		}
		for j, c := range res.chunks {
			if v, ok := cache[c.Hash]; ok {
				ix.Vectors[c.Hash] = v
				st.EmbedCached++
				continue
			}
			if queued[c.Hash] {
				continue
			}
			queued[c.Hash] = true
			todo = append(todo, res.indexText(j).EmbedText(c))
			todoHash = append(todoHash, c.Hash)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	log.Info("embedding chunks", "chunks", len(todo), "model", ix.EmbedModel)
	vs, err := emb.Embed(ctx, todo, InputDocument)
	if err != nil {
		return fmt.Errorf("embed %d chunks: %w", len(todo), err)
	}
	for i, v := range vs {
		ix.Vectors[todoHash[i]] = normalize(v)
	}
	st.Embedded = len(vs)
	return nil
}

// unchanged reports whether the previous index can stay as it is: every
// file reused, none removed, and the embeddings (none, or all cached for
// the same model) unchanged. It then returns the stats of that no-op.
func unchanged(old *diskindex.Index, skipped, reused []bool, emb Embedder) (BuildStats, bool) {
	if old == nil {
		return BuildStats{}, false
	}
	n := 0
	for i := range skipped {
		if skipped[i] {
			continue
		}
		if !reused[i] {
			return BuildStats{}, false
		}
		n++
	}
	if n != len(old.Files) {
		return BuildStats{}, false
	}
	st := BuildStats{Files: n, Reused: n, Chunks: len(old.Chunks), Terms: len(old.Lex.Terms)}
	switch {
	case emb == nil && old.EmbedModel == "":
	case emb != nil && emb.Model() == old.EmbedModel:
		for _, c := range old.Chunks {
			if _, ok := old.Vectors[c.Hash]; !ok {
				return BuildStats{}, false
			}
		}
		st.EmbedCached = len(old.Chunks)
	default:
		return BuildStats{}, false
	}
	return st, true
}
