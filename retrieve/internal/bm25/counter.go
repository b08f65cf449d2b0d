package bm25

import "math"

// Counter turns documents, given as term ids of one vocabulary
// (tokenize.Vocab), into postings: Count each field, then End the
// document. Builder.Merge takes its postings over. A Counter is not safe
// for concurrent use; its zero value is ready.
type Counter struct {
	post    [][]Posting // by term id, documents in the order they ended
	docLen  []float32   // by document
	acc     []float64   // by term id: the current document's weighted frequency
	touched []int32     // ids counted in the current document
	length  float64     // of the current document
}

// Count adds the terms ids, of a field of weight w, to the current document.
func (c *Counter) Count(ids []int32, w float64) {
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
func (c *Counter) grow(n int) {
	n = max(n, 2*len(c.acc))
	c.acc, c.post = growZero(c.acc, n), growZero(c.post, n)
}

// End records the current document as doc.
func (c *Counter) End(doc int32) {
	for _, id := range c.touched {
		if c.post[id] == nil {
			// Most terms of a block that occur twice occur more often:
			// room for 4 (32 bytes) saves growing through 1 and 2.
			c.post[id] = make([]Posting, 0, 4)
		}
		// Quantize as the encoding does, so imported and fresh postings agree.
		c.post[id] = append(c.post[id], Posting{Doc: doc, TF: float32(math.Round(c.acc[id]*tfScale)) / tfScale})
		c.acc[id] = 0
	}
	c.touched = c.touched[:0]
	for int(doc) >= len(c.docLen) {
		c.docLen = append(c.docLen, 0)
	}
	c.docLen[doc] = float32(c.length)
	c.length = 0
}

// Reset empties c for another block, keeping the capacity of its slices.
// The posting slices themselves belong to the Builder after the merge
// and are dropped, not reused.
func (c *Counter) Reset() {
	clear(c.post)
	clear(c.acc) // zero unless a block stopped inside a document
	c.docLen, c.touched, c.length = c.docLen[:0], c.touched[:0], 0
}
