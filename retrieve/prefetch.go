package retrieve

import (
	"hash/maphash"
	"runtime"
	"slices"
	"sync"
	"unsafe"

	"github.com/relayhq/relay/internal/safefs"
)

// DESIGN: a cold `relay index` builds the graph, then the search index.
// Reading the files and tokenizing their lines need no graph node (only
// cutting chunks does), and the graph indexer leaves part of the machine
// idle (listing packages, type-checking packages whose dependencies are
// not done yet, the single-threaded SQLite writes). A Prefetch does that
// part in one goroutine while the graph is indexed, block by block in the
// layout chunkFiles will use, each block with the vocab its counting will
// go on with; Build then reads each file again (cheap: it was just read),
// and when its text is the one tokenized (same maphash) takes its content
// hash and its lines' terms as they are, and only cuts and counts chunks.
// Only the term ids are held, not the text, and each block's cache of
// words' terms is dropped; it stops at a budget of bytes held. Held
// through the graph indexer's memory peak, they would count twice in the
// collector's default pacing: relay index holds a soft memory limit
// meanwhile (cmd/relay limitHeapWhileReadingAhead).

// prefetchBudget caps what a Prefetch holds (line term ids and the blocks'
// vocabularies): the standard library's 9,041 text files take about 52 MB
// of line data and 25 MB of vocabularies.
const prefetchBudget = 128 << 20

// Prefetch reads and tokenizes a tree's text files in the background for
// a Build that follows (BuildOptions.Prefetch). Stop it when it is not
// handed to Build.
type Prefetch struct {
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	paths   []string // walked; Build uses the blocks only for the same paths
	workers int      // the GOMAXPROCS the block layout was made for
	budget  int      // bytes held at most, about
	blocks  []*readBlock
	taken   bool
}

// readBlock is one chunkFiles block read ahead: its counter's vocab holds
// the terms of the files' lines.
type readBlock struct {
	count *fileCounter
	files []readFile // paths[first:end] of the block
}

// readFile is one file read ahead; Build uses its lines when the text it
// reads has the same hash.
type readFile struct {
	hash  string // hashString of the text tokenized; "" when none was
	sum   uint64 // maphash of it, to tell cheaply that the text is the same
	lines lineTerms
}

// readSeed seeds readFile.sum.
var readSeed = maphash.MakeSeed()

// sameHash returns f's hash when text is what f tokenized (its maphash
// matches: a file changed between the two reads is caught but for a
// chance of 2⁻⁶⁴), else "".
func (f *readFile) sameHash(text string) string {
	if f == nil || f.hash == "" || maphash.String(readSeed, text) != f.sum {
		return ""
	}
	return f.hash
}

// StartPrefetch walks root (leaving out the index directory dir, as Build
// does) and starts reading and tokenizing its text files in the
// background. It returns nil when the walk fails: Build then walks and
// reports it.
func StartPrefetch(root, dir string) *Prefetch {
	return startPrefetch(root, dir, prefetchBudget)
}

// startPrefetch is StartPrefetch holding at most about budget bytes.
func startPrefetch(root, dir string, budget int) *Prefetch {
	paths, _, err := walkTree(root, dir)
	if err != nil {
		return nil
	}
	fsys, err := safefs.OpenRoot(root)
	if err != nil {
		return nil
	}
	p := &Prefetch{stop: make(chan struct{}), done: make(chan struct{}), paths: paths, workers: runtime.GOMAXPROCS(0), budget: budget}
	go func() {
		defer close(p.done)
		defer fsys.Close()
		p.read(fsys)
	}()
	return p
}

// read fills p.blocks in order until it is stopped, runs out of budget or
// has read every file; only complete blocks are kept.
func (p *Prefetch) read(fsys *safefs.Root) {
	size := blockSize(len(p.paths), p.workers)
	held := 0
	for first := 0; first < len(p.paths) && held < p.budget; first += size {
		end := min(first+size, len(p.paths))
		b := &readBlock{count: newFileCounter(), files: make([]readFile, end-first)}
		for i := first; i < end; i++ {
			select {
			case <-p.stop:
				return
			default:
			}
			f := &b.files[i-first]
			data, err := fsys.ReadFile(p.paths[i], MaxFileSize)
			if err != nil || isBinary(data) {
				continue // Build reads it again, and says why it cannot
			}
			// Only tokenized, and the terms are copies: no need to copy
			// the bytes into a string.
			text := unsafe.String(unsafe.SliceData(data), len(data))
			f.hash, f.sum = hashString(text), maphash.String(readSeed, text)
			sc := &b.count.scratch
			*sc = b.count.v.tokenizeLines(text, lineTerms{ids: sc.ids[:0], end: sc.end[:0], start: sc.start[:0]})
			// Exact copies: the scratch's spare capacity would be held too.
			f.lines = lineTerms{ids: slices.Clone(sc.ids), end: slices.Clone(sc.end), start: slices.Clone(sc.start)}
			held += 4 * (len(f.lines.ids) + 2*len(f.lines.end))
		}
		// The words' terms are a cache; the counting refills it. Held for
		// every block until Build, it would cost more than the lines.
		v := b.count.v
		v.words, v.wordIDs, b.count.scratch = map[string]wordTerms{}, nil, lineTerms{}
		held += vocabBytes(v)
		p.blocks = append(p.blocks, b)
	}
}

// Stop ends the reading ahead and waits for it; the blocks read so far
// stay for Build. It may be called more than once.
func (p *Prefetch) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() { close(p.stop) })
	<-p.done
}

// take stops the reading ahead and returns the blocks read, when they
// were laid out for paths and workers (else nil); once only. What was read
// is let go either way.
func (p *Prefetch) take(paths []string, workers int) []*readBlock {
	if p == nil {
		return nil
	}
	p.Stop()
	blocks := p.blocks
	p.blocks = nil // not held through the build when unused
	if p.taken || p.workers != workers || !slices.Equal(p.paths, paths) {
		return nil
	}
	p.taken = true
	return blocks
}

// vocabBytes estimates the memory of a vocab's terms: each string, its
// header in terms, and its entry in ids.
func vocabBytes(v *vocab) int {
	n := 0
	for _, t := range v.terms {
		n += len(t) + 16 + 32
	}
	return n
}
