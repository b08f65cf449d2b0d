package diskindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
)

// DESIGN: segments. The index is cut into segments, each the index of a
// run of consecutive files of the walk (sorted paths): its chunks, its
// vectors, and its chunk and whole-file postings with documents numbered
// from 0 at its first chunk and file. A segment file
// (retrieve-<random>.seg) is written once under a new name and never
// changed. The commit file retrieve.idx names the segments in path order,
// with each one's size, checksum and file entries (path, key, chunks), and
// is replaced through a rename: it is the one atomic step of an update, so
// a crash before it leaves the previous commit and its segments whole, and
// segments no commit names are removed after the next commit
// (RemoveUnreferenced). The MAC (owner.go) covers the commit file's header,
// whose checksum covers the segments' checksums.
//
// An update rewrites only the segments whose files changed (package
// retrieve's merge policy keeps them near a target size, splitting one that
// grew past twice the target and merging one that shrank below half into
// its neighbour); the others are neither read nor rewritten, only their
// checksums verified. Read concatenates the segments in order into one
// Index (bm25.Concat): a segment's documents follow the previous ones', so
// chunk and file numbers are those of one build over the whole tree, the
// document frequencies are summed and the average length taken over all
// documents when the index is opened. Term statistics are therefore never
// stored across segments and never need correcting: an index updated in
// place and one built from scratch over the same tree read back equal,
// whatever their segment boundaries. So that the concatenation re-encodes
// only the first delta of each term's postings per segment, a segment
// stores each term's last document after its postings sections.

// segmentMagic starts every segment file.
const segmentMagic = "RELAYSG\n"

// segmentName is the form of a segment's file name; a commit naming
// anything else is damaged.
var segmentName = regexp.MustCompile(`^retrieve-[0-9]+\.seg$`)

// Commit is the content of the commit file: the segments of the index in
// path order.
type Commit struct {
	Version    int
	EmbedModel string
	Segments   []SegmentRef
}

// SegmentRef names one segment file and what it holds: its files (First
// counts its own chunks from 0), its chunk count and its distinct terms.
type SegmentRef struct {
	Name   string
	Size   int64
	CRC    uint32
	Files  []FileEntry
	Chunks int32
	Terms  int32
}

// segmentHead is the first gob message of a segment after its postings:
// its vectors and how many chunks follow, in batches of chunkBatch.
type segmentHead struct {
	Vectors map[string][]float32
	Chunks  int
}

const chunkBatch = 4096

