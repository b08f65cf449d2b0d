package retrieve

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// lexSection encodes ixs as consecutive sections.
func lexSection(t testing.TB, ixs ...*lexIndex) []byte {
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
func builtLex(texts ...string) *lexIndex {
	b := newLexBuilder()
	for _, s := range texts {
		b.add(chunkText{name: "n", path: "p/f.go", body: s})
	}
	return b.finish()
}

func TestLexSectionRoundTrip(t *testing.T) {
	t.Parallel()
	opt := cmpopts.IgnoreUnexported(lexIndex{})
	for _, tt := range []struct {
		name string
		ixs  []*lexIndex
	}{
		{"empty", []*lexIndex{{}}},
		{"one", []*lexIndex{builtLex("HTTPServer parses retries", "a longer body of words and more words")}},
		{"two in a row", []*lexIndex{builtLex("alpha beta"), builtLex("gamma", "delta gamma größe")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rest := lexSection(t, tt.ixs...)
			for i, want := range tt.ixs {
				var got *lexIndex
				var err error
				got, rest, err = readLexSection(rest)
				if err != nil {
					t.Fatalf("section %d: %v", i, err)
				}
				if want.Terms == nil { // decoded empty sections have empty, not nil, slices
					want = &lexIndex{Terms: []string{}, Blobs: [][]byte{}, DF: []int32{}, DocLen: []float32{}}
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
	f.Add(lexSection(f, &lexIndex{}))
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
			ix.postings(int32(id))
		}
	})
}

// FuzzDecodePayload: whatever bytes pass the file's checksum, decoding
// them returns an index or an error, never a panic or an allocation the
// bytes do not back.
func FuzzDecodePayload(f *testing.F) {
	dir := f.TempDir()
	ix := &diskIndex{Version: formatVersion, Files: []fileEntry{{Path: "a.go", Key: "k", Count: 2}},
		Chunks: []Chunk{{Path: "a.go", Name: "A", StartLine: 1, EndLine: 3}, {Path: "a.go", Name: "B", Doc: "does b"}},
		Lex:    builtLex("HTTPServer parses", "retries"), FileLex: builtLex("HTTPServer parses retries")}
	if err := writeIndex(dir, ix); err != nil {
		f.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, IndexFile))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[indexHeaderSize:])
	f.Fuzz(func(t *testing.T, b []byte) {
		if ix, err := decodePayload(b); err == nil && ix.Version != formatVersion {
			t.Fatalf("decoded format %d", ix.Version)
		}
	})
}
