package retrieve

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// TestFileCounterMatchesTexts checks that counting a file's chunks and
// whole text from its lines' terms (fileCounter, in blocks renumbered by
// bm25.Builder.Merge) gives the index that tokenizing each chunk's text
// (chunk.FieldsOf) and the capped file text gives, and that chunk.Hash is the hash
// of the chunk's embedding text: the figures of the eval goldens rest on
// both. It runs over this package's Go files, chunked with a graph of
// them, and the module's markdown files, and over files made to meet each cap: a file over
// maxFileIndexBytes cut inside a word, CRLF lines, a symbol over
// chunk.MaxBytes with a signature and doc, over chunk.MaxLines lines, and
// text windows.
func TestFileCounterMatchesTexts(t *testing.T) {
	t.Parallel()
	root := "."
	g := testutil.FakeIndex(t, root)
	type file struct {
		rel, text string
		nodes     []graphdb.Node
	}
	var files []file
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || (!strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, ".md")) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		nodes, err := g.FindSymbols(t.Context(), graphdb.SymbolQuery{File: rel})
		files = append(files, file{rel, string(b), nodes})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, md := range []string{"README.md", "AGENTS.md", "BENCHMARKS.md"} {
		b, err := os.ReadFile(filepath.Join("..", md))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, file{rel: md, text: string(b)})
	}
	long := strings.Repeat("longIdentifierName_with_parts ", 200)
	big := "package big\n\n" + strings.Repeat("// HTTPServer parses retries\r\nfunc handleRequests() { return }\r\n", maxFileIndexBytes/60) + "splitWordAcrossTheCap" + strings.Repeat("x", 100)
	files = append(files,
		file{"big.go", big, []graphdb.Node{{ID: "go:big.handleRequests", Kind: graphdb.KindFunction, Name: "handleRequests", QName: "big.handleRequests", StartLine: 4, EndLine: 400, Signature: "func handleRequests()", Doc: "HTTPServer parses retries"}}},
		file{"wide.go", "package wide\n\n// " + long + "\nfunc Wide() {\n" + strings.Repeat("\t"+long+"\n", 60) + "}\n",
			[]graphdb.Node{{ID: "go:wide.Wide", Kind: graphdb.KindFunction, Name: "Wide", QName: "wide.Wide", StartLine: 4, EndLine: 65, Signature: "func Wide() " + long, Doc: long}}},
		file{"empty.txt", "", nil},
		file{"nl.txt", "\n\n\n", nil},
	)
	if len(files) < 30 {
		t.Fatalf("only %d files found", len(files))
	}

	want, wantFiles := bm25.NewBuilder(), bm25.NewBuilder()
	got, gotFiles := bm25.NewBuilder(), bm25.NewBuilder()
	// reused counts the same blocks with one counter, merged and reset
	// after each block as chunkFiles does with its pool; it starts dirty,
	// as a counter whose block stopped inside a document.
	shared := bm25.NewBuilders(2)
	reused, reusedFiles := shared[0], shared[1]
	one := newFileCounter()
	one.chunks.Count(one.v.AppendIDs(nil, "stale words left over"), bm25.WeightBody)
	one.files.Count(one.v.AppendIDs(nil, "stale"), bm25.WeightBody)
	one.chunks.Reset()
	one.files.Reset()
	oneBlock := 0
	var chunkNo, fileNo int32
	blocks := []*fileCounter{newFileCounter(), newFileCounter(), newFileCounter()}
	var blockChunk, blockFile [3]int32 // each block's first chunk and file
	for i, f := range files {
		lang, _ := LanguageOf(f.rel)
		ls := lines.Split(f.text)
		chunks := chunk.File(f.rel, lang, ls, f.nodes)
		for _, c := range chunks {
			text := chunk.FieldsOf(c, ls)
			want.Add(text.Name, text.Path, text.Body)
			if h, _ := chunk.Hash(c, ls, nil); h != chunk.HashString(text.EmbedText(c)) {
				t.Errorf("%s chunk %s: chunk.Hash differs from the hash of its text", f.rel, c.Name)
			}
		}
		wantFiles.Add("", f.rel, f.text[:min(len(f.text), maxFileIndexBytes)])
		b := i * len(blocks) / len(files)
		if blockChunk[b] == 0 && blockFile[b] == 0 && b > 0 {
			blockChunk[b], blockFile[b] = chunkNo, fileNo
		}
		blocks[b].add(f.rel, f.text, ls, chunks, chunkNo-blockChunk[b], fileNo-blockFile[b])
		if b != oneBlock {
			one.mergeInto(reused, reusedFiles, blockChunk[oneBlock], blockFile[oneBlock])
			oneBlock = b
		}
		one.add(f.rel, f.text, ls, chunks, chunkNo-blockChunk[b], fileNo-blockFile[b])
		chunkNo += int32(len(chunks))
		fileNo++
	}
	one.mergeInto(reused, reusedFiles, blockChunk[oneBlock], blockFile[oneBlock])
	for b, fc := range blocks {
		got.Merge(fc.v.Terms(), &fc.chunks, blockChunk[b], nil)
		gotFiles.Merge(fc.v.Terms(), &fc.files, blockFile[b], nil)
	}
	opt := cmpopts.IgnoreUnexported(bm25.Index{})
	// Finish takes the builders' postings apart, so compare the reused
	// counter's first.
	gotIx, gotFilesIx := got.Finish(), gotFiles.Finish()
	if diff := cmp.Diff(gotIx, reused.Finish(), opt); diff != "" {
		t.Errorf("chunk index (-fresh counters +one counter reset between blocks):\n%.3000s", diff)
	}
	if diff := cmp.Diff(gotFilesIx, reusedFiles.Finish(), opt); diff != "" {
		t.Errorf("file index (-fresh counters +one counter reset between blocks):\n%.3000s", diff)
	}
	if diff := cmp.Diff(want.Finish(), gotIx, opt); diff != "" {
		t.Errorf("chunk index (-texts +lines):\n%.3000s", diff)
	}
	if diff := cmp.Diff(wantFiles.Finish(), gotFilesIx, opt); diff != "" {
		t.Errorf("file index (-texts +lines):\n%.3000s", diff)
	}
}

