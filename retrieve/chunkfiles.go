package retrieve

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"runtime"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/internal/safefs"
	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

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
	seg        int // its segment, in chunkFiles' order
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

// oldFile is a file of a segment a build rewrites, as the previous index
// holds it: its segment (read) and its entry there.
type oldFile struct {
	seg   *diskindex.Index
	entry int
	known bool // proven unchanged, so neither read nor hashed again
}

// chunks returns the file's chunks in its old segment.
func (of oldFile) chunks() []chunk.Chunk {
	e := of.seg.Files[of.entry]
	return of.seg.Chunks[e.First : e.First+e.Count]
}

// chunked is what chunkFiles returns: the files in paths order, and per
// segment the chunk and whole-file postings of those it tokenized,
// numbered as assembleSegment numbers the segment's chunks and files.
type chunked struct {
	files     []chunkedFile
	lex, flex []*bm25.Builder
}

// counterPool hands out the block counters of a build (at most one more
// than the workers: see chunkFiles); a counter returns once its block is
// merged, and the next block goes on with its vocabulary.
type counterPool struct {
	ch   chan *fileCounter
	made int
}

// chunkFiles reads, chunks and tokenizes every path, in blocks of
// consecutive files spread over the cores, and merges each block's
// postings as soon as the blocks before it are merged, into the builders
// of its segment (paths[starts[k]:starts[k+1]] is segment k; a block
// never spans two). The chunks of a file whose content and graph record
// did not change are taken from its old segment (olds), and so are its
// postings (assembleSegment imports them). keepLines keeps each file's
// lines for the embeddings.
func chunkFiles(ctx context.Context, fsys *safefs.Root, syms symbolsOf, paths []string, starts []int, graphHash map[string]string, olds map[string]oldFile, keepLines bool) (chunked, error) {
	out := chunked{files: make([]chunkedFile, len(paths))}
	workers := runtime.GOMAXPROCS(0)
	size := blockSize(len(paths), workers)
	var blocks []*chunkBlock
	for k, s := range starts {
		end := len(paths)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		lex := bm25.NewBuilders(2)
		out.lex, out.flex = append(out.lex, lex[0]), append(out.flex, lex[1])
		for first := s; first < end; first += size {
			blocks = append(blocks, &chunkBlock{seg: k, first: first, end: min(first+size, end), done: make(chan struct{})})
		}
	}
	// A block's counter goes back once merged, and a later block goes on
	// with its vocabulary (fileCounter.mergeInto). One more counter than
	// workers lets a block start while the one before it is being merged;
	// more would only hold more vocabularies.
	pool := &counterPool{ch: make(chan *fileCounter, workers+1)}
	merged := make(chan struct{})
	go func() {
		defer close(merged)
		out.mergeBlocks(blocks, pool.ch)
	}()
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for _, b := range blocks {
		// Counters are handed out in block order, here: a later block
		// holding the last one while an earlier one waits would stall
		// the merge, which takes the blocks in order.
		select {
		case b.count = <-pool.ch:
		default:
			if pool.made < workers+1 {
				b.count = newFileCounter()
				pool.made++
			} else {
				b.count = <-pool.ch // an earlier block's merge frees one
			}
		}
		g.Go(func() error {
			defer close(b.done)
			return out.chunkBlock(gctx, b, fsys, syms, paths, graphHash, olds, keepLines)
		})
	}
	err := g.Wait()
	<-merged
	if err != nil {
		return chunked{}, err
	}
	return out, nil
}

// chunkBlock chunks the files of block b, counting those not taken over
// from their old segment.
func (c *chunked) chunkBlock(ctx context.Context, b *chunkBlock, fsys *safefs.Root, syms symbolsOf, paths []string, graphHash map[string]string, olds map[string]oldFile, keepLines bool) error {
	var chunkNo, fileNo int32
	var buf []byte
	for i := b.first; i < b.end; i++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		res, err := chunkOne(ctx, fsys, syms, paths[i], graphHash, olds, &buf)
		if err != nil {
			return err
		}
		if !res.skip {
			if !res.reused {
				b.count.add(paths[i], res.text, res.lines, res.chunks, chunkNo, fileNo)
			}
			chunkNo += int32(len(res.chunks))
			fileNo++
		}
		res.text = ""
		if !keepLines {
			res.lines = nil
		}
		c.files[i] = res
	}
	return nil
}