// WriteSegment writes seg (Files, Chunks, Lex, FileLex and Vectors, its
// documents numbered from 0) as a new segment file in dir and returns the
// reference a commit keeps of it.
func WriteSegment(dir string, seg *Index) (SegmentRef, error) {
	name, size, sum, err := writeChecked(dir, "retrieve-*.seg", segmentMagic, func(w *bufio.Writer) error {
		for _, lx := range []*bm25.Index{seg.Lex, seg.FileLex} {
			if err := writeLexSection(w, lx); err != nil {
				return err
			}
		}
		for _, lx := range []*bm25.Index{seg.Lex, seg.FileLex} {
			writeU32s(w, lx.LastDocs())
		}
		enc := gob.NewEncoder(w)
		if err := enc.Encode(&segmentHead{Vectors: seg.Vectors, Chunks: len(seg.Chunks)}); err != nil {
			return fmt.Errorf("encode retrieval index: %w", err)
		}
		for i := 0; i < len(seg.Chunks); i += chunkBatch {
			if err := enc.Encode(seg.Chunks[i:min(i+chunkBatch, len(seg.Chunks))]); err != nil {
				return fmt.Errorf("encode retrieval index: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return SegmentRef{}, err
	}
	return SegmentRef{Name: filepath.Base(name), Size: size, CRC: sum, Files: seg.Files,
		Chunks: int32(len(seg.Chunks)), Terms: int32(len(seg.Lex.Terms))}, nil
}

// writeU32s writes vs as little-endian uint32s.
func writeU32s(w *bufio.Writer, vs []int32) {
	var b [4]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint32(b[:], uint32(v))
		w.Write(b[:]) // a bufio.Writer keeps its first error for Flush
	}
}

// WriteCommit installs c as the commit file of dir (temp file, rename).
func WriteCommit(dir string, c *Commit) error {
	c.Version = Version
	name, _, _, err := writeChecked(dir, FileName+".tmp-*", indexMagic, func(w *bufio.Writer) error {
		if err := gob.NewEncoder(w).Encode(c); err != nil {
			return fmt.Errorf("encode retrieval index: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := os.Rename(name, filepath.Join(dir, FileName)); err != nil {
		os.Remove(name)
		return fmt.Errorf("install retrieval index: %w", err)
	}
	return nil
}

// Write writes ix, numbered from 0, as the whole index in dir: one
// segment and a commit naming it.
func Write(dir string, ix *Index) error {
	ref, err := WriteSegment(dir, ix)
	if err != nil {
		return err
	}
	c := &Commit{EmbedModel: ix.EmbedModel, Segments: []SegmentRef{ref}}
	if err := WriteCommit(dir, c); err != nil {
		os.Remove(filepath.Join(dir, ref.Name))
		return err
	}
	return RemoveUnreferenced(dir, c, 0)
}

// RemoveUnreferenced removes the segment files of dir that c does not
// name — those of earlier commits, and those of updates that did not
// finish — except ones written within grace, which may be an update's
// still in progress beside this one.
func RemoveUnreferenced(dir string, c *Commit, grace time.Duration) error {
	keep := map[string]bool{}
	for _, s := range c.Segments {
		keep[s.Name] = true
	}
	names, err := filepath.Glob(filepath.Join(dir, "retrieve-*.seg"))
	if err != nil {
		return err
	}
	recent := time.Now().Add(-grace)
	var drop []string
	for _, p := range names {
		if keep[filepath.Base(p)] {
			continue
		}
		if fi, err := os.Lstat(p); err == nil && (grace == 0 || fi.ModTime().Before(recent)) {
			drop = append(drop, filepath.Base(p))
		}
	}
	return RemoveSegments(dir, drop)
}

// RemoveSegments removes the segment files named from dir.
func RemoveSegments(dir string, names []string) error {
	var errs []error
	for _, n := range names {
		if err := os.Remove(filepath.Join(dir, n)); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ReadCommit reads and checks the commit file at p. A missing file is an
// os.ErrNotExist error, one of another format ErrNoIndex, a file that
// fails a check ErrDamaged.
func ReadCommit(p string) (*Commit, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, damaged(p, "not a regular file")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	defer f.Close()
	buf, _, err := checkFile(p, checkedFile{magic: indexMagic}, f, true)
	if err != nil {
		return nil, err
	}
	c, err := decodeCommit(buf)
	if err != nil {
		return nil, damaged(p, "%v", err)
	}
	return c, nil
}

// decodeCommit decodes and checks a commit file's payload.
func decodeCommit(buf []byte) (*Commit, error) {
	var c Commit
	r := bytes.NewReader(buf)
	if err := gob.NewDecoder(r).Decode(&c); err != nil {
		return nil, fmt.Errorf("undecodable: %w", err)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d bytes after the commit", r.Len())
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	return &c, nil
}

// check refuses a commit that contradicts itself: another version, a
// segment name that is not one, files out of order or chunk ranges that
// do not tile a segment's chunks.
func (c *Commit) check() error {
	if c.Version != Version {
		return fmt.Errorf("the payload says format %d, the header %d", c.Version, Version)
	}
	last := ""
	for _, s := range c.Segments {
		if !segmentName.MatchString(s.Name) {
			return fmt.Errorf("a segment named %q", s.Name)
		}
		if len(s.Files) == 0 {
			return fmt.Errorf("segment %s holds no file", s.Name)
		}
		next := int32(0)
		for _, f := range s.Files {
			if last != "" && ComparePaths(f.Path, last) <= 0 || f.First != next || f.Count < 0 {
				return fmt.Errorf("segment %s: file %q out of order", s.Name, f.Path)
			}
			last, next = f.Path, next+f.Count
		}
		if next != s.Chunks {
			return fmt.Errorf("segment %s: its files hold %d chunks, it says %d", s.Name, next, s.Chunks)
		}
	}
	return nil
}

// ComparePaths orders repository paths as the walk meets them: by
// component, each compared bytewise ("a/b.go" before "a.go", which
// strings.Compare puts after it since '.' sorts before '/'). It is
// strings.Compare with '/' taken as the lowest byte.
func ComparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

// ReadSegment reads the segment ref names, in the directory of the
// commit file at p, checked against the commit (size and checksum) and
// itself; its documents are numbered from 0.
func ReadSegment(p string, ref SegmentRef) (*Index, error) {
	buf, err := openSegment(p, ref, true)
	if err != nil {
		return nil, err
	}
	seg, _, err := decodeSegment(buf, ref)
	if err != nil {
		return nil, damaged(p, "segment %s undecodable: %v", ref.Name, err)
	}
	return seg, nil
}

// VerifySegment checks the segment ref names as ReadSegment does,
// without decoding it.
func VerifySegment(p string, ref SegmentRef) error {
	_, err := openSegment(p, ref, false)
	return err
}

// openSegment checks the segment file of ref and returns its payload
// when keep is set.
func openSegment(p string, ref SegmentRef, keep bool) ([]byte, error) {
	sp := filepath.Join(filepath.Dir(p), ref.Name)
	f, err := os.Open(sp)
	if errors.Is(err, os.ErrNotExist) {
		return nil, damaged(p, "segment %s is missing", ref.Name)
	}
	if err != nil {
		return nil, fmt.Errorf("open search index segment: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat search index segment: %w", err)
	}
	if !fi.Mode().IsRegular() || fi.Size() != ref.Size {
		return nil, damaged(p, "segment %s: %d bytes where the index records %d", ref.Name, fi.Size(), ref.Size)
	}
	buf, sum, err := checkFile(p, checkedFile{magic: segmentMagic, name: ref.Name}, f, keep)
	if err != nil {
		return nil, err
	}
	if sum != ref.CRC {
		return nil, damaged(p, "segment %s is not the one the index names (checksum)", ref.Name)
	}
	return buf, nil
}

// decodeSegment decodes a segment's payload, with the last document of
// each term of its chunk and file postings.
func decodeSegment(buf []byte, ref SegmentRef) (*Index, [2][]int32, error) {
	var last [2][]int32
	ix := &Index{Version: Version, Files: ref.Files}
	var err error
	if ix.Lex, buf, err = readLexSection(buf); err != nil {
		return nil, last, err
	}
	if ix.FileLex, buf, err = readLexSection(buf); err != nil {
		return nil, last, err
	}
	for i, lx := range []*bm25.Index{ix.Lex, ix.FileLex} {
		if last[i], buf, err = readU32s(buf, len(lx.Terms), int32(len(lx.DocLen))); err != nil {
			return nil, last, err
		}
	}
	if len(ix.Lex.DocLen) != int(ref.Chunks) || len(ix.FileLex.DocLen) != len(ref.Files) {
		return nil, last, fmt.Errorf("%d chunk and %d file documents for %d chunks in %d files",
			len(ix.Lex.DocLen), len(ix.FileLex.DocLen), ref.Chunks, len(ref.Files))
	}
	r := bytes.NewReader(buf) // an io.ByteReader: gob reads no further than its messages
	dec := gob.NewDecoder(r)
	var head segmentHead
	if err := dec.Decode(&head); err != nil {
		return nil, last, err
	}
	if head.Chunks != int(ref.Chunks) {
		return nil, last, fmt.Errorf("%d chunks where the index records %d", head.Chunks, ref.Chunks)
	}
	// A chunk takes more than 8 bytes: a larger count is damage, refused
	// before allocating for it.
	if head.Chunks < 0 || head.Chunks > r.Len()/8 {
		return nil, last, fmt.Errorf("%d chunks announced in %d bytes", head.Chunks, r.Len())
	}
	ix.Vectors = head.Vectors
	ix.Chunks = make([]chunk.Chunk, 0, head.Chunks)
	for len(ix.Chunks) < head.Chunks {
		var batch []chunk.Chunk
		if err := dec.Decode(&batch); err != nil {
			return nil, last, fmt.Errorf("chunk %d of %d: %w", len(ix.Chunks), head.Chunks, err)
		}
		if len(batch) == 0 || len(batch) > head.Chunks-len(ix.Chunks) {
			return nil, last, fmt.Errorf("a batch of %d chunks after %d of %d", len(batch), len(ix.Chunks), head.Chunks)
		}
		ix.Chunks = append(ix.Chunks, batch...)
	}
	if r.Len() != 0 {
		return nil, last, fmt.Errorf("%d bytes after the last chunk", r.Len())
	}
	return ix, last, nil
}

// readU32s takes n little-endian uint32s, each below limit, off buf.
func readU32s(buf []byte, n int, limit int32) ([]int32, []byte, error) {
	if n > len(buf)/4 {
		return nil, nil, errors.New("last documents: truncated")
	}
	out := make([]int32, n)
	for i := range out {
		v := binary.LittleEndian.Uint32(buf[4*i:])
		if v > math.MaxInt32 || int32(v) >= limit {
			return nil, nil, fmt.Errorf("last documents: %d of %d documents", v, limit)
		}
		out[i] = int32(v)
	}
	return out, buf[4*n:], nil
}

// Read loads the index whose commit file is p: every segment, checked,
// concatenated into one Index numbered from 0 (see the DESIGN note). A
// missing file is an os.ErrNotExist error; an index of another format
// version is ErrNoIndex; a file that fails a check is ErrDamaged.
func Read(p string) (*Index, error) {
	c, err := ReadCommit(p)
	if err != nil {
		return nil, err
	}
	segs := make([]*Index, len(c.Segments))
	lasts := make([][2][]int32, len(c.Segments))
	var g errgroup.Group
	g.SetLimit(4)
	for i, ref := range c.Segments {
		g.Go(func() error {
			buf, err := openSegment(p, ref, true)
			if err != nil {
				return err
			}
			if segs[i], lasts[i], err = decodeSegment(buf, ref); err != nil {
				return damaged(p, "segment %s undecodable: %v", ref.Name, err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	ix := Concat(segs, lasts)
	ix.EmbedModel = c.EmbedModel
	return ix, nil
}

// Concat joins segments (each numbered from 0) into one index, the
// documents of each after those of the segments before it; last holds
// each segment's LastDocs of its chunk and file postings, nil to compute
// them.
func Concat(segs []*Index, last [][2][]int32) *Index {
	ix := &Index{Version: Version, Vectors: map[string][]float32{}}
	lex := make([]bm25.Part, len(segs))
	flex := make([]bm25.Part, len(segs))
	for i, s := range segs {
		base := int32(len(ix.Chunks))
		for _, f := range s.Files {
			f.First += base
			ix.Files = append(ix.Files, f)
		}
		ix.Chunks = append(ix.Chunks, s.Chunks...)
		for h, v := range s.Vectors {
			ix.Vectors[h] = v
		}
		var l [2][]int32
		if last != nil {
			l = last[i]
		} else {
			l = [2][]int32{s.Lex.LastDocs(), s.FileLex.LastDocs()}
		}
		lex[i] = bm25.Part{Index: s.Lex, Last: l[0]}
		flex[i] = bm25.Part{Index: s.FileLex, Last: l[1]}
	}
	if len(segs) == 0 {
		ix.Lex, ix.FileLex = &bm25.Index{}, &bm25.Index{}
		return ix
	}
	var wg sync.WaitGroup
	wg.Go(func() { ix.FileLex = bm25.Concat(flex) })
	ix.Lex = bm25.Concat(lex)
	wg.Wait()
	return ix
}

// Verify checks the index whose commit file is p as Read does (the
// commit and every segment), without decoding the segments.
func Verify(p string) error {
	c, err := ReadCommit(p)
	if err != nil {
		return err
	}
	for _, ref := range c.Segments {
		if err := VerifySegment(p, ref); err != nil {
			return err
		}
	}
	return nil
}
