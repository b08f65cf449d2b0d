package retrieve

import (
	"strings"

	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// DESIGN: building the search index of a large repository is mostly
// tokenizing (the standard library: some 100 MB of chunk and file text).
// Each block of consecutive files is read, chunked and tokenized by one
// goroutine with a vocabulary (tokenize.Vocab) no other goroutine touches, so no
// lock is shared; a vocabulary goes on from block to block (its counter is
// handed to a later block once merged), so a word is split and stemmed,
// and a term looked up in the index's term table, once per counter rather
// than once per block. A file is tokenized once, line by line (words never span a
// line); its chunks and its whole-file document are then counted from the
// lines' term ids, which gives exactly the terms of tokenizing each
// chunk's text (chunk.FieldsOf) and the capped file text, without building those
// texts. The postings of a block number its chunks and files from 0, and
// assemble shifts them into place (bm25.Builder.Merge).

// fileCounter counts the chunks and whole files of one block.
type fileCounter struct {
	v      *tokenize.Vocab
	chunks bm25.Counter // block-relative chunk numbers
	files  bm25.Counter // block-relative file numbers
	// The merge's cache of v's term ids in the term table tt (see
	// bm25.Builder.Merge), valid as long as v goes on.
	tt      *bm25.TermTable
	termIDs []int32
	// Scratch, reused from file to file.
	lineIDs   []int32 // the term ids of every line, in order
	lineEnd   []int32 // lineIDs[lineEnd[k-1]:lineEnd[k]] are line k's (0-based)
	lineStart []int   // byte offset of line k in the text
	pathIDs   []int32
	ids       []int32
}

func newFileCounter() *fileCounter { return &fileCounter{v: tokenize.NewVocab()} }

// mergeInto hands the block's postings over to chunks and files (its
// chunk and file numbers shifted by chunkBase and fileBase) and resets fc
// for another block of the same build. The vocabulary goes on: a later
// block finds the words this one met already split, stemmed and numbered,
// and the merge finds their terms already looked up. A vocabulary built
// afresh for each block was the larger part of tokenizing (most words of
// a block occur in the blocks before it).
func (fc *fileCounter) mergeInto(chunks, files *bm25.Builder, chunkBase, fileBase int32) {
	if fc.tt != chunks.Table() {
		fc.tt, fc.termIDs = chunks.Table(), fc.termIDs[:0]
	}
	chunks.Merge(fc.v.Terms(), &fc.chunks, chunkBase, &fc.termIDs)
	if files.Table() == chunks.Table() {
		files.Merge(fc.v.Terms(), &fc.files, fileBase, &fc.termIDs)
	} else {
		files.Merge(fc.v.Terms(), &fc.files, fileBase, nil)
	}
	fc.chunks.Reset()
	fc.files.Reset()
}

// add counts one file: its chunks as documents chunkNo, chunkNo+1, … and
// its text (capped at maxFileIndexBytes) as document fileNo. ls is
// lines.Split(text), as the chunks were cut from. The terms are those of
// chunk.FieldsOf for each chunk and of the fields {path, text[:cap]} for
// the file.
func (fc *fileCounter) add(rel, text string, ls []string, chunks []chunk.Chunk, chunkNo, fileNo int32) {
	v := fc.v
	fc.tokenizeLines(text)
	fc.pathIDs = v.AppendPathIDs(fc.pathIDs[:0], rel)
	for j, c := range chunks {
		fc.countChunk(c, ls)
		fc.chunks.End(chunkNo + int32(j))
	}
	fc.files.Count(fc.pathIDs, bm25.WeightPath)
	cut := min(len(text), maxFileIndexBytes)
	for k, s := range fc.lineStart {
		if s >= cut {
			break
		}
		if end := s + lineLen(text, s); end > cut { // the cap falls inside this line
			fc.ids = v.AppendIDs(fc.ids[:0], text[s:cut])
			fc.files.Count(fc.ids, bm25.WeightBody)
			break
		}
		fc.files.Count(fc.line(k), bm25.WeightBody)
	}
	fc.files.End(fileNo)
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
		fc.lineIDs = fc.v.AppendIDs(fc.lineIDs, text[s:e])
		fc.lineEnd = append(fc.lineEnd, int32(len(fc.lineIDs)))
		s = e + 1
	}
}

// countChunk counts the fields of chunk c as chunk.FieldsOf makes them.
func (fc *fileCounter) countChunk(c chunk.Chunk, ls []string) {
	v := fc.v
	if c.Kind != chunk.KindText {
		fc.ids = v.AppendIDs(fc.ids[:0], c.Name+" "+c.Parent+" "+c.QName)
		fc.chunks.Count(fc.ids, bm25.WeightName)
	}
	fc.chunks.Count(fc.pathIDs, bm25.WeightPath)
	n := 0 // the body's length so far, for the chunk.MaxBytes cap
	for _, f := range [2]string{c.Signature, c.Doc} {
		if f != "" {
			fc.ids = v.AppendIDs(fc.ids[:0], f)
			fc.chunks.Count(fc.ids, bm25.WeightBody)
			n += len(f) + 1
		}
	}
	end := min(c.EndLine, len(ls), c.StartLine+chunk.MaxLines-1)
	for i := c.StartLine; i <= end && n <= chunk.MaxBytes; i++ {
		fc.chunks.Count(fc.line(i-1), bm25.WeightBody)
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
