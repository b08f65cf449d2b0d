// Package bm25 owns the lexical indexes of the search index: BM25F over
// fields of weighted term frequency (WeightName, WeightPath, WeightBody),
// postings kept per term as varint blobs and decoded only when a query
// uses the term (Index), their assembly from documents counted in any
// order, possibly on many goroutines (Counter, Builder), the expansion of
// a query term absent from the vocabulary to the terms that contain it
// (trigram index), and scoring (Index.Search). Terms come from package
// tokenize; how the postings are laid out in the index file is package
// diskindex's.
package bm25

import (
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// Field weights of the lexical index (a simplified BM25F: the term frequency
// of a chunk is the weighted sum over its fields, and so is its length).
// Names and paths are short and precise; bodies are long and noisy.
const (
	WeightName = 3.0
	WeightPath = 1.5
	WeightBody = 1.0
	bm25K1     = 1.2
	bm25B      = 0.75
	tfScale    = 4 // term frequencies are stored as round(tf*tfScale)
)

// Index is the inverted index. Postings are stored per term as a varint
// blob (doc delta, scaled tf) and decoded only when a query uses the term,
// so loading an index is a copy, not a rebuild.
type Index struct {
	Terms  []string  // sorted
	Blobs  [][]byte  // postings of Terms[i]
	DF     []int32   // document frequency of Terms[i]
	DocLen []float32 // weighted length per chunk
	AvgLen float32

	once   sync.Once
	lookup map[string]int32
	tri    map[string][]int32 // trigram → term ids, built on first use
	triMu  sync.Once
}

// Posting is one document of a term's postings with the term's
// frequency in it (weighted by field, quantized as stored).
type Posting struct {
	Doc int32
	TF  float32
}

// Builder accumulates raw postings; docs may arrive in any order (new
// chunks are tokenized per block of files and merged, unchanged ones
// imported from the previous index) and Finish sorts and encodes them.
type Builder struct {
	tt     *TermTable  // may be shared with other builders (NewBuilders)
	post   [][]Posting // by term id of tt
	docLen []float32
	// What Add tokenizes, merged by Flush.
	vocab   *tokenize.Vocab
	own     *Counter
	scratch []int32
}

// TermTable numbers the terms of one or more Builders: the chunk and
// whole-file indexes of a build share one, so a term is looked up and
// sorted once for both.
type TermTable struct {
	ids   map[string]int32 // term → index in terms
	terms []string
	once  sync.Once
	order []int32 // the ids in term order, for Finish
}

func NewBuilder() *Builder { return NewBuilders(1)[0] }

// NewBuilders returns n builders sharing one TermTable. Their finish
// may run concurrently once every builder's Add and Merge are over.
func NewBuilders(n int) []*Builder {
	tt := &TermTable{ids: map[string]int32{}}
	out := make([]*Builder, n)
	for i := range out {
		out[i] = &Builder{tt: tt}
	}
	return out
}

// termIndex returns the id of term t in b.tt, adding it, with room for
// its postings in b.post.
func (b *Builder) termIndex(t string) int32 {
	tt := b.tt
	id, ok := tt.ids[t]
	if !ok {
		id = int32(len(tt.terms))
		tt.ids[t] = id
		tt.terms = append(tt.terms, t)
	}
	if int(id) >= len(b.post) {
		b.post = growZero(b.post, len(tt.terms))
	}
	return id
}

// growZero returns s extended with zero values to length n (amortized, as
// append grows).
func growZero[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	old := len(s)
	s = slices.Grow(s, n-old)[:n]
	clear(s[old:])
	return s
}

// sorted returns the ids of tt in term order; tt must not change after.
func (tt *TermTable) sorted() []int32 {
	tt.once.Do(func() {
		tt.order = make([]int32, len(tt.terms))
		for i := range tt.order {
			tt.order[i] = int32(i)
		}
		slices.SortFunc(tt.order, func(x, y int32) int { return strings.Compare(tt.terms[x], tt.terms[y]) })
	})
	return tt.order
}

// Table returns the term table b numbers its terms in, shared with the
// builders NewBuilders made with it.
func (b *Builder) Table() *TermTable { return b.tt }

// Add tokenizes the next document from its fields: a term's frequency is
// its weighted count over the fields (BM25F), and so is the document's
// length.
func (b *Builder) Add(name, path, body string) {
	doc := int32(len(b.docLen))
	if b.own == nil {
		b.vocab, b.own = tokenize.NewVocab(), &Counter{}
	}
	b.scratch = b.vocab.AppendIDs(b.scratch[:0], name)
	b.own.Count(b.scratch, WeightName)
	b.scratch = b.vocab.AppendPathIDs(b.scratch[:0], path)
	b.own.Count(b.scratch, WeightPath)
	b.scratch = b.vocab.AppendIDs(b.scratch[:0], body)
	b.own.Count(b.scratch, WeightBody)
	b.own.End(doc)
	b.setLen(doc, b.own.docLen[doc])
}

func (b *Builder) setLen(doc int32, l float32) {
	for int(doc) >= len(b.docLen) {
		b.docLen = append(b.docLen, 0)
	}
	b.docLen[doc] = l
}

// Merge adds the documents c counted over terms, renumbered by base (c's
// document d becomes base+d). c's postings are handed over, not copied.
// ids, when not nil, remembers for each of terms 1 + its index in b (0:
// not looked up yet): a vocabulary that goes on from block to block looks
// each of its terms up in b once, not once per block.
func (b *Builder) Merge(terms []string, c *Counter, base int32, ids *[]int32) {
	for d, l := range c.docLen {
		if l != 0 { // a document c did not count (an imported one) stays as it is
			b.setLen(base+int32(d), l)
		}
	}
	for id, ps := range c.post {
		if len(ps) == 0 {
			continue
		}
		if base != 0 {
			for i := range ps {
				ps[i].Doc += base
			}
		}
		if i := b.cachedIndex(terms, id, ids); b.post[i] == nil {
			b.post[i] = ps
		} else {
			b.post[i] = append(b.post[i], ps...)
		}
	}
}

// cachedIndex is termIndex(terms[id]) through the cache ids (see Merge),
// which holds ids of b.tt: builders sharing a TermTable share caches.
func (b *Builder) cachedIndex(terms []string, id int, ids *[]int32) int32 {
	if ids == nil {
		return b.termIndex(terms[id])
	}
	if id < len(*ids) {
		if i := (*ids)[id]; i != 0 {
			if int(i) > len(b.post) {
				b.post = growZero(b.post, len(b.tt.terms))
			}
			return i - 1
		}
	} else {
		*ids = growZero(*ids, len(terms))
	}
	i := b.termIndex(terms[id])
	(*ids)[id] = i + 1
	return i
}

// ImportDocs copies the postings and lengths of old's documents into b,
// renumbered by remap (old doc → new doc, −1 to drop), without
// tokenizing anything: unchanged files cost one pass over old postings.
func (b *Builder) ImportDocs(old *Index, remap []int32) {
	for d, nd := range remap {
		if nd >= 0 {
			b.setLen(nd, old.DocLen[d])
		}
	}
	for id, term := range old.Terms {
		i := int32(-1)
		for _, p := range old.Postings(int32(id)) {
			if nd := remap[p.Doc]; nd >= 0 {
				if i < 0 {
					i = b.termIndex(term)
				}
				b.post[i] = append(b.post[i], Posting{Doc: nd, TF: p.TF})
			}
		}
	}
}

// Flush merges what Add counted; Finish does it too, but
// builders sharing a TermTable must flush before they finish concurrently.
func (b *Builder) Flush() {
	if b.own != nil {
		b.Merge(b.vocab.Terms(), b.own, 0, nil)
		b.vocab, b.own = nil, nil
	}
}

// Finish sorts the terms and encodes each term's postings, sorted by
// document, as a varint blob: the terms are split among the cores.
func (b *Builder) Finish() *Index {
	b.Flush()
	ix := &Index{DocLen: b.docLen}
	all := b.tt.sorted()
	order := make([]int32, 0, len(all))
	for _, id := range all {
		if int(id) < len(b.post) && len(b.post[id]) > 0 {
			order = append(order, id)
		}
	}
	ix.Terms = make([]string, len(order))
	ix.Blobs = make([][]byte, len(order))
	ix.DF = make([]int32, len(order))
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var buf [2 * binary.MaxVarintLen32]byte
			for k := w * len(order) / workers; k < (w+1)*len(order)/workers; k++ {
				ps := b.post[order[k]]
				if !slices.IsSortedFunc(ps, func(a, b Posting) int { return int(a.Doc - b.Doc) }) {
					slices.SortFunc(ps, func(a, b Posting) int { return int(a.Doc - b.Doc) })
				}
				blob := make([]byte, 0, len(ps)*3)
				prev := int32(0)
				for _, p := range ps {
					n := binary.PutUvarint(buf[:], uint64(p.Doc-prev))
					n += binary.PutUvarint(buf[n:], uint64(math.Round(float64(p.TF)*tfScale)))
					blob = append(blob, buf[:n]...)
					prev = p.Doc
				}
				ix.Terms[k], ix.Blobs[k], ix.DF[k] = b.tt.terms[order[k]], blob, int32(len(ps))
			}
		})
	}
	wg.Wait()
	total := 0.0
	for _, l := range b.docLen {
		total += float64(l)
	}
	if len(b.docLen) > 0 {
		ix.AvgLen = float32(total / float64(len(b.docLen)))
	}
	return ix
}

