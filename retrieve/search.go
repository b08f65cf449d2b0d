package retrieve

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/internal/safefs"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// Fusion defaults (weighted Reciprocal Rank Fusion).
const (
	RRFK                = 60
	DefaultLexWeight    = 0.4
	DefaultVectorWeight = 1.0
	FolderBoost         = 1.3
	// candidates is how deep each ranker's list goes into the fusion.
	candidates = 100
	// MaxLimit is the most hits a search can return: the fusion sees the
	// best candidates of each ranker only, so a larger Limit gives no more.
	MaxLimit = candidates
	// rerankDepth is how many fused hits the graph re-ranking considers.
	rerankDepth = 40
)

// Searcher answers queries over a built retrieval index. It is safe for
// concurrent use.
type Searcher struct {
	root   string
	graph  graphdb.Reader // may be nil: no fast symbol path, no graph re-ranking
	ix     *diskindex.Index
	emb    Embedder
	vecs   [][]float32 // per chunk; nil when the chunk has none
	dirs   map[string]bool
	byNode map[graphdb.NodeID]int32
	log    *slog.Logger
	secret *egress.FilePolicy

	linesMu sync.Mutex
	lines   map[string][]string // small cache of file lines for snippets

	filesOnce sync.Once
	files     *safefs.Root // opened on first use; nil when the root cannot be opened
	classes   sync.Map     // path → FileClass, see fileClass

	namesCache // the index's files by name, for fileMentions

	commonOnce sync.Once
	common     map[string]bool // commonNames, built on first use

	pathsOnce sync.Once
	byPath    map[string]int32 // fileOf: index into ix.Files by path, built on first use
}

// fileOf returns the index into the index's file list of the file at path
// (slash-separated, relative to the root, as indexed). Paths are unique in
// the list; the map is built on first use, so that a per-hit lookup costs
// no scan of every file.
func (s *Searcher) fileOf(path string) (int32, bool) {
	s.pathsOnce.Do(func() {
		s.byPath = make(map[string]int32, len(s.ix.Files))
		for i, f := range s.ix.Files {
			if _, dup := s.byPath[f.Path]; !dup {
				s.byPath[f.Path] = int32(i)
			}
		}
	})
	d, ok := s.byPath[path]
	return d, ok
}

// OpenOptions configure Open.
type OpenOptions struct {
	Dir      string   // index directory (relay's state directory); default <root>/.relay
	Embedder Embedder // query embeddings; nil: lexical only
	Log      *slog.Logger
	// SecretFiles: hits in files this policy calls secret-bearing are
	// dropped, so an index built before a file was denied (or while the
	// operator allowed it) does not show it; nil means the default list.
	SecretFiles *egress.FilePolicy

	// Key is this user's store key: an index without its MAC is refused
	// (ErrIndexForeign). Nil judges nothing.
	Key []byte
	// TrustForeign believes an index whatever its MAC (one shared on
	// purpose).
	TrustForeign bool
}

// Open loads the retrieval index of the repository at root. graph may be
// nil. It only reads: the index directory may be read-only. A missing index
// or one of another format is ErrNoIndex; an index that fails its checks is
// ErrIndexDamaged, one whose last update did not finish ErrIndexStale, and
// one without the MAC of opts.Key ErrIndexForeign, each with a message
// that names the index file and the problem.
func Open(root string, graph graphdb.Reader, opts OpenOptions) (*Searcher, error) {
	dir := opts.Dir
	if dir == "" {
		dir = filepath.Join(root, ".relay")
	}
	p := filepath.Join(dir, IndexFile)
	if err := diskindex.CheckStale(dir); err != nil {
		return nil, err
	}
	ix, err := diskindex.Read(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w at %s", ErrNoIndex, p)
	}
	if err != nil {
		return nil, err
	}
	// After the format and checksum checks, so that an index of an older
	// relay or a damaged one is reported as such.
	if err := diskindex.CheckOwner(dir, opts.Key, opts.TrustForeign); err != nil {
		return nil, err
	}
	return newSearcher(root, graph, ix, opts), nil
}

