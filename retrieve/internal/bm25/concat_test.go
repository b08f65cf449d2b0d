package bm25

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestConcatEqualsOneBuild: the documents built in parts, cut anywhere,
// and concatenated give the index one builder makes of them all —
// terms, blobs, document frequencies, lengths and average.
func TestConcatEqualsOneBuild(t *testing.T) {
	t.Parallel()
	var docs [][3]string
	for i := range 40 {
		body := fmt.Sprintf("retry upload %d server slow", i%7)
		if i%3 == 0 {
			body += " backoff jitter HTTPServer"
		}
		if i%11 == 0 {
			body = fmt.Sprintf("rare%d", i)
		}
		docs = append(docs, [3]string{fmt.Sprintf("Name%d", i%5), fmt.Sprintf("p%d/f%d.go", i/10, i), body})
	}
	build := func(ds [][3]string) *Index {
		b := NewBuilder()
		for _, d := range ds {
			b.Add(d[0], d[1], d[2])
		}
		return b.Finish()
	}
	want := build(docs)
	for _, cuts := range [][]int{{}, {1}, {20}, {3, 4, 17, 39}, {10, 20, 30}} {
		t.Run(fmt.Sprint(cuts), func(t *testing.T) {
			var parts []Part
			prev := 0
			for _, c := range append(cuts, len(docs)) {
				ix := build(docs[prev:c])
				parts = append(parts, Part{Index: ix, Last: ix.LastDocs()})
				prev = c
			}
			got := Concat(parts)
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Index{})); diff != "" {
				t.Errorf("concatenation (-one build +parts):\n%s", diff)
			}
		})
	}
}