// TermID returns the id of term t, if the index has it.
func (ix *Index) TermID(t string) (int32, bool) {
	ix.once.Do(func() {
		ix.lookup = make(map[string]int32, len(ix.Terms))
		for i, t := range ix.Terms {
			ix.lookup[t] = int32(i)
		}
	})
	id, ok := ix.lookup[t]
	return id, ok
}

// Postings decodes the postings of term id.
func (ix *Index) Postings(id int32) []Posting {
	blob := ix.Blobs[id]
	out := make([]Posting, 0, ix.DF[id])
	doc := int32(0)
	for len(blob) > 0 {
		d, n := binary.Uvarint(blob)
		blob = blob[n:]
		tf, m := binary.Uvarint(blob)
		blob = blob[m:]
		doc += int32(d)
		out = append(out, Posting{Doc: doc, TF: float32(tf) / tfScale})
	}
	return out
}

// idf is the BM25 inverse document frequency of term id.
func (ix *Index) idf(id int32) float64 {
	n := float64(len(ix.DocLen))
	df := float64(ix.DF[id])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// QueryTerm is one term of a lexical query with its weight (1 for terms the
// query contains, less for trigram expansions).
type QueryTerm struct {
	Term   string
	ID     int32
	Weight float64
	Orig   string // the query word it came from
}

// Expand maps the query's terms to index terms: present terms as is; an
// absent term of at least four characters (a partial identifier, a
// misspelled or truncated name, an error code) to the index terms that
// contain it, found through a trigram index over the vocabulary.
func (ix *Index) Expand(terms []string) []QueryTerm {
	var out []QueryTerm
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		if id, ok := ix.TermID(t); ok {
			out = append(out, QueryTerm{Term: t, ID: id, Weight: 1, Orig: t})
			continue
		}
		if len(t) < 4 {
			continue
		}
		for _, id := range ix.containing(t, 8) {
			if !seen[ix.Terms[id]] {
				out = append(out, QueryTerm{Term: ix.Terms[id], ID: id, Weight: 0.5, Orig: t})
			}
		}
	}
	return out
}