func newSearcher(root string, graph graphdb.Reader, ix *diskindex.Index, opts OpenOptions) *Searcher {
	s := &Searcher{root: root, graph: graph, ix: ix, log: opts.Log, secret: egress.PolicyOrDefault(opts.SecretFiles), dirs: map[string]bool{}, byNode: map[graphdb.NodeID]int32{}, lines: map[string][]string{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	for _, f := range ix.Files {
		for _, seg := range strings.Split(filepath.ToSlash(filepath.Dir(f.Path)), "/") {
			if seg != "." && seg != "" {
				s.dirs[strings.ToLower(seg)] = true
			}
		}
	}
	for i, c := range ix.Chunks {
		if c.NodeID != "" {
			s.byNode[c.NodeID] = int32(i)
		}
	}
	if opts.Embedder != nil && len(ix.Vectors) > 0 && opts.Embedder.Model() == ix.EmbedModel {
		s.emb = opts.Embedder
		vs := make([][]float32, len(ix.Chunks))
		for i, c := range ix.Chunks {
			vs[i] = ix.Vectors[c.Hash]
		}
		s.vecs = packVectors(vs)
	} else if opts.Embedder != nil {
		s.log.Warn("embeddings requested but the index has none for this model; searching lexically",
			"model", opts.Embedder.Model(), "index_model", ix.EmbedModel)
	}
	return s
}

// Chunks returns the number of chunks in the index.
func (s *Searcher) Chunks() int { return len(s.ix.Chunks) }

// Hybrid reports whether searches fuse dense vectors with BM25.
func (s *Searcher) Hybrid() bool { return s.emb != nil }

// SearchOptions configure one search.
type SearchOptions struct {
	Filter
	Limit int // default 10; at most MaxLimit hits come back
	// LexWeight and VectorWeight weigh the rankers in the fusion; 0 means
	// the defaults (0.4 and 1.0).
	LexWeight, VectorWeight float64
	NoFastPath              bool // always run the full pipeline
	NoGraph                 bool // skip graph-distance re-ranking
	// GraphWeight blends the graph factor: a hit's score is multiplied by
	// (1−w) + w/(distance+1). 1 is the plain 1/(distance+1); 0 means
	// DefaultGraphWeight.
	GraphWeight float64
	Expand      bool // attach graph context (parent, siblings, imports, callers, callees) to hits
	// byClass: the caller orders files by class itself (Localize), so
	// hits in generated and vendored files are not demoted.
	byClass bool
}

// Hit is one search result.
type Hit struct {
	Chunk
	Rank    int      `json:"rank"`
	Score   float64  `json:"score"`
	Matched []string `json:"matched_terms,omitempty"`
	// Why lists the reasons the hit was chosen, for people: ranker
	// positions, exact matches, boosts, graph relations.
	Why     []string `json:"why"`
	Snippet string   `json:"snippet,omitempty"` // "path:line: text" lines
	Context *Context `json:"context,omitempty"`
}

// Location is "path:line".
func (h Hit) Location() string { return h.Chunk.Location() }

// Results is the answer to one search.
type Results struct {
	Query string   `json:"query"`
	Mode  string   `json:"mode"`            // "exact", "lexical" or "hybrid"
	Notes []string `json:"notes,omitempty"` // filter fallbacks and other remarks
	Hits  []Hit    `json:"hits"`
	Took  float64  `json:"took_ms"`
}

var (
	identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)
	hexRe   = regexp.MustCompile(`^(0[xX][0-9a-fA-F]+|[0-9a-fA-F]{6,})$`)
	fileRe  = regexp.MustCompile(`^[\w./-]*[\w-]\.[A-Za-z0-9]{1,8}$`)
)

// Search runs the pipeline: fast path for identifiers, file names and hex
// codes; otherwise BM25 (and cosine similarity when the index has vectors)
// fused with weighted RRF, the folder boost, graph-distance re-ranking and
// optional context expansion. When the filters leave nothing, the path
// pattern is relaxed (file part, then folder) and Notes says so.
func (s *Searcher) Search(ctx context.Context, query string, o SearchOptions) (Results, error) {
	start := time.Now()
	query = strings.TrimSpace(query)
	if query == "" {
		return Results{}, errors.New("empty query: give some words, an identifier, a file name or an error code")
	}
	if err := o.Filter.Validate(); err != nil {
		return Results{}, err
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	res := Results{Query: query, Mode: "lexical"}
	if s.emb != nil {
		res.Mode = "hybrid"
	}
	var hits []Hit
	if !o.NoFastPath {
		exact, err := s.fastPath(ctx, query, o)
		if err != nil {
			return Results{}, err
		}
		if len(exact) > 0 {
			res.Mode = "exact"
			hits = exact
		}
	}
	if len(hits) < o.Limit {
		f := o.Filter
		more, err := s.rank(ctx, query, o, f)
		if err != nil {
			return Results{}, err
		}
		for len(more) == 0 && f.Path != "" {
			next := relaxPath(f.Path)
			if next == "" {
				res.Notes = append(res.Notes, fmt.Sprintf("nothing matched under path %q; dropped the path filter", f.Path))
			} else {
				res.Notes = append(res.Notes, fmt.Sprintf("nothing matched path %q; relaxed it to folder %q", f.Path, next))
			}
			f.Path = next
			if more, err = s.rank(ctx, query, o, f); err != nil {
				return Results{}, err
			}
		}
		hits = appendNew(hits, more, o.Limit)
	}
	hits = slices.DeleteFunc(hits, func(h Hit) bool { _, secret := s.secret.Match(h.Path); return secret })
	if len(hits) > o.Limit {
		hits = hits[:o.Limit]
	}
	for i := range hits {
		hits[i].Rank = i + 1
		hits[i].Snippet = s.snippet(hits[i].Chunk, hits[i].Matched, 6)
		if o.Expand && s.graph != nil && hits[i].NodeID != "" && i < 5 {
			c, err := s.expand(ctx, hits[i].NodeID)
			if err != nil {
				return Results{}, err
			}
			hits[i].Context = c
		}
	}
	res.Hits = hits
	res.Took = float64(time.Since(start).Microseconds()) / 1000
	return res, nil
}

func appendNew(hits, more []Hit, limit int) []Hit {
	seen := map[string]bool{}
	for _, h := range hits {
		seen[h.Location()] = true
	}
	for _, h := range more {
		if len(hits) >= limit {
			break
		}
		if !seen[h.Location()] {
			seen[h.Location()] = true
			hits = append(hits, h)
		}
	}
	return hits
}

// keepFunc compiles a filter into a chunk predicate.
func (s *Searcher) keepFunc(f Filter) (func(int32) bool, error) {
	if f.IsZero() {
		return nil, nil
	}
	g, err := compileGlob(f.Path)
	if err != nil {
		return nil, err
	}
	langs := map[string]bool{}
	for _, l := range f.Languages {
		langs[strings.ToLower(l)] = true
	}
	kinds := map[string]bool{}
	for _, k := range f.Kinds {
		kinds[k] = true
	}
	return func(d int32) bool {
		c := &s.ix.Chunks[d]
		if len(langs) > 0 && !langs[c.Language] {
			return false
		}
		if len(kinds) > 0 && !kinds[c.Kind] {
			return false
		}
		return g.match(c.Path)
	}, nil
}

// fastPath answers a query that is a bare identifier, a file name or a hex
// code by exact lookup.
func (s *Searcher) fastPath(ctx context.Context, q string, o SearchOptions) ([]Hit, error) {
	keep, err := s.keepFunc(o.Filter)
	if err != nil {
		return nil, err
	}
	var docs []int32
	why := ""
	switch {
	case hexRe.MatchString(q) && strings.ContainsAny(q, "0123456789"):
		why = "exact match of code " + q
		if id, ok := s.ix.Lex.TermID(strings.ToLower(q)); ok {
			for _, p := range s.ix.Lex.Postings(id) {
				docs = append(docs, p.Doc)
			}
		}
	case fileRe.MatchString(q) && isKnownFile(q):
		why = "file name matches " + q
		for _, f := range s.ix.Files {
			if f.Path == q || strings.HasSuffix(f.Path, "/"+q) {
				for d := f.First; d < f.First+f.Count; d++ {
					docs = append(docs, d)
				}
			}
		}
	}
	if len(docs) == 0 && identRe.MatchString(q) && s.graph != nil {
		sq := graphdb.SymbolQuery{Name: q, Limit: 50}
		if strings.Contains(q, ".") {
			sq = graphdb.SymbolQuery{Suffix: q, Limit: 50}
		}
		nodes, err := s.graph.FindSymbols(ctx, sq)
		if err != nil {
			return nil, fmt.Errorf("find symbol %q: %w", q, err)
		}
		why = "symbol named " + q
		for _, n := range nodes {
			if d, ok := s.byNode[n.ID]; ok {
				docs = append(docs, d)
			}
		}
	}
	var hits []Hit
	for _, d := range docs {
		if keep != nil && !keep(d) {
			continue
		}
		hits = append(hits, Hit{Chunk: s.ix.Chunks[d], Score: 1, Why: []string{why}})
	}
	// Prefer code over docs and tests, then path order (deterministic).
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := fastRank(hits[i].Chunk), fastRank(hits[j].Chunk)
		if a != b {
			return a < b
		}
		if hits[i].Path != hits[j].Path {
			return hits[i].Path < hits[j].Path
		}
		return hits[i].StartLine < hits[j].StartLine
	})
	return hits, nil
}

