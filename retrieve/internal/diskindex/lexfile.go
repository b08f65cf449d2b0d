package diskindex

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/relayhq/relay/retrieve/internal/bm25"
)

// DESIGN: the two inverted indexes are most of the index file (the
// standard library: 510,000 terms and 30 MB of postings) and are written
// as flat sections, ahead of the gob messages, instead of through gob: gob
// buffers a whole value before it writes it and handles each of a
// million strings and byte slices on its own, which made encoding the
// slowest single-threaded step of a cold build, and decoding them
// allocated each one. A section is read back as slices of the file's
// bytes, checked before use:
//
//	terms uint32 | docs uint32 | avg float32 | DocLen [docs]float32 |
//	DF [terms]uint32 | term ends [terms]uint32 | blob ends [terms]uint32 |
//	term bytes | blob bytes
//
// (little endian; ends are offsets from the start of their bytes).

// writeLexSection writes ix as a section to w.
func writeLexSection(w *bufio.Writer, ix *bm25.Index) error {
	if len(ix.Terms) > math.MaxUint32 || len(ix.DocLen) > math.MaxUint32 {
		return errors.New("encode search index: too many terms or documents")
	}
	var b [4]byte
	put := func(v uint32) {
		binary.LittleEndian.PutUint32(b[:], v)
		w.Write(b[:]) // a bufio.Writer keeps its first error for Flush
	}
	put(uint32(len(ix.Terms)))
	put(uint32(len(ix.DocLen)))
	put(math.Float32bits(ix.AvgLen))
	for _, l := range ix.DocLen {
		put(math.Float32bits(l))
	}
	for _, df := range ix.DF {
		put(uint32(df))
	}
	end := 0
	for _, t := range ix.Terms {
		end += len(t)
		put(uint32(end))
	}
	if end > math.MaxUint32 {
		return errors.New("encode search index: terms over 4 GB")
	}
	end = 0
	for _, blob := range ix.Blobs {
		end += len(blob)
		put(uint32(end))
	}
	if end > math.MaxUint32 {
		return errors.New("encode search index: postings over 4 GB")
	}
	for _, t := range ix.Terms {
		w.WriteString(t)
	}
	for _, blob := range ix.Blobs {
		w.Write(blob)
	}
	return nil
}

// readLexSection decodes the section at the start of buf and returns it
// with the bytes after it. The index's terms are substrings of one copy
// of the section's term bytes and its blobs slices of buf, which they
// keep: a copy would double what a search holds while it opens the index.
func readLexSection(buf []byte) (*bm25.Index, []byte, error) {
	r := sectionReader{buf: buf}
	nTerms, nDocs := int(r.u32()), int(r.u32())
	avg := math.Float32frombits(r.u32())
	// Each term takes 12 bytes of the arrays and each document 4: counts
	// beyond what is left are damage, refused before allocating for them.
	if r.err != nil || nTerms > len(r.buf)/12 || nDocs > len(r.buf)/4 {
		return nil, nil, errors.New("postings section: counts exceed its size")
	}
	ix := &bm25.Index{AvgLen: avg, DocLen: make([]float32, nDocs), DF: make([]int32, nTerms),
		Terms: make([]string, nTerms), Blobs: make([][]byte, nTerms)}
	for i := range ix.DocLen {
		ix.DocLen[i] = math.Float32frombits(r.u32())
	}
	for i := range ix.DF {
		ix.DF[i] = int32(r.u32())
	}
	termEnds, blobEnds := r.take(4*nTerms), r.take(4*nTerms)
	if r.err != nil {
		return nil, nil, r.err
	}
	termLen, blobLen := lastEnd(termEnds), lastEnd(blobEnds)
	terms, blobs := r.take(termLen), r.take(blobLen)
	if r.err != nil {
		return nil, nil, r.err
	}
	all := string(terms)
	start, bstart := 0, 0
	for i := range nTerms {
		end := int(binary.LittleEndian.Uint32(termEnds[4*i:]))
		bend := int(binary.LittleEndian.Uint32(blobEnds[4*i:]))
		if end < start || end > len(all) || bend < bstart || bend > len(blobs) {
			return nil, nil, fmt.Errorf("postings section: term %d out of order or out of bounds", i)
		}
		// A posting takes at least 2 bytes; the decoder sizes its slice by DF.
		if ix.DF[i] < 0 || int(ix.DF[i]) > (bend-bstart)/2 {
			return nil, nil, fmt.Errorf("postings section: term %d claims %d documents in %d bytes", i, ix.DF[i], bend-bstart)
		}
		ix.Terms[i], ix.Blobs[i] = all[start:end], blobs[bstart:bend:bend]
		start, bstart = end, bend
	}
	return ix, r.buf, nil
}

// lastEnd is the last of a section's end offsets (0 for none).
func lastEnd(ends []byte) int {
	if len(ends) == 0 {
		return 0
	}
	return int(binary.LittleEndian.Uint32(ends[len(ends)-4:]))
}

// sectionReader takes fixed-size pieces off the front of buf; the first
// piece that does not fit sets err, and every later one is empty.
type sectionReader struct {
	buf []byte
	err error
}

func (r *sectionReader) take(n int) []byte {
	if r.err != nil || n < 0 || n > len(r.buf) {
		if r.err == nil {
			r.err = errors.New("postings section: truncated")
		}
		return nil
	}
	p := r.buf[:n:n]
	r.buf = r.buf[n:]
	return p
}

func (r *sectionReader) u32() uint32 {
	p := r.take(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}