// TestBuildIncrementalBlocks checks, on a repository of many blocks of
// files (chunkBlock), that an incremental build after one file changed,
// one was removed and one added equals a full rebuild: the changed files'
// postings, counted in their blocks, and the others', imported from the
// previous index, land on the same chunk and file numbers.
func TestBuildIncrementalBlocks(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goFile := func(pkg string, i int, body string) string {
		return fmt.Sprintf("package %s\n\n// Handle%d serves request number %d.\nfunc Handle%d() int {\n\t%s\n\treturn %d\n}\n\n// Store%d keeps things.\ntype Store%d struct{ n int }\n", pkg, i, i, i, body, i, i, i)
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	for i := range 120 {
		pkg := fmt.Sprintf("p%d", i/10)
		write(fmt.Sprintf("%s/f%d.go", pkg, i), goFile(pkg, i, "x := 1\n\t_ = x"))
		if i%10 == 0 {
			write(fmt.Sprintf("%s/README.md", pkg), fmt.Sprintf("# Package %s\n\nIt handles requests.\n\n## Details\n\nMore text about %s.\nAnd more.\nAnd more.\n", pkg, pkg))
		}
	}
	ctx := t.Context()
	first, err := Build(ctx, root, testutil.FakeIndex(t, root), BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(paths(t, root)); blockSize(n, runtime.GOMAXPROCS(0)) >= n/3 {
		t.Fatalf("%d files make fewer than 3 blocks", n)
	}
	write("p5/f55.go", goFile("p5", 55, "retryBudget := 7\n\t_ = retryBudget"))
	write("p11/f999.go", goFile("p11", 999, "added := true\n\t_ = added"))
	if err := os.Remove(filepath.Join(root, "p3/f31.go")); err != nil {
		t.Fatal(err)
	}
	g := testutil.FakeIndex(t, root)
	st, err := Build(ctx, root, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := BuildStats{Files: first.Files, Changed: 2, Reused: first.Files - 2, Removed: 1}
	got := BuildStats{Files: st.Files, Changed: st.Changed, Reused: st.Reused, Removed: st.Removed}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("incremental build (-want +got):\n%s", diff)
	}
	matchesFullBuild(t, root, g)
	s, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(ctx, "retryBudget", SearchOptions{})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Path != "p5/f55.go" {
		t.Errorf("changed file not found by its new text: %v %v", locs(res.Hits, 3), err)
	}
}

func paths(t *testing.T, root string) []string {
	t.Helper()
	ps, err := walkFiles(root, filepath.Join(root, ".relay"))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestBuildFromWrittenSymbols checks that the search index built from the
// nodes the graph indexer handed over as it wrote them (Symbols, what
// relay index does for a new store) equals the one built by querying the
// graph for each file.
func TestBuildFromWrittenSymbols(t *testing.T) {
	t.Parallel()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := memstore.New()
	syms := NewSymbols()
	ctx := t.Context()
	if _, err := index.Run(ctx, g, index.Options{Root: root, Written: syms.Written}); err != nil {
		t.Fatal(err)
	}
	if len(syms.owners) == 0 {
		t.Fatal("no symbols handed over")
	}
	queried, given := t.TempDir(), t.TempDir()
	if _, err := Build(ctx, root, g, BuildOptions{Dir: queried}); err != nil {
		t.Fatal(err)
	}
	st, err := Build(ctx, root, g, BuildOptions{Dir: given, Symbols: syms})
	if err != nil {
		t.Fatal(err)
	}
	want, err := diskindex.Read(filepath.Join(queried, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := diskindex.Read(filepath.Join(given, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	symbolChunks := 0
	for _, c := range got.Chunks {
		if c.NodeID != "" {
			symbolChunks++
		}
	}
	if symbolChunks < 10 || st.Chunks != len(got.Chunks) {
		t.Fatalf("%d chunks from symbols of %d", symbolChunks, st.Chunks)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(bm25.Index{})); diff != "" {
		t.Errorf("index from handed-over symbols differs (-queried +given):\n%.4000s", diff)
	}
}
