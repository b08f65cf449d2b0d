package retrieve

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// testRepo materialises testdata/repo.txtar, indexes it with the fake
// graph, builds the retrieval index and opens a Searcher.
func testRepo(t *testing.T, emb Embedder) (string, *memstore.Store, *Searcher) {
	t.Helper()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	if _, err := Build(t.Context(), root, g, BuildOptions{Embedder: emb}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, g, OpenOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	return root, g, s
}

func locs(hits []Hit, n int) []string {
	var out []string
	for i, h := range hits {
		if i >= n {
			break
		}
		name := h.Name
		if h.Kind == ChunkText {
			name = "text"
		}
		out = append(out, h.Path+":"+name)
	}
	return out
}

func TestSearchLexical(t *testing.T) {
	t.Parallel()
	_, _, s := testRepo(t, nil)
	tests := []struct {
		query string
		opts  SearchOptions
		top   string // Path:Name of the first hit
		mode  string
	}{
		{"retry with exponential backoff", SearchOptions{}, "storage/retry.go:RetryWithBackoff", "lexical"},
		{"upload is too large", SearchOptions{}, "server/server.go:handleUpload", "lexical"},
		{"how is the content length header parsed", SearchOptions{}, "server/server.go:parseContentLength", "lexical"},
		{"address is empty", SearchOptions{}, "config/config.go:text", "lexical"},
		{"retry policy jitter", SearchOptions{Filter: Filter{Languages: []string{"markdown"}}}, "README.md:Retry policy", "lexical"},
		{"uploads table created_at timestamp", SearchOptions{}, "db/schema.sql:text", "lexical"},
		{"Transien", SearchOptions{Filter: Filter{Kinds: []string{"function"}}}, "storage/retry.go:isTransient", "lexical"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := s.Search(t.Context(), tt.query, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatalf("no hits")
			}
			if got := locs(res.Hits, 1)[0]; got != tt.top {
				t.Errorf("top hit = %s, want %s; all: %v", got, tt.top, locs(res.Hits, 5))
			}
			if res.Mode != tt.mode {
				t.Errorf("mode = %s, want %s", res.Mode, tt.mode)
			}
			if len(res.Hits[0].Why) == 0 || res.Hits[0].Snippet == "" {
				t.Errorf("top hit lacks why/snippet: %+v", res.Hits[0])
			}
		})
	}
}

func TestSearchFastPath(t *testing.T) {
	t.Parallel()
	_, _, s := testRepo(t, nil)
	tests := []struct {
		query string
		top   string
		why   string
	}{
		{"RetryWithBackoff", "storage/retry.go:RetryWithBackoff", "symbol named RetryWithBackoff"},
		{"BlobStore.Put", "storage/store.go:Put", "symbol named BlobStore.Put"},
		{"retry.go", "storage/retry.go:RetryWithBackoff", "file name matches retry.go"},
		{"server/server.go", "server/server.go:Server", "file name matches server/server.go"},
		{"0x5e1f", "config/config.go:text", "exact match of code 0x5e1f"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := s.Search(t.Context(), tt.query, SearchOptions{Limit: 3})
			if err != nil {
				t.Fatal(err)
			}
			if res.Mode != "exact" || len(res.Hits) == 0 {
				t.Fatalf("mode = %s with %d hits, want exact", res.Mode, len(res.Hits))
			}
			if got := locs(res.Hits, 1)[0]; got != tt.top {
				t.Errorf("top = %s, want %s (all %v)", got, tt.top, locs(res.Hits, 3))
			}
			if diff := cmp.Diff([]string{tt.why}, res.Hits[0].Why); diff != "" {
				t.Errorf("why (-want +got):\n%s", diff)
			}
		})
	}
	// A plain word that names no symbol falls through to BM25.
	res, err := s.Search(t.Context(), "jitter", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "lexical" || len(res.Hits) == 0 {
		t.Errorf("jitter: mode %s, %d hits; want lexical hits", res.Mode, len(res.Hits))
	}
}

