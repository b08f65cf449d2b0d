package retrieve

import (
	"encoding/binary"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Field weights of the lexical index (a simplified BM25F: the term frequency
// of a chunk is the weighted sum over its fields, and so is its length).
// Names and paths are short and precise; bodies are long and noisy.
const (
	weightName = 3.0
	weightPath = 1.5
	weightBody = 1.0
	bm25K1     = 1.2
	bm25B      = 0.75
	tfScale    = 4 // term frequencies are stored as round(tf*tfScale)
)

// lexIndex is the inverted index. Postings are stored per term as a varint
// blob (doc delta, scaled tf) and decoded only when a query uses the term,
// so loading an index is a copy, not a rebuild.
type lexIndex struct {
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

type posting struct {
	doc int32
	tf  float32
}

// lexBuilder accumulates raw postings; docs may arrive in any order (new
// chunks are tokenized per block of files, see fileCounter, unchanged ones
// imported from the previous index) and finish sorts and encodes them.
type lexBuilder struct {
	tt     *termTable  // may be shared with other builders (newLexBuilders)
	post   [][]posting // by term id of tt
	docLen []float32
	// What add and addDoc tokenize, merged by finish.
	vocab   *vocab
	own     *docCounter
	scratch []int32
}

// termTable numbers the terms of one or more lexBuilders: the chunk and
// whole-file indexes of a build share one, so a term is looked up and
// sorted once for both.
type termTable struct {
	ids   map[string]int32 // term → index in terms
	terms []string
	once  sync.Once
	order []int32 // the ids in term order, for finish
}

func newLexBuilder() *lexBuilder { return newLexBuilders(1)[0] }

// newLexBuilders returns n builders sharing one termTable. Their finish
// may run concurrently once every builder's add and merge are over.
func newLexBuilders(n int) []*lexBuilder {
	tt := &termTable{ids: map[string]int32{}}
	out := make([]*lexBuilder, n)
	for i := range out {
		out[i] = &lexBuilder{tt: tt}
	}
	return out
}

// termIndex returns the id of term t in b.tt, adding it, with room for
// its postings in b.post.
func (b *lexBuilder) termIndex(t string) int32 {
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
func (tt *termTable) sorted() []int32 {
	tt.once.Do(func() {
		tt.order = make([]int32, len(tt.terms))
		for i := range tt.order {
			tt.order[i] = int32(i)
		}
		slices.SortFunc(tt.order, func(x, y int32) int { return strings.Compare(tt.terms[x], tt.terms[y]) })
	})
	return tt.order
}

// add indexes t as the next document.
func (b *lexBuilder) add(t chunkText) { b.addDoc(int32(len(b.docLen)), t) }

// addDoc tokenizes t as document doc: a term's frequency is its weighted
// count over the fields (BM25F), and so is the document's length.
func (b *lexBuilder) addDoc(doc int32, t chunkText) {
	if b.own == nil {
		b.vocab, b.own = newVocab(), &docCounter{}
	}
	b.scratch = b.vocab.appendIDs(b.scratch[:0], t.name)
	b.own.count(b.scratch, weightName)
	b.scratch = b.vocab.appendPathIDs(b.scratch[:0], t.path)
	b.own.count(b.scratch, weightPath)
	b.scratch = b.vocab.appendIDs(b.scratch[:0], t.body)
	b.own.count(b.scratch, weightBody)
	b.own.end(doc)
	b.setLen(doc, b.own.docLen[doc])
}

func (b *lexBuilder) setLen(doc int32, l float32) {
	for int(doc) >= len(b.docLen) {
		b.docLen = append(b.docLen, 0)
	}
	b.docLen[doc] = l
}

// merge adds the documents c counted over terms, renumbered by base (c's
// document d becomes base+d). c's postings are handed over, not copied.
// ids, when not nil, remembers for each of terms 1 + its index in b (0:
// not looked up yet): a vocabulary that goes on from block to block looks
// each of its terms up in b once, not once per block.
func (b *lexBuilder) merge(terms []string, c *docCounter, base int32, ids *[]int32) {
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
				ps[i].doc += base
			}
		}
		if i := b.cachedIndex(terms, id, ids); b.post[i] == nil {
			b.post[i] = ps
		} else {
			b.post[i] = append(b.post[i], ps...)
		}
	}
}

// cachedIndex is termIndex(terms[id]) through the cache ids (see merge),
// which holds ids of b.tt: builders sharing a termTable share caches.
func (b *lexBuilder) cachedIndex(terms []string, id int, ids *[]int32) int32 {
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

// importDocs copies the postings and lengths of old's documents into b,
// renumbered by remap (old doc → new doc, −1 to drop), without
// tokenizing anything: unchanged files cost one pass over old postings.
func (b *lexBuilder) importDocs(old *lexIndex, remap []int32) {
	for d, nd := range remap {
		if nd >= 0 {
			b.setLen(nd, old.DocLen[d])
		}
	}
	for id, term := range old.Terms {
		i := int32(-1)
		for _, p := range old.postings(int32(id)) {
			if nd := remap[p.doc]; nd >= 0 {
				if i < 0 {
					i = b.termIndex(term)
				}
				b.post[i] = append(b.post[i], posting{doc: nd, tf: p.tf})
			}
		}
	}
}

// flush merges what add and addDoc counted; finish does it too, but
// builders sharing a termTable must flush before they finish concurrently.
func (b *lexBuilder) flush() {
	if b.own != nil {
		b.merge(b.vocab.terms, b.own, 0, nil)
		b.vocab, b.own = nil, nil
	}
}

// finish sorts the terms and encodes each term's postings, sorted by
// document, as a varint blob: the terms are split among the cores.
func (b *lexBuilder) finish() *lexIndex {
	b.flush()
	ix := &lexIndex{DocLen: b.docLen}
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
				if !slices.IsSortedFunc(ps, func(a, b posting) int { return int(a.doc - b.doc) }) {
					slices.SortFunc(ps, func(a, b posting) int { return int(a.doc - b.doc) })
				}
				blob := make([]byte, 0, len(ps)*3)
				prev := int32(0)
				for _, p := range ps {
					n := binary.PutUvarint(buf[:], uint64(p.doc-prev))
					n += binary.PutUvarint(buf[n:], uint64(math.Round(float64(p.tf)*tfScale)))
					blob = append(blob, buf[:n]...)
					prev = p.doc
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

func (ix *lexIndex) termID(t string) (int32, bool) {
	ix.once.Do(func() {
		ix.lookup = make(map[string]int32, len(ix.Terms))
		for i, t := range ix.Terms {
			ix.lookup[t] = int32(i)
		}
	})
	id, ok := ix.lookup[t]
	return id, ok
}

// postings decodes the postings of term id.
func (ix *lexIndex) postings(id int32) []posting {
	blob := ix.Blobs[id]
	out := make([]posting, 0, ix.DF[id])
	doc := int32(0)
	for len(blob) > 0 {
		d, n := binary.Uvarint(blob)
		blob = blob[n:]
		tf, m := binary.Uvarint(blob)
		blob = blob[m:]
		doc += int32(d)
		out = append(out, posting{doc: doc, tf: float32(tf) / tfScale})
	}
	return out
}

// idf is the BM25 inverse document frequency of term id.
func (ix *lexIndex) idf(id int32) float64 {
	n := float64(len(ix.DocLen))
	df := float64(ix.DF[id])
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// queryTerm is one term of a lexical query with its weight (1 for terms the
// query contains, less for trigram expansions).
type queryTerm struct {
	term   string
	id     int32
	weight float64
	orig   string // the query word it came from
}

// expand maps the query's terms to index terms: present terms as is; an
// absent term of at least four characters (a partial identifier, a
// misspelled or truncated name, an error code) to the index terms that
// contain it, found through a trigram index over the vocabulary.
func (ix *lexIndex) expand(terms []string) []queryTerm {
	var out []queryTerm
	seen := map[string]bool{}
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		if id, ok := ix.termID(t); ok {
			out = append(out, queryTerm{term: t, id: id, weight: 1, orig: t})
			continue
		}
		if len(t) < 4 {
			continue
		}
		for _, id := range ix.containing(t, 8) {
			if !seen[ix.Terms[id]] {
				out = append(out, queryTerm{term: ix.Terms[id], id: id, weight: 0.5, orig: t})
			}
		}
	}
	return out
}

// containing returns up to limit ids of vocabulary terms containing sub,
// shortest (closest) first.
func (ix *lexIndex) containing(sub string, limit int) []int32 {
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

// lexHit is one scored chunk with the query words it matched.
type lexHit struct {
	doc     int32
	score   float64
	matched []string
}

// search scores every chunk accepted by keep (nil: all) against terms with
// BM25 and returns the best limit hits, best first.
func (ix *lexIndex) search(terms []queryTerm, keep func(int32) bool, limit int) []lexHit {
	if len(ix.DocLen) == 0 || len(terms) == 0 {
		return nil
	}
	n := len(ix.DocLen)
	scores := make([]float64, n)
	masks := make([]uint64, n)
	var touched []int32
	avg := float64(ix.AvgLen)
	for qi, qt := range terms {
		idf := ix.idf(qt.id) * qt.weight
		for _, p := range ix.postings(qt.id) {
			if keep != nil && !keep(p.doc) {
				continue
			}
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.DocLen[p.doc])/avg)
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * tf * (bm25K1 + 1) / (tf + norm)
			if qi < 64 {
				masks[p.doc] |= 1 << qi
			}
		}
	}
	hits := make([]lexHit, 0, len(touched))
	for _, d := range touched {
		hits = append(hits, lexHit{doc: d, score: scores[d]})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].doc < hits[j].doc
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	for i := range hits {
		m := masks[hits[i].doc]
		seen := map[string]bool{}
		for qi, qt := range terms {
			if qi < 64 && m&(1<<qi) != 0 && !seen[qt.orig] {
				seen[qt.orig] = true
				hits[i].matched = append(hits[i].matched, qt.orig)
			}
		}
	}
	return hits
}
