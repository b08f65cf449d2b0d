package bm25

import (
	"encoding/binary"
)

// Part is one index of a Concat with the last document of each of its
// terms' postings (LastDocs), which lets Concat re-base a blob by
// re-encoding its first delta alone.
type Part struct {
	Index *Index
	Last  []int32
}

// LastDocs returns, per term of ix, the last document of its postings.
func (ix *Index) LastDocs() []int32 {
	out := make([]int32, len(ix.Terms))
	for id, blob := range ix.Blobs {
		doc := int32(0)
		for len(blob) > 0 {
			d, n := binary.Uvarint(blob)
			if n <= 0 {
				break
			}
			blob = blob[n:]
			_, m := binary.Uvarint(blob)
			if m <= 0 {
				break
			}
			blob = blob[m:]
			doc += int32(d)
		}
		out[id] = doc
	}
	return out
}

// Concat returns the index of the parts' documents one after another:
// document d of part k becomes d plus the number of documents of the
// parts before k. It is the index a Builder given all those documents in
// that order finishes with — the same terms in the same order, document
// frequencies summed, the same blobs (each part's blob is appended with
// only its first delta re-encoded), the lengths concatenated and their
// average taken over all of them — so that scores over the concatenation
// equal those of one build.
func Concat(parts []Part) *Index {
	if len(parts) == 1 {
		return parts[0].Index
	}
	out := &Index{}
	bases := make([]int32, len(parts))
	blobBytes := 0
	for k, p := range parts {
		bases[k] = int32(len(out.DocLen))
		out.DocLen = append(out.DocLen, p.Index.DocLen...)
		for _, b := range p.Index.Blobs {
			blobBytes += len(b) + binary.MaxVarintLen32
		}
	}
	total := 0.0
	for _, l := range out.DocLen {
		total += float64(l)
	}
	if len(out.DocLen) > 0 {
		out.AvgLen = float32(total / float64(len(out.DocLen)))
	}
	buf := make([]byte, 0, blobBytes)
	most := 0
	for _, p := range parts {
		most = max(most, len(p.Index.Terms))
	}
	out.Terms = make([]string, 0, 2*most)
	out.Blobs = make([][]byte, 0, 2*most)
	out.DF = make([]int32, 0, 2*most)
	h := newTermHeap(parts)
	for h.Len() > 0 {
		term := h.top()
		start := len(buf)
		df := int32(0)
		prev := int32(0) // the last document appended for term
		for h.Len() > 0 && h.top() == term {
			k, id := h.pop()
			blob := parts[k].Index.Blobs[id]
			d, n := binary.Uvarint(blob)
			if n <= 0 {
				continue // no postings (the reader refuses such a part)
			}
			buf = binary.AppendUvarint(buf, uint64(bases[k]+int32(d)-prev))
			buf = append(buf, blob[n:]...)
			prev = bases[k] + parts[k].Last[id]
			df += parts[k].Index.DF[id]
		}
		out.Terms = append(out.Terms, term)
		out.Blobs = append(out.Blobs, buf[start:len(buf):len(buf)])
		out.DF = append(out.DF, df)
	}
	return out
}

// termHeap merges the sorted terms of parts: the smallest term first, and
// of equal terms the one of the earlier part. It is a binary heap kept by
// hand over each part's current term (container/heap's interface calls
// were a third of opening a large index).
type termHeap struct {
	parts []Part
	at    []int32     // per part, the next term id
	items []heapEntry // the heap
}

type heapEntry struct {
	term string
	part int
}

func (a heapEntry) less(b heapEntry) bool {
	if a.term != b.term {
		return a.term < b.term
	}
	return a.part < b.part
}

func newTermHeap(parts []Part) *termHeap {
	h := &termHeap{parts: parts, at: make([]int32, len(parts))}
	for k, p := range parts {
		if len(p.Index.Terms) > 0 {
			h.items = append(h.items, heapEntry{term: p.Index.Terms[0], part: k})
		}
	}
	for i := len(h.items)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
	return h
}

func (h *termHeap) Len() int { return len(h.items) }

// top returns the smallest current term.
func (h *termHeap) top() string { return h.items[0].term }

// pop returns the part and term id of the smallest current term and moves
// that part on to its next term.
func (h *termHeap) pop() (int, int32) {
	k := h.items[0].part
	id := h.at[k]
	h.at[k]++
	if terms := h.parts[k].Index.Terms; int(h.at[k]) < len(terms) {
		h.items[0].term = terms[h.at[k]]
	} else {
		last := len(h.items) - 1
		h.items[0] = h.items[last]
		h.items = h.items[:last]
	}
	if len(h.items) > 0 {
		h.down(0)
	}
	return k, id
}

func (h *termHeap) down(i int) {
	n := len(h.items)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && h.items[r].less(h.items[l]) {
			m = r
		}
		if !h.items[m].less(h.items[i]) {
			return
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}