// isKnownFile reports whether q ends in an extension Build indexes.
func isKnownFile(q string) bool {
	_, ok := LanguageOf(q)
	return ok
}

func fastRank(c Chunk) int {
	r := 0
	if c.Kind == ChunkText || c.Kind == ChunkSection {
		r += 2
	}
	if strings.HasSuffix(c.Path, "_test.go") || strings.Contains(c.Path, "testdata/") {
		r++
	}
	return r
}

// rank is the full pipeline for one filter setting.
func (s *Searcher) rank(ctx context.Context, q string, o SearchOptions, f Filter) ([]Hit, error) {
	keep, err := s.keepFunc(f)
	if err != nil {
		return nil, err
	}
	lw, vw := o.LexWeight, o.VectorWeight
	if lw == 0 {
		lw = DefaultLexWeight
	}
	if vw == 0 {
		vw = DefaultVectorWeight
	}
	lex := s.ix.Lex.Search(s.ix.Lex.Expand(Tokenize(q)), keep, candidates)
	lexRank := Ranking{Name: "bm25", Weight: lw}
	matched := map[int32][]string{}
	for _, h := range lex {
		lexRank.Docs = append(lexRank.Docs, h.Doc)
		matched[h.Doc] = h.Matched
	}
	rankings := []Ranking{lexRank}
	if len(strings.Fields(q)) > 1 {
		mr, err := s.mentionRanking(ctx, q, keep)
		if err != nil {
			return nil, fmt.Errorf("resolve mentions: %w", err)
		}
		if len(mr) > 0 {
			rankings = append(rankings, Ranking{Name: "mention", Weight: DefaultMentionWeight, Docs: mr})
		}
	}
	cosine := map[int32]float32{}
	if s.emb != nil {
		vs, err := s.emb.Embed(ctx, []string{q}, InputQuery)
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("embed query: got %d vectors for 1 input", len(vs))
		}
		vr := Ranking{Name: "vector", Weight: vw}
		for _, h := range s.dense(normalize(vs[0]), keep, candidates) {
			vr.Docs = append(vr.Docs, h.doc)
			cosine[h.doc] = h.score
		}
		rankings = append(rankings, vr)
	}
	named := s.namedFolders(q)
	shown := queryWords(q)
	testPenalty := !mentionsTests(q)
	fused := FuseRRF(RRFK, rankings...)
	hits := make([]Hit, 0, len(fused))
	for _, fu := range fused {
		h := Hit{Chunk: s.ix.Chunks[fu.Doc], Score: fu.Score, Matched: matched[fu.Doc]}
		if r, ok := fu.Ranks["bm25"]; ok {
			h.Why = append(h.Why, fmt.Sprintf("BM25 rank %d (matched: %s)", r, strings.Join(displayTerms(h.Matched, shown), ", ")))
		}
		if _, ok := fu.Ranks["mention"]; ok {
			h.Why = append(h.Why, "named in the query")
		}
		if r, ok := fu.Ranks["vector"]; ok {
			h.Why = append(h.Why, fmt.Sprintf("vector rank %d (cosine %.2f)", r, cosine[fu.Doc]))
		}
		if testPenalty && s.fileClass(h.Path) == ClassTest {
			h.Score *= TestPenalty
			h.Why = append(h.Why, fmt.Sprintf("test file, and the query does not mention tests (×%.1f)", TestPenalty))
		}
		if folderNamed(h.Path, named) {
			h.Score *= FolderBoost
			h.Why = append(h.Why, fmt.Sprintf("in a folder the query names (×%.1f)", FolderBoost))
		}
		hits = append(hits, h)
	}
	sortHits(hits)
	if !o.NoGraph && s.graph != nil {
		w := o.GraphWeight
		if w == 0 {
			w = DefaultGraphWeight
		}
		if err := s.graphRerank(ctx, hits, w); err != nil {
			return nil, err
		}
	}
	if !o.byClass {
		hits = s.demote(hits)
	}
	return hits, nil
}