// containing returns up to limit ids of vocabulary terms containing sub,
// shortest (closest) first.
func (ix *Index) containing(sub string, limit int) []int32 {
	ix.triMu.Do(func() {
		ix.tri = map[string][]int32{}
		for i, t := range ix.Terms {
			if len(t) > 32 {
				continue
			}
			seen := map[string]bool{}
			for j := 0; j+3 <= len(t); j++ {
				g := t[j : j+3]
				if !seen[g] {
					seen[g] = true
					ix.tri[g] = append(ix.tri[g], int32(i))
				}
			}
		}
	})
	var cand []int32
	for j := 0; j+3 <= len(sub); j++ {
		list := ix.tri[sub[j:j+3]]
		if cand == nil || len(list) < len(cand) {
			cand = list
		}
		if len(list) == 0 {
			return nil
		}
	}
	var out []int32
	for _, id := range cand {
		if strings.Contains(ix.Terms[id], sub) {
			out = append(out, id)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := ix.Terms[out[i]], ix.Terms[out[j]]
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	if len(out) > limit {
		out = out[:limit]
	}
	return out
}

// Hit is one scored document with the query words it matched.
type Hit struct {
	Doc     int32
	Score   float64
	Matched []string // the query words (QueryTerm.Orig) it matched
}

// Search scores every document accepted by keep (nil: all) against terms with
// BM25 and returns the best limit hits, best first.
func (ix *Index) Search(terms []QueryTerm, keep func(int32) bool, limit int) []Hit {
	if len(ix.DocLen) == 0 || len(terms) == 0 {
		return nil
	}
	n := len(ix.DocLen)
	scores := make([]float64, n)
	masks := make([]uint64, n)
	var touched []int32
	avg := float64(ix.AvgLen)
	for qi, qt := range terms {
		idf := ix.idf(qt.ID) * qt.Weight
		for _, p := range ix.Postings(qt.ID) {
			if keep != nil && !keep(p.Doc) {
				continue
			}
			tf := float64(p.TF)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.DocLen[p.Doc])/avg)
			if scores[p.Doc] == 0 {
				touched = append(touched, p.Doc)
			}
			scores[p.Doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
			if qi < 64 {
				masks[p.Doc] |= 1 << qi
			}
		}
	}
	hits := make([]Hit, 0, len(touched))
	for _, d := range touched {
		hits = append(hits, Hit{Doc: d, Score: scores[d]})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc < hits[j].Doc
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		m := masks[hits[i].Doc]
		seen := map[string]bool{}
		for qi, qt := range terms {
			if qi < 64 && m&(1<<qi) != 0 && !seen[qt.Orig] {
				seen[qt.Orig] = true
				hits[i].Matched = append(hits[i].Matched, qt.Orig)
			}
		}
	}
	return hits
}
