package retrieve

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
)

// DESIGN: building the search index of a large repository is mostly
// tokenizing (the standard library: some 100 MB of chunk and file text).
// Each block of consecutive files is read, chunked and tokenized by one
// goroutine with a vocabulary (vocab) no other goroutine touches, so no
// lock is shared; a vocabulary goes on from block to block (its counter is
// handed to a later block once merged), so a word is split and stemmed,
// and a term looked up in the index's term table, once per counter rather
// than once per block. A file is tokenized once, line by line (words never span a
// line); its chunks and its whole-file document are then counted from the
// lines' term ids, which gives exactly the terms of tokenizing each
// chunk's text (textOf) and the capped file text, without building those
// texts. The postings of a block number its chunks and files from 0, and
// assemble shifts them into place (lexBuilder.merge).

// vocab numbers the terms of the blocks of files one counter counts. It also remembers the
// terms of each distinct word it met: identifiers repeat, and a word seen
// before costs one lookup instead of being lower-cased, split, stemmed
// and looked up term by term.
type vocab struct {
	tk      tokenizer
	ids     map[string]int32
	terms   []string // by id; copies, so that a term does not pin a file's text
	words   wordTable
	wordIDs []int32 // the term ids of the words, wordSlot locates them
	out     []int32 // where add appends
	add     func([]byte)
	word    func(string, uint32)
}

func newVocab() *vocab {
	v := &vocab{ids: map[string]int32{}}
	v.words.grow()
	v.add = func(t []byte) {
		id, ok := v.ids[string(t)]
		if !ok {
			s := string(t)
			id = int32(len(v.terms))
			v.ids[s] = id
			v.terms = append(v.terms, s)
		}
		v.out = append(v.out, id)
	}
	v.word = func(w string, h uint32) {
		if len(w) > maxWordLen {
			return // no terms; and such runs are data, rarely repeated
		}
		if s := v.words.find(w, h); s.len != 0 {
			v.out = append(v.out, v.wordIDs[s.off:s.off+int32(s.n)]...)
			return
		}
		start := len(v.out)
		v.tk.wordTerms(w, v.add)
		v.words.insert(w, h, len(v.wordIDs), len(v.out)-start)
		v.wordIDs = append(v.wordIDs, v.out[start:]...)
	}
	return v
}

// appendIDs appends the ids of Tokenize(text) to dst.
func (v *vocab) appendIDs(dst []int32, text string) []int32 {
	v.out = dst
	scanWords(text, v.word)
	dst, v.out = v.out, nil
	return dst
}

// appendPathIDs appends the ids of TokenizePath(p) to dst.
func (v *vocab) appendPathIDs(dst []int32, p string) []int32 {
	v.out = dst
	v.tk.pathTerms(p, v.add)
	dst, v.out = v.out, nil
	return dst
}

// docCounter turns documents, given as term ids of one vocab, into
// postings: count each field, then end the document.
type docCounter struct {
	post    [][]posting // by term id, documents in the order they ended
	docLen  []float32   // by document
	acc     []float64   // by term id: the current document's weighted frequency
	touched []int32     // ids counted in the current document
	length  float64     // of the current document
}

// count adds the terms ids, of a field of weight w, to the current document.
func (c *docCounter) count(ids []int32, w float64) {
	for _, id := range ids {
		if int(id) >= len(c.acc) {
			c.grow(int(id) + 1)
		}
		if c.acc[id] == 0 {
			c.touched = append(c.touched, id)
		}
		c.acc[id] += w
	}
	c.length += w * float64(len(ids))
}

// grow makes room for n term ids.
func (c *docCounter) grow(n int) {
	n = max(n, 2*len(c.acc))
	c.acc, c.post = growZero(c.acc, n), growZero(c.post, n)
}

// end records the current document as doc.
func (c *docCounter) end(doc int32) {
	for _, id := range c.touched {
		if c.post[id] == nil {
			// Most terms of a block that occur twice occur more often:
			// room for 4 (32 bytes) saves growing through 1 and 2.
			c.post[id] = make([]posting, 0, 4)
		}
		// Quantize as the encoding does, so imported and fresh postings agree.
		c.post[id] = append(c.post[id], posting{doc: doc, tf: float32(math.Round(c.acc[id]*tfScale)) / tfScale})
		c.acc[id] = 0
	}
	c.touched = c.touched[:0]
	for int(doc) >= len(c.docLen) {
		c.docLen = append(c.docLen, 0)
	}
	c.docLen[doc] = float32(c.length)
	c.length = 0
}

// fileCounter counts the chunks and whole files of one block.
type fileCounter struct {
	v      *vocab
	chunks docCounter // block-relative chunk numbers
	files  docCounter // block-relative file numbers
	// The merge's cache of v's term ids in the termTable tt (see
	// lexBuilder.merge), valid as long as v goes on.
	tt      *termTable
	termIDs []int32
	// Scratch, reused from file to file.
	lineIDs   []int32 // the term ids of every line, in order
	lineEnd   []int32 // lineIDs[lineEnd[k-1]:lineEnd[k]] are line k's (0-based)
	lineStart []int   // byte offset of line k in the text
	pathIDs   []int32
	ids       []int32
}

func newFileCounter() *fileCounter { return &fileCounter{v: newVocab()} }

