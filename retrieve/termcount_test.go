package retrieve

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/internal/testutil"
)

// TestFileCounterMatchesTexts checks that counting a file's chunks and
// whole text from its lines' terms (fileCounter, in blocks renumbered by
// lexBuilder.merge) gives the index that tokenizing each chunk's text
// (textOf) and the capped file text gives, and that chunkHash is the hash
// of the chunk's embedding text: the figures of the eval goldens rest on
// both. It runs over this package's Go files, chunked with a graph of
// them, and the module's markdown files, and over files made to meet each cap: a file over
// maxFileIndexBytes cut inside a word, CRLF lines, a symbol over
// maxChunkBytes with a signature and doc, over maxChunkLines lines, and
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

	want, wantFiles := newLexBuilder(), newLexBuilder()
	got, gotFiles := newLexBuilder(), newLexBuilder()
	var chunkNo, fileNo int32
	blocks := []*fileCounter{newFileCounter(), newFileCounter(), newFileCounter()}
	var blockChunk, blockFile [3]int32 // each block's first chunk and file
	for i, f := range files {
		lang, _ := LanguageOf(f.rel)
		ls := lines.Split(f.text)
		chunks := chunkFile(f.rel, lang, ls, f.nodes)
		for j, c := range chunks {
			text := textOf(c, ls)
			want.addDoc(chunkNo+int32(j), text)
			if h, _ := chunkHash(c, ls, nil); h != hashString(text.embedText(c)) {
				t.Errorf("%s chunk %s: chunkHash differs from the hash of its text", f.rel, c.Name)
			}
		}
		wantFiles.addDoc(fileNo, chunkText{path: f.rel, body: f.text[:min(len(f.text), maxFileIndexBytes)]})
		b := i * len(blocks) / len(files)
		if blockChunk[b] == 0 && blockFile[b] == 0 && b > 0 {
			blockChunk[b], blockFile[b] = chunkNo, fileNo
		}
		blocks[b].add(f.rel, f.text, ls, chunks, chunkNo-blockChunk[b], fileNo-blockFile[b])
		chunkNo += int32(len(chunks))
		fileNo++
	}
	for b, fc := range blocks {
		got.merge(fc.v.terms, &fc.chunks, blockChunk[b])
		gotFiles.merge(fc.v.terms, &fc.files, blockFile[b])
	}
	opt := cmpopts.IgnoreUnexported(lexIndex{})
	if diff := cmp.Diff(want.finish(), got.finish(), opt); diff != "" {
		t.Errorf("chunk index (-texts +lines):\n%.3000s", diff)
	}
	if diff := cmp.Diff(wantFiles.finish(), gotFiles.finish(), opt); diff != "" {
		t.Errorf("file index (-texts +lines):\n%.3000s", diff)
	}
}