func sortHits(hits []Hit) {
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		if hits[i].Path != hits[j].Path {
			return hits[i].Path < hits[j].Path
		}
		return hits[i].StartLine < hits[j].StartLine
	})
}

type denseHit struct {
	doc   int32
	score float32
}

// dense is brute-force cosine top-k over unit vectors: GOMAXPROCS workers
// each scan a share of the chunks keeping their best k in a min-heap, then
// the shares merge (no sort of every chunk).
func (s *Searcher) dense(q []float32, keep func(int32) bool, k int) []denseHit {
	workers := max(1, min(runtime.GOMAXPROCS(0), 8, len(s.vecs)/4096))
	heaps := make([]denseHeap, workers)
	per := (len(s.vecs) + workers - 1) / workers
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			h := make(denseHeap, 0, k+1)
			for i := w * per; i < min((w+1)*per, len(s.vecs)); i++ {
				v := s.vecs[i]
				if v == nil || (keep != nil && !keep(int32(i))) {
					continue
				}
				hit := denseHit{int32(i), dot(q, v)}
				if len(h) == k && !better(hit, h[0]) {
					continue
				}
				heap.Push(&h, hit)
				if len(h) > k {
					heap.Pop(&h)
				}
			}
			heaps[w] = h
		})
	}
	wg.Wait()
	var out []denseHit
	for _, h := range heaps {
		out = append(out, h...)
	}
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	if len(out) > k {
		out = out[:k]
	}
	return out
}

