package tokenize

import (
	"unicode/utf8"
)

// DESIGN: the search index of a large repository spends most of its
// tokenizing time finding words and looking them up in the block's
// vocabulary (the standard library: some 15 million words, of which a
// block meets a few tens of thousands distinct ones). wordTable is that
// lookup: the scanner hashes each word's bytes as it finds its end, so a
// word is read once, and the table is open-addressed with the hash and
// the key's place kept in the slot, so a hit costs one slot and one
// comparison of the word's bytes.

// wordASCII[c] is set for the ASCII bytes words are made of.
var wordASCII = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// wordSlot is one entry of a wordTable; len 0 marks an empty slot (words
// are never empty).
type wordSlot struct {
	hash uint32
	key  uint32 // offset of the word's bytes in wordTable.keys
	off  int32  // the word's term ids are Vocab.wordIDs[off:off+n]
	len  uint8  // of the word, ≤ maxWordLen
	n    uint8
}

// wordTable maps the words of a block to their term ids.
type wordTable struct {
	slots []wordSlot // a power of two, at most half full
	keys  []byte
	count int
}

// find returns the slot of word w with hash h: the word's, or the empty
// one where it goes.
func (t *wordTable) find(w string, h uint32) *wordSlot {
	mask := uint32(len(t.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.len == 0 || (s.hash == h && int(s.len) == len(w) && string(t.keys[s.key:s.key+uint32(s.len)]) == w) {
			return s
		}
	}
}

// insert records word w (hash h, not in t) with its term ids' place.
func (t *wordTable) insert(w string, h uint32, off, n int) {
	if 2*(t.count+1) > len(t.slots) {
		t.grow()
	}
	s := t.find(w, h)
	*s = wordSlot{hash: h, key: uint32(len(t.keys)), off: int32(off), len: uint8(len(w)), n: uint8(n)}
	t.keys = append(t.keys, w...)
	t.count++
}

func (t *wordTable) grow() {
	old := t.slots
	t.slots = make([]wordSlot, max(2*len(old), 1<<12))
	mask := uint32(len(t.slots) - 1)
	for _, s := range old {
		if s.len == 0 {
			continue
		}
		i := s.hash & mask
		for t.slots[i].len != 0 {
			i = (i + 1) & mask
		}
		t.slots[i] = s
	}
}

// scanWords calls fn with each word of text and its hash, the words of
// forEachWord: maximal runs of letters, digits and '_' outside the CJK
// scripts, and the pieces of CJK runs.
func scanWords(text string, fn func(w string, h uint32)) {
	for i := 0; i < len(text); {
		c := text[i]
		if c < utf8.RuneSelf {
			if !wordASCII[c] {
				i++
				continue
			}
		} else if r, size := utf8.DecodeRuneInString(text[i:]); isCJK(r) {
			i = cjkPieces(text, i, func(w string) { fn(w, hashWord(w)) })
			continue
		} else if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		h := uint64(fnvOffset)
		for i < len(text) {
			c := text[i]
			if c < utf8.RuneSelf {
				if !wordASCII[c] {
					break
				}
				h = (h ^ uint64(c)) * fnvPrime
				i++
				continue
			}
			r, size := utf8.DecodeRuneInString(text[i:])
			if !isWordRune(r) || isCJK(r) {
				break
			}
			for _, b := range []byte(text[i : i+size]) {
				h = (h ^ uint64(b)) * fnvPrime
			}
			i += size
		}
		fn(text[start:i], uint32(h^h>>32))
	}
}

// hashWord is the hash scanWords computes while it scans a word.
func hashWord(w string) uint32 {
	h := uint64(fnvOffset)
	for i := 0; i < len(w); i++ {
		h = (h ^ uint64(w[i])) * fnvPrime
	}
	return uint32(h ^ h>>32)
}