func TestSearchFiltersAndFallback(t *testing.T) {
	t.Parallel()
	_, _, s := testRepo(t, nil)
	tests := []struct {
		name   string
		query  string
		filter Filter
		paths  []string // every hit's path must be one of these
		notes  int
	}{
		{"language", "blob store", Filter{Languages: []string{"markdown"}}, []string{"README.md"}, 0},
		{"kind", "blob", Filter{Kinds: []string{"method"}}, []string{"storage/store.go"}, 0},
		{"folder glob", "retry", Filter{Path: "storage/**"}, []string{"storage/retry.go", "storage/store.go", "storage/store_test.go"}, 0},
		{"literal folder", "retry", Filter{Path: "storage"}, []string{"storage/retry.go", "storage/store.go", "storage/store_test.go"}, 0},
		{"base name glob", "blob", Filter{Path: "*_test.go"}, []string{"storage/store_test.go"}, 0},
		{"file pattern dropped first", "backoff", Filter{Path: "storage/*.yaml"}, []string{"storage/retry.go", "storage/store.go"}, 1},
		{"then the folder", "backoff", Filter{Path: "deploy/*.yaml"}, []string{"storage/retry.go", "storage/store.go", "README.md"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := s.Search(t.Context(), tt.query, SearchOptions{Filter: tt.filter, NoFastPath: true})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Hits) == 0 {
				t.Fatal("no hits")
			}
			for _, h := range res.Hits {
				if !contains(tt.paths, h.Path) {
					t.Errorf("hit %s outside %v", h.Location(), tt.paths)
				}
			}
			if len(res.Notes) != tt.notes {
				t.Errorf("notes = %q, want %d", res.Notes, tt.notes)
			}
		})
	}
	if _, err := s.Search(t.Context(), "x", SearchOptions{Filter: Filter{Kinds: []string{"klass"}}}); err == nil || !strings.Contains(err.Error(), "unknown kind") {
		t.Errorf("bad kind: err = %v", err)
	}
	if _, err := s.Search(t.Context(), "x", SearchOptions{Filter: Filter{Languages: []string{"golang"}}}); err == nil || !strings.Contains(err.Error(), `unknown language "golang"`) {
		t.Errorf("bad language: err = %v", err)
	}
	if _, err := s.Search(t.Context(), "  ", SearchOptions{}); err == nil {
		t.Error("empty query: no error")
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func TestSearchFolderBoostAndGraph(t *testing.T) {
	t.Parallel()
	_, _, s := testRepo(t, nil)
	res, err := s.Search(t.Context(), "server put data", SearchOptions{NoFastPath: true})
	if err != nil {
		t.Fatal(err)
	}
	boosted := false
	for _, h := range res.Hits {
		for _, w := range h.Why {
			if strings.Contains(w, "folder the query names") {
				boosted = true
				if !strings.HasPrefix(h.Path, "server/") {
					t.Errorf("boost on %s", h.Path)
				}
			}
		}
	}
	if !boosted {
		t.Errorf("no folder boost for a query naming server/: %v", locs(res.Hits, 10))
	}
	res, err = s.Search(t.Context(), "RetryWithBackoff transient", SearchOptions{NoFastPath: true, Expand: true})
	if err != nil {
		t.Fatal(err)
	}
	related := false
	for _, h := range res.Hits {
		for _, w := range h.Why {
			related = related || strings.HasPrefix(w, "graph: ")
		}
	}
	if !related {
		t.Errorf("no graph relation in why: %+v", res.Hits)
	}
	top := res.Hits[0]
	if top.Context == nil || len(top.Context.Callers) == 0 || top.Context.Callers[0].Name != "Put" {
		t.Errorf("top %s context = %+v, want caller Put", top.Location(), top.Context)
	}
}

// matchesFullBuild checks that the index Build left in root/.relay equals
// the one a forced full build of the same tree and graph writes.
func matchesFullBuild(t *testing.T, root string, g graphdb.Reader) {
	t.Helper()
	incr, err := diskindex.Read(filepath.Join(root, ".relay", IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	fullDir := t.TempDir()
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: fullDir, Force: true}); err != nil {
		t.Fatal(err)
	}
	full, err := diskindex.Read(filepath.Join(fullDir, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(full, incr, cmpopts.IgnoreUnexported(bm25.Index{})); diff != "" {
		t.Errorf("incremental index differs from a full build (-full +incremental):\n%.4000s", diff)
	}
}

func TestBuildIncremental(t *testing.T) {
	t.Parallel()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	ctx := t.Context()
	st, err := Build(ctx, root, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Files == 0 || st.Changed != st.Files || st.Reused != 0 {
		t.Fatalf("first build: %+v", st)
	}
	// Nothing changed: the index is left as it is.
	idx := filepath.Join(root, ".relay", IndexFile)
	before, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	same, err := Build(ctx, root, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := os.Stat(idx)
	if same.Changed != 0 || same.Reused != st.Files || same.Chunks != st.Chunks || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("no-change build: %+v, index rewritten: %v", same, !after.ModTime().Equal(before.ModTime()))
	}
	// A binary file with a known extension is skipped; a changed and a
	// removed file are noticed.
	if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("bin\x00ary"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "deploy/app.yaml"), []byte("service: blobby\nreplicas: 3\nregion: eu-west\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(root, "db/schema.sql")); err != nil {
		t.Fatal(err)
	}
	st2, err := Build(ctx, root, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := BuildStats{Files: st.Files - 1, Changed: 1, Reused: st.Files - 2, Removed: 1}
	got := BuildStats{Files: st2.Files, Changed: st2.Changed, Reused: st2.Reused, Removed: st2.Removed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("second build (-want +got):\n%s", diff)
	}
	matchesFullBuild(t, root, g)
	s, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, "region eu-west", SearchOptions{})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "deploy/app.yaml" {
		t.Errorf("changed file not searchable: %v %v", locs(res.Hits, 3), err)
	}
	// A cancelled build leaves the previous index in place.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Build(cctx, root, g, BuildOptions{Force: true}); err == nil {
		t.Error("cancelled build: no error")
	}
	if _, err := Open(root, g, OpenOptions{}); err != nil {
		t.Errorf("index lost after a cancelled build: %v", err)
	}
	if _, err := Open(t.TempDir(), g, OpenOptions{}); !errors.Is(err, ErrNoIndex) {
		t.Errorf("missing index: err = %v", err)
	}
}

func TestIgnore(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{
		".gitignore":        "*.log\n/build/\nsecret.yaml\n!keep.log\n",
		"a.go":              "package a\n",
		"x.log":             "log\n",
		"keep.log":          "kept\n",
		"build/out.go":      "package out\n",
		"sub/build/ok.go":   "package ok\n",
		"sub/secret.yaml":   "k: v\n",
		"sub/.gitignore":    "gen_*.go\n",
		"sub/gen_x.go":      "package sub\n",
		"node_modules/m.js": "x\n",
		"vendor/v/v.go":     "package v\n",
		"big.txt":           strings.Repeat("x", MaxFileSize+1),
		"img.png":           "png",
		"docs/guide.md":     "# Guide\n",
	}
	for p, c := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := walkFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "a.go", "docs/guide.md", "sub/.gitignore", "sub/build/ok.go"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walkFiles (-want +got):\n%s", diff)
	}
}

// scriptedEmbeddings is an OpenAI-compatible /v1/embeddings server whose
// vectors are a fixed function of the text: one dimension per concept,
// set when the text mentions any word of the concept. It records requests.
type scriptedEmbeddings struct {
	mu       sync.Mutex
	requests []map[string]any
	inputs   int
}

var concepts = [][]string{
	{"upload", "uploads", "sending", "send", "transfer"},
	{"retry", "backoff", "again", "flaky"},
	{"config", "configuration", "settings", "listen"},
	{"blob", "store", "storage", "disk"},
}

func (s *scriptedEmbeddings) handler(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer k" {
		http.Error(w, "bad path or key", http.StatusUnauthorized)
		return
	}
	var req map[string]any
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	in, _ := req["input"].([]any)
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i, x := range in {
		text := strings.ToLower(x.(string))
		v := make([]float32, len(concepts)+1)
		v[len(concepts)] = 0.05
		for d, words := range concepts {
			for _, wd := range words {
				if strings.Contains(text, wd) {
					v[d] = 1
				}
			}
		}
		data = append(data, item{Index: i, Embedding: v})
	}
	s.mu.Lock()
	s.inputs += len(in)
	s.mu.Unlock()
	json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req["model"]})
}