// mergeInto hands the block's postings over to chunks and files (its
// chunk and file numbers shifted by chunkBase and fileBase) and resets fc
// for another block of the same build. The vocabulary goes on: a later
// block finds the words this one met already split, stemmed and numbered,
// and the merge finds their terms already looked up. A vocabulary built
// afresh for each block was the larger part of tokenizing (most words of
// a block occur in the blocks before it).
func (fc *fileCounter) mergeInto(chunks, files *lexBuilder, chunkBase, fileBase int32) {
	if fc.tt != chunks.tt {
		fc.tt, fc.termIDs = chunks.tt, fc.termIDs[:0]
	}
	chunks.merge(fc.v.terms, &fc.chunks, chunkBase, &fc.termIDs)
	if files.tt == chunks.tt {
		files.merge(fc.v.terms, &fc.files, fileBase, &fc.termIDs)
	} else {
		files.merge(fc.v.terms, &fc.files, fileBase, nil)
	}
	fc.chunks.reset()
	fc.files.reset()
}

// reset empties c for another block, keeping the capacity of its slices.
// The posting slices themselves belong to the lexBuilder after the merge
// and are dropped, not reused.
func (c *docCounter) reset() {
	clear(c.post)
	clear(c.acc) // zero unless a block stopped inside a document
	c.docLen, c.touched, c.length = c.docLen[:0], c.touched[:0], 0
}

// add counts one file: its chunks as documents chunkNo, chunkNo+1, … and
// its text (capped at maxFileIndexBytes) as document fileNo. ls is
// lines.Split(text), as the chunks were cut from. The terms are those of
// textOf for each chunk and of chunkText{path, text[:cap]} for the file.
func (fc *fileCounter) add(rel, text string, ls []string, chunks []Chunk, chunkNo, fileNo int32) {
	v := fc.v
	fc.tokenizeLines(text)
	fc.pathIDs = v.appendPathIDs(fc.pathIDs[:0], rel)
	for j, c := range chunks {
		fc.countChunk(c, ls)
		fc.chunks.end(chunkNo + int32(j))
	}
	fc.files.count(fc.pathIDs, weightPath)
	cut := min(len(text), maxFileIndexBytes)
	for k, s := range fc.lineStart {
		if s >= cut {
			break
		}
		if end := s + lineLen(text, s); end > cut { // the cap falls inside this line
			fc.ids = v.appendIDs(fc.ids[:0], text[s:cut])
			fc.files.count(fc.ids, weightBody)
			break
		}
		fc.files.count(fc.line(k), weightBody)
	}
	fc.files.end(fileNo)
}

// tokenizeLines fills lineIDs, lineEnd and lineStart with the terms of
// each line of text.
func (fc *fileCounter) tokenizeLines(text string) {
	fc.lineIDs, fc.lineEnd, fc.lineStart = fc.lineIDs[:0], fc.lineEnd[:0], fc.lineStart[:0]
	for s := 0; s < len(text); {
		e := strings.IndexByte(text[s:], '\n')
		if e < 0 {
			e = len(text)
		} else {
			e += s
		}
		fc.lineStart = append(fc.lineStart, s)
		fc.lineIDs = fc.v.appendIDs(fc.lineIDs, text[s:e])
		fc.lineEnd = append(fc.lineEnd, int32(len(fc.lineIDs)))
		s = e + 1
	}
}

// countChunk counts the fields of chunk c as textOf makes them.
func (fc *fileCounter) countChunk(c Chunk, ls []string) {
	v := fc.v
	if c.Kind != ChunkText {
		fc.ids = v.appendIDs(fc.ids[:0], c.Name+" "+c.Parent+" "+c.QName)
		fc.chunks.count(fc.ids, weightName)
	}
	fc.chunks.count(fc.pathIDs, weightPath)
	n := 0 // the body's length so far, for the maxChunkBytes cap
	for _, f := range [2]string{c.Signature, c.Doc} {
		if f != "" {
			fc.ids = v.appendIDs(fc.ids[:0], f)
			fc.chunks.count(fc.ids, weightBody)
			n += len(f) + 1
		}
	}
	end := min(c.EndLine, len(ls), c.StartLine+maxChunkLines-1)
	for i := c.StartLine; i <= end && n <= maxChunkBytes; i++ {
		fc.chunks.count(fc.line(i-1), weightBody)
		n += len(ls[i-1]) + 1
	}
}

// line returns the term ids of line k (0-based).
func (fc *fileCounter) line(k int) []int32 {
	start := int32(0)
	if k > 0 {
		start = fc.lineEnd[k-1]
	}
	return fc.lineIDs[start:fc.lineEnd[k]]
}

// lineLen is the length of the line starting at s, without its newline.
func lineLen(text string, s int) int {
	if e := strings.IndexByte(text[s:], '\n'); e >= 0 {
		return e
	}
	return len(text) - s
}

// chunkHash is hashString(textOf(c, ls).embedText(c)), the chunk's
// embeddings cache key, made from the first maxEmbedBytes of that text
// only. buf is scratch.
func chunkHash(c Chunk, ls []string, buf []byte) (string, []byte) {
	buf = append(buf[:0], c.Path...)
	buf = append(buf, '\n')
	if c.Signature != "" {
		buf = append(append(buf, c.Signature...), '\n')
	}
	if c.Doc != "" {
		buf = append(append(buf, c.Doc...), '\n')
	}
	// textOf stops adding lines past maxChunkBytes, far beyond the
	// maxEmbedBytes kept here.
	end := min(c.EndLine, len(ls), c.StartLine+maxChunkLines-1)
	for i := c.StartLine; i <= end && len(buf) < maxEmbedBytes; i++ {
		buf = append(append(buf, ls[i-1]...), '\n')
	}
	h := sha256.Sum256(buf[:min(len(buf), maxEmbedBytes)])
	return hex.EncodeToString(h[:12]), buf
}
