package bm25

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// build indexes bodies as documents 0, 1, … (name and path empty).
func build(bodies ...string) *Index {
	b := NewBuilder()
	for _, s := range bodies {
		b.Add("", "", s)
	}
	return b.Finish()
}

func TestExpand(t *testing.T) {
	t.Parallel()
	ix := build("parseConfig reads the configuration", "retryUpload retries the upload")
	got := ix.Expand([]string{"upload", "onfig", "zzzz", "xy", "upload"})
	var terms []string
	for _, q := range got {
		terms = append(terms, q.Term+"/"+q.Orig)
		if q.Term == q.Orig && q.Weight != 1 || q.Term != q.Orig && q.Weight != 0.5 {
			t.Errorf("%s: weight %v", q.Term, q.Weight)
		}
	}
	// Present terms as they are, once; an absent one of four letters or
	// more to the terms containing it, shortest first; others dropped.
	want := []string{"upload/upload", "config/onfig", "parseconfig/onfig", "configuration/onfig"}
	if diff := cmp.Diff(want, terms); diff != "" {
		t.Errorf("Expand (-want +got):\n%s", diff)
	}
}

func TestSearch(t *testing.T) {
	t.Parallel()
	ix := build("the upload is stopped", "upload upload retry policy", "nothing of the kind")
	hits := ix.Search(ix.Expand(tokenize.Text("retry upload")), nil, 10)
	var docs []int32
	for _, h := range hits {
		docs = append(docs, h.Doc)
	}
	if diff := cmp.Diff([]int32{1, 0}, docs); diff != "" {
		t.Fatalf("hits (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"retry", "upload"}, hits[0].Matched); diff != "" {
		t.Errorf("matched (-want +got):\n%s", diff)
	}
	if got := ix.Search(ix.Expand(tokenize.Text("retry upload")), func(d int32) bool { return d != 1 }, 10); len(got) != 1 || got[0].Doc != 0 {
		t.Errorf("keep: hits %+v, want document 0 only", got)
	}
}

// TestCounterMerge: documents counted by Counters over their own
// vocabularies and merged at a base give the index Add gives, whatever
// the order of the merges.
func TestCounterMerge(t *testing.T) {
	t.Parallel()
	bodies := []string{"HTTPServer parses retries", "retry the upload", "größe straße größe", "upload HTTPServer"}
	want := build(bodies...)
	got := NewBuilder()
	for _, half := range [][2]int{{2, 4}, {0, 2}} {
		v, c := tokenize.NewVocab(), &Counter{}
		for d, body := range bodies[half[0]:half[1]] {
			c.Count(v.AppendPathIDs(nil, ""), WeightPath)
			c.Count(v.AppendIDs(nil, body), WeightBody)
			c.End(int32(d))
		}
		got.Merge(v.Terms(), c, int32(half[0]), nil)
	}
	if diff := cmp.Diff(want, got.Finish(), cmpopts.IgnoreUnexported(Index{})); diff != "" {
		t.Errorf("index (-Add +Counter and Merge):\n%s", diff)
	}
}