// packVectors copies vectors into one backing array (re-sliced per
// chunk, nil stays nil) so a dense scan streams through memory.
func packVectors(vs [][]float32) [][]float32 {
	n := 0
	for _, v := range vs {
		n += len(v)
	}
	flat := make([]float32, 0, n)
	out := make([][]float32, len(vs))
	for i, v := range vs {
		if v == nil {
			continue
		}
		start := len(flat)
		flat = append(flat, v...)
		out[i] = flat[start:len(flat):len(flat)]
	}
	return out
}

// better orders dense hits: higher cosine first, then lower doc.
func better(a, b denseHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.doc < b.doc
}

// denseHeap is a min-heap by better: the root is the worst kept hit.
type denseHeap []denseHit

func (h denseHeap) Len() int           { return len(h) }
func (h denseHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h denseHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *denseHeap) Push(x any)        { *h = append(*h, x.(denseHit)) }
func (h *denseHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// queryWords maps each index term of q to the query word it came from, so
// reasons can show "parsing" rather than the stem "pars".
func queryWords(q string) map[string]string {
	out := map[string]string{}
	tokenize.Words(q, func(w string) {
		for _, t := range tokenize.WordTerms(w) {
			if _, ok := out[t]; !ok {
				out[t] = w
			}
		}
	})
	return out
}

// displayTerms turns matched index terms into the query's words, once each.
func displayTerms(terms []string, shown map[string]string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range terms {
		w, ok := shown[t]
		if !ok {
			w = t
		}
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// TestPenalty multiplies the score of hits in test files when the query
// does not mention tests: questions and bug reports are about the code
// under test far more often than about the tests.
const TestPenalty = 0.5

func mentionsTests(q string) bool {
	for _, t := range Tokenize(q) {
		if t == "test" || t == "tests" || t == "testdata" || t == "spec" {
			return true
		}
	}
	return false
}

// namedFolders returns the query words that name a folder of the repository.
func (s *Searcher) namedFolders(q string) map[string]bool {
	out := map[string]bool{}
	tokenize.Words(q, func(w string) {
		w = strings.ToLower(w)
		if len(w) >= 2 && !tokenize.IsStopWord(w) && s.dirs[w] {
			out[w] = true
		}
	})
	return out
}

func folderNamed(p string, named map[string]bool) bool {
	if len(named) == 0 {
		return false
	}
	segs := strings.Split(p, "/")
	for _, seg := range segs[:len(segs)-1] {
		if named[strings.ToLower(seg)] {
			return true
		}
	}
	return false
}

// snippet renders up to max lines of c as "path:line: text": the signature
// line, then the lines that contain a matched term.
func (s *Searcher) snippet(c Chunk, matched []string, max int) string {
	lines := s.fileLines(c.Path)
	if len(lines) == 0 || c.StartLine > len(lines) {
		return ""
	}
	end := min(c.EndLine, len(lines))
	var pick []int
	first := c.StartLine
	for first < end && c.Kind != ChunkSection && c.Kind != ChunkText && isCommentLine(lines[first-1]) {
		first++
	}
	pick = append(pick, first)
	for i := first + 1; i <= end && len(pick) < max; i++ {
		low := strings.ToLower(lines[i-1])
		for _, m := range matched {
			if len(m) >= 3 && strings.Contains(low, m) {
				pick = append(pick, i)
				break
			}
		}
	}
	for i := first + 1; i <= end && len(pick) < min(max, 3); i++ {
		if !containsInt(pick, i) {
			pick = append(pick, i)
		}
	}
	sort.Ints(pick)
	var b strings.Builder
	for _, i := range pick {
		l := strings.TrimRight(lines[i-1], " \t")
		if len(l) > 160 {
			l = l[:160] + "…"
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", c.Path, i, l)
	}
	return b.String()
}

func isCommentLine(l string) bool {
	t := strings.TrimSpace(l)
	return t == "" || strings.HasPrefix(t, "//") || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "*")
}

func containsInt(xs []int, x int) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// fileLines reads a file's lines, caching a bounded number of files.
func (s *Searcher) fileLines(rel string) []string {
	s.linesMu.Lock()
	ls, ok := s.lines[rel]
	s.linesMu.Unlock()
	if ok {
		return ls
	}
	files := s.rootFiles()
	if files == nil {
		return nil
	}
	data, err := files.ReadFile(rel, MaxFileSize)
	if err != nil {
		return nil
	}
	ls = lines.Split(string(data))
	s.linesMu.Lock()
	if len(s.lines) > 256 {
		clear(s.lines)
	}
	s.lines[rel] = ls
	s.linesMu.Unlock()
	return ls
}
