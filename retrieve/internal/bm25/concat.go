package bm25

import (
	"container/heap"
	"encoding/binary"
	"strings"
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
// of equal terms the one of the earlier part.
type termHeap struct {
	parts []Part
	at    []int32 // per part, the next term id
	order []int   // heap of part numbers
}

func newTermHeap(parts []Part) *termHeap {
	h := &termHeap{parts: parts, at: make([]int32, len(parts))}
	for k, p := range parts {
		if len(p.Index.Terms) > 0 {
			h.order = append(h.order, k)
		}
	}
	heap.Init(h)
	return h
}

func (h *termHeap) Len() int { return len(h.order) }

func (h *termHeap) Less(i, j int) bool {
	a, b := h.order[i], h.order[j]
	if c := strings.Compare(h.term(a), h.term(b)); c != 0 {
		return c < 0
	}
	return a < b
}

func (h *termHeap) Swap(i, j int) { h.order[i], h.order[j] = h.order[j], h.order[i] }
func (h *termHeap) Push(x any)    { h.order = append(h.order, x.(int)) }
func (h *termHeap) Pop() any {
	x := h.order[len(h.order)-1]
	h.order = h.order[:len(h.order)-1]
	return x
}

func (h *termHeap) term(k int) string { return h.parts[k].Index.Terms[h.at[k]] }

// top returns the smallest current term.
func (h *termHeap) top() string { return h.term(h.order[0]) }

// pop returns the part and term id of the smallest current term and moves
// that part on to its next term.
func (h *termHeap) pop() (int, int32) {
	k := h.order[0]
	id := h.at[k]
	h.at[k]++
	if int(h.at[k]) < len(h.parts[k].Index.Terms) {
		heap.Fix(h, 0)
	} else {
		heap.Pop(h)
	}
	return k, id
}
