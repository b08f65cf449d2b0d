package diskindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
)

// lexSection encodes ixs as consecutive sections.
func lexSection(t testing.TB, ixs ...*bm25.Index) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, ix := range ixs {
		if err := writeLexSection(w, ix); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// builtLex is the chunk index of a few texts, as finish makes it.
func builtLex(texts ...string) *bm25.Index {
	b := bm25.NewBuilder()
	for _, s := range texts {
		b.Add("n", "p/f.go", s)
	}
	return b.Finish()
}

func TestLexSectionRoundTrip(t *testing.T) {
	t.Parallel()
	opt := cmpopts.IgnoreUnexported(bm25.Index{})
	for _, tt := range []struct {
		name string
		ixs  []*bm25.Index
	}{
		{"empty", []*bm25.Index{{}}},
		{"one", []*bm25.Index{builtLex("HTTPServer parses retries", "a longer body of words and more words")}},
		{"two in a row", []*bm25.Index{builtLex("alpha beta"), builtLex("gamma", "delta gamma größe")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rest := lexSection(t, tt.ixs...)
			for i, want := range tt.ixs {
				var got *bm25.Index
				var err error
				got, rest, err = readLexSection(rest)
				if err != nil {
					t.Fatalf("section %d: %v", i, err)
				}
				if want.Terms == nil { // decoded empty sections have empty, not nil, slices
					want = &bm25.Index{Terms: []string{}, Blobs: [][]byte{}, DF: []int32{}, DocLen: []float32{}}
				}
				if diff := cmp.Diff(want, got, opt, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("section %d (-written +read):\n%s", i, diff)
				}
			}
			if len(rest) != 0 {
				t.Errorf("%d bytes left", len(rest))
			}
		})
	}
}

// TestLexSectionDamage: every truncation of a section, and sections whose
// counts or offsets lie, are refused with an error instead of a panic or
// an allocation their size does not back.
func TestLexSectionDamage(t *testing.T) {
	t.Parallel()
	good := lexSection(t, builtLex("HTTPServer parses retries", "words and more words"))
	for n := range len(good) {
		if _, _, err := readLexSection(good[:n]); err == nil {
			t.Errorf("truncated to %d of %d bytes: no error", n, len(good))
		}
	}
	for _, tt := range []struct {
		name string
		edit func([]byte)
	}{
		{"huge term count", func(b []byte) { b[3] = 0x7f }},
		{"huge doc count", func(b []byte) { b[7] = 0x7f }},
		{"term end backwards", func(b []byte) { copy(b[termEnds(b)+4:], []byte{0, 0, 0, 0}) }},
		{"term end past the bytes", func(b []byte) { copy(b[termEnds(b):], []byte{0xff, 0xff, 0, 0}) }},
		{"blob end backwards", func(b []byte) { copy(b[termEnds(b)+4*terms(b)+4:], []byte{0, 0, 0, 0}) }},
		{"more documents than postings bytes", func(b []byte) { copy(b[termEnds(b)-4*terms(b):], []byte{0xff, 0, 0, 0}) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			b := bytes.Clone(good)
			tt.edit(b)
			if _, _, err := readLexSection(b); err == nil {
				t.Error("no error")
			}
		})
	}
}

// terms and termEnds read a section's term count and where its term end
// offsets start.
func terms(b []byte) int { return int(binary.LittleEndian.Uint32(b)) }

func termEnds(b []byte) int {
	return 12 + 4*int(binary.LittleEndian.Uint32(b[4:])) + 4*terms(b)
}

func FuzzReadLexSection(f *testing.F) {
	f.Add(lexSection(f, builtLex("HTTPServer parses retries", "words and more words")))
	f.Add(lexSection(f, &bm25.Index{}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ix, rest, err := readLexSection(b)
		if err != nil {
			return
		}
		// What decodes re-encodes to the bytes it was read from, and its
		// postings decode within their documents' bounds.
		if again := lexSection(t, ix); !bytes.Equal(again, b[:len(b)-len(rest)]) {
			t.Fatalf("re-encoding differs")
		}
		for id := range ix.Terms {
			ix.Postings(int32(id))
		}
	})
}

// FuzzDecodeSegment: whatever bytes pass a segment file's checksum,
// decoding them returns a segment or an error, never a panic or an
// allocation the bytes do not back.
func FuzzDecodeSegment(f *testing.F) {
	dir := f.TempDir()
	ix := &Index{Version: Version, Files: []FileEntry{{Path: "a.go", Key: "k", Count: 2}},
		Chunks: []chunk.Chunk{{Path: "a.go", Name: "A", StartLine: 1, EndLine: 3}, {Path: "a.go", Name: "B", Doc: "does b"}},
		Lex:    builtLex("HTTPServer parses", "retries"), FileLex: builtLex("HTTPServer parses retries")}
	ref, err := WriteSegment(dir, ix)
	if err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, ref.Name))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[indexHeaderSize:])
	f.Fuzz(func(t *testing.T, b []byte) {
		if seg, _, err := decodeSegment(b, ref); err == nil && len(seg.Chunks) != int(ref.Chunks) {
			t.Fatalf("decoded %d chunks of %d", len(seg.Chunks), ref.Chunks)
		}
	})
}

func TestComparePaths(t *testing.T) {
	t.Parallel()
	// The order of a walk that visits each directory's names sorted.
	walk := []string{"a/b.go", "a/c/d.go", "a.go", "a0", "ab/x.go", "b", "b/a", "b.go"}
	for i := range walk {
		for j := range walk {
			got := ComparePaths(walk[i], walk[j])
			if (i < j) != (got < 0) || (i == j) != (got == 0) {
				t.Errorf("ComparePaths(%q, %q) = %d", walk[i], walk[j], got)
			}
		}
	}
}

// FuzzDecodeCommit: whatever bytes pass the commit file's checksum,
// decoding them returns a commit that holds together (segment names of
// the form, files in walk order tiling each segment's chunks) or an
// error, never a panic.
func FuzzDecodeCommit(f *testing.F) {
	dir := f.TempDir()
	ix := &Index{Version: Version, Files: []FileEntry{{Path: "a.go", Key: "k", Count: 2}},
		Chunks: []chunk.Chunk{{Path: "a.go", Name: "A", StartLine: 1, EndLine: 3}, {Path: "a.go", Name: "B", Doc: "does b"}},
		Lex:    builtLex("HTTPServer parses", "retries"), FileLex: builtLex("HTTPServer parses retries")}
	if err := Write(dir, ix); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[indexHeaderSize:])
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeCommit(b)
		if err != nil {
			return
		}
		for _, s := range c.Segments {
			if !segmentName.MatchString(s.Name) || len(s.Files) == 0 {
				t.Fatalf("accepted segment %q with %d files", s.Name, len(s.Files))
			}
		}
	})
}