// mergeBlocks merges the blocks' postings in order, each once it is done,
// into its segment's builders at the chunk and file numbers its first
// file gets there (those of the segment's files before it that were not
// skipped).
func (c *chunked) mergeBlocks(blocks []*chunkBlock, counters chan<- *fileCounter) {
	var chunkBase, fileBase int32
	seg := -1
	for _, b := range blocks {
		<-b.done
		if b.seg != seg {
			seg, chunkBase, fileBase = b.seg, 0, 0
		}
		if b.count == nil {
			continue
		}
		b.count.mergeInto(c.lex[seg], c.flex[seg], chunkBase, fileBase)
		counters <- b.count // never blocks: room for every counter
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
// its old segment when its content and graph record are unchanged.
func chunkOne(ctx context.Context, fsys *safefs.Root, syms symbolsOf, rel string, graphHash map[string]string, olds map[string]oldFile, buf *[]byte) (chunkedFile, error) {
	if of, ok := olds[rel]; ok && of.known {
		// Proven unchanged (changedFiles): not read again.
		return chunkedFile{key: of.seg.Files[of.entry].Key, chunks: of.chunks(), reused: true}, nil
	}
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
	if of, ok := olds[rel]; ok && of.seg.Files[of.entry].Key == key {
		res.chunks = of.chunks()
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

// remap takes the chunk and file numbers of an old segment to those of
// the new one (−1: not taken over).
type remap struct{ chunks, files []int32 }

func newRemap(old *diskindex.Index) *remap {
	r := &remap{chunks: make([]int32, len(old.Chunks)), files: make([]int32, len(old.Files))}
	for i := range r.chunks {
		r.chunks[i] = -1
	}
	for i := range r.files {
		r.files[i] = -1
	}
	return r
}

// assembleSegment builds a segment from its chunked files (paths and
// results of the same files) and the builders chunkFiles filled: file
// entries, chunks, and the chunk and whole-file postings, where the
// unchanged files import theirs from their old segments instead of being
// tokenized again. It returns the segment and how many files were
// chunked anew and taken over.
func assembleSegment(paths []string, results []chunkedFile, lb, flb *bm25.Builder, olds map[string]oldFile) (seg *diskindex.Index, changed, reused int) {
	seg = &diskindex.Index{Version: diskindex.Version, Vectors: map[string][]float32{}}
	remaps := map[*diskindex.Index]*remap{}
	for i := range results {
		res := &results[i]
		if res.skip {
			continue
		}
		first, fileNo := int32(len(seg.Chunks)), int32(len(seg.Files))
		seg.Files = append(seg.Files, diskindex.FileEntry{Path: paths[i], Key: res.key, First: first, Count: int32(len(res.chunks))})
		seg.Chunks = append(seg.Chunks, res.chunks...)
		if !res.reused {
			changed++
			continue
		}
		reused++
		of := olds[paths[i]]
		rm := remaps[of.seg]
		if rm == nil {
			rm = newRemap(of.seg)
			remaps[of.seg] = rm
		}
		e := of.seg.Files[of.entry]
		for j := range res.chunks {
			rm.chunks[int(e.First)+j] = first + int32(j)
		}
		rm.files[of.entry] = fileNo
	}
	for old, rm := range remaps {
		lb.ImportDocs(old.Lex, rm.chunks)
		flb.ImportDocs(old.FileLex, rm.files)
	}
	// The two share their terms, sorted once; each encodes its postings
	// on every core.
	lb.Flush()
	flb.Flush()
	var wg sync.WaitGroup
	wg.Go(func() { seg.FileLex = flb.Finish() })
	seg.Lex = lb.Finish()
	wg.Wait()
	return seg, changed, reused
}

// newSegment is a segment a build writes, with its chunked files.
type newSegment struct {
	ix    *diskindex.Index
	files []chunkedFile
}

// embedChunks fills the new segments' vectors: those of the old segments
// they were made from (cache, nil when the model changed) are reused by
// chunk hash, the other chunks are embedded in one call.
func embedChunks(ctx context.Context, segs []newSegment, cache map[string][]float32, emb Embedder, log *slog.Logger, st *BuildStats) error {
	model := emb.Model()
	var todo []string
	var todoHash []string
	queued := map[string]bool{}
	for _, s := range segs {
		s.ix.EmbedModel = model
		for i := range s.files {
			res := &s.files[i]
			if res.skip {
				continue
			}
			for j, c := range res.chunks {
				if v, ok := cache[c.Hash]; ok {
					s.ix.Vectors[c.Hash] = v
					st.EmbedCached++
					continue
				}
				if !queued[c.Hash] {
					queued[c.Hash] = true
					todo = append(todo, res.indexText(j).EmbedText(c))
					todoHash = append(todoHash, c.Hash)
				}
			}
		}
	}
	if len(todo) == 0 {
		return nil
	}
	log.Info("embedding chunks", "chunks", len(todo), "model", model)
	vs, err := emb.Embed(ctx, todo, InputDocument)
	if err != nil {
		return fmt.Errorf("embed %d chunks: %w", len(todo), err)
	}
	got := make(map[string][]float32, len(vs))
	for i, v := range vs {
		got[todoHash[i]] = normalize(v)
	}
	for _, s := range segs {
		for _, c := range s.ix.Chunks {
			if v, ok := got[c.Hash]; ok {
				s.ix.Vectors[c.Hash] = v
			}
		}
	}
	st.Embedded = len(vs)
	return nil
}