func TestSearchHybrid(t *testing.T) {
	t.Parallel()
	se := &scriptedEmbeddings{}
	srv := httptest.NewServer(http.HandlerFunc(se.handler))
	t.Cleanup(srv.Close)
	emb := &HTTPEmbedder{BaseURL: srv.URL + "/v1", APIKey: "k", Name: "scripted", InputTypeField: "input_type", BatchSize: 5}
	root, g, s := testRepo(t, emb)
	if !s.Hybrid() {
		t.Fatal("searcher is not hybrid")
	}
	se.mu.Lock()
	docInputs := se.inputs
	for _, req := range se.requests {
		if req["input_type"] != "passage" || req["model"] != "scripted" {
			t.Errorf("build request: %v", req)
		}
	}
	se.mu.Unlock()
	if docInputs == 0 {
		t.Fatal("build embedded nothing")
	}
	// "sending" and "transfer" appear nowhere in the repository: only the
	// vector ranker can find the upload handler.
	res, err := s.Search(t.Context(), "sending a transfer", SearchOptions{NoFastPath: true, NoGraph: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "hybrid" || len(res.Hits) == 0 {
		t.Fatalf("mode %s, %d hits", res.Mode, len(res.Hits))
	}
	if !strings.Contains(strings.ToLower(res.Hits[0].Snippet), "upload") {
		t.Errorf("top = %v, want something about uploads", locs(res.Hits, 3))
	}
	se.mu.Lock()
	last := se.requests[len(se.requests)-1]
	se.mu.Unlock()
	if last["input_type"] != "query" {
		t.Errorf("query request input_type = %v, want query", last["input_type"])
	}
	// Lexical alone cannot answer it.
	lex, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lres, err := lex.Search(t.Context(), "sending a transfer", SearchOptions{NoFastPath: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(lres.Hits) != 0 {
		t.Errorf("lexical hits for unseen words: %v", locs(lres.Hits, 3))
	}
	// A rebuild re-embeds nothing: vectors are cached by chunk hash.
	st, err := Build(t.Context(), root, g, BuildOptions{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded != 0 || st.EmbedCached == 0 {
		t.Errorf("rebuild: %+v, want all vectors cached", st)
	}
	// An endpoint error names the endpoint and status.
	bad := &HTTPEmbedder{BaseURL: srv.URL + "/v1", APIKey: "wrong", Name: "scripted"}
	if _, err := bad.Embed(t.Context(), []string{"x"}, InputQuery); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("bad key: err = %v", err)
	}
}
