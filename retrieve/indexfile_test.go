package retrieve

import (
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// builtIndex materialises testdata/repo.txtar, builds its index and returns
// the root, the graph, the index file and the top hits of a query.
func builtIndex(t *testing.T) (root string, g *memstore.Store, idx string, top []string) {
	t.Helper()
	root = testutil.WriteTxtar(t, "testdata/repo.txtar")
	g = testutil.FakeIndex(t, root)
	if _, err := Build(t.Context(), root, g, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	idx = filepath.Join(root, ".relay", IndexFile)
	return root, g, idx, searchTop(t, root, g)
}

const damageQuery = "retry the upload when the server is slow"

func searchTop(t *testing.T, root string, g *memstore.Store) []string {
	t.Helper()
	s, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Search(t.Context(), damageQuery, SearchOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 {
		t.Fatalf("no hits for %q", damageQuery)
	}
	return locs(res.Hits, 5)
}

// diskIndex is the index under the name of its type before format 7,
// which a bare gob stream names.
type diskIndex diskindex.Index

// oldFormatIndex is what relay wrote before format 7: a bare gob stream.
func oldFormatIndex(t *testing.T, idx string) []byte {
	t.Helper()
	ix, err := diskindex.Read(idx)
	if err != nil {
		t.Fatal(err)
	}
	ix.Version = 6
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode((*diskIndex)(ix)); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestIndexDamage: an index file that is empty, truncated, bit-flipped,
// overwritten or from another version is refused by Open with an error that
// names the file and the problem (damage) or is ErrNoIndex (another
// format: rebuilt on demand), and the next Build rebuilds it.
func TestIndexDamage(t *testing.T) {
	t.Parallel()
	damagedMsg := func(idx string) string {
		return "the search index at " + idx + " is damaged ("
	}
	tests := []struct {
		name    string
		corrupt func(t *testing.T, idx string, data []byte) []byte
		kind    error
		reason  string
	}{
		{"empty", func(*testing.T, string, []byte) []byte { return nil }, ErrIndexDamaged, "(the file is empty)"},
		{"truncated in the header", func(_ *testing.T, _ string, d []byte) []byte { return d[:10] }, ErrIndexDamaged, "(truncated to 10 bytes)"},
		{"truncated payload", func(_ *testing.T, _ string, d []byte) []byte { return d[:len(d)/2] }, ErrIndexDamaged, "truncated or overwritten"},
		{"trailing bytes", func(_ *testing.T, _ string, d []byte) []byte { return append(d, "junk"...) }, ErrIndexDamaged, "truncated or overwritten"},
		{"bit flip in the payload", func(_ *testing.T, _ string, d []byte) []byte {
			d[len(d)*2/3] ^= 0x10
			return d
		}, ErrIndexDamaged, "(checksum mismatch)"},
		{"gob: bad data", func(_ *testing.T, _ string, d []byte) []byte {
			// What the probe saw: bytes gob cannot decode.
			return bytes.Repeat([]byte{0xff, 0x81, 0x03}, 300)
		}, ErrIndexDamaged, "(not a relay search index)"},
		{"older format", func(t *testing.T, idx string, _ []byte) []byte { return oldFormatIndex(t, idx) },
			ErrNoIndex, "was written by an older relay"},
		{"other version", func(_ *testing.T, _ string, d []byte) []byte {
			binary.BigEndian.PutUint32(d[8:], 6)
			return d
		}, ErrNoIndex, "was written by another relay version (format 6; this relay reads format " + strconv.Itoa(diskindex.Version) + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, g, idx, want := builtIndex(t)
			data, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(idx, tt.corrupt(t, idx, data), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = Open(root, g, OpenOptions{})
			if !errors.Is(err, tt.kind) {
				t.Fatalf("Open of a damaged index = %v, want %v", err, tt.kind)
			}
			if tt.kind == ErrIndexDamaged && !strings.HasPrefix(err.Error(), damagedMsg(idx)) {
				t.Errorf("error = %q, want it to start with %q", err, damagedMsg(idx))
			}
			if !strings.Contains(err.Error(), tt.reason) || !strings.Contains(err.Error(), idx) {
				t.Errorf("error = %q, want the path and %q", err, tt.reason)
			}
			st, err := Build(t.Context(), root, g, BuildOptions{})
			if err != nil {
				t.Fatalf("Build over a damaged index: %v", err)
			}
			if st.Changed != st.Files || st.Reused != 0 {
				t.Errorf("Build reused chunks of a damaged index: %+v", st)
			}
			if diff := cmp.Diff(want, searchTop(t, root, g)); diff != "" {
				t.Errorf("search after the rebuild (-want +got):\n%s", diff)
			}
		})
	}
}

// TestIndexBitFlips flips 300 random single bits anywhere in the index
// file, one at a time: Open must refuse every one (CRC-32C detects every
// single-bit error) and never answer from the damaged file.
func TestIndexBitFlips(t *testing.T) {
	t.Parallel()
	root, g, idx, _ := builtIndex(t)
	orig, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(9, 300))
	for i := range 300 {
		data := bytes.Clone(orig)
		off := rng.IntN(len(data))
		bit := byte(1) << rng.IntN(8)
		data[off] ^= bit
		if err := os.WriteFile(idx, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := Open(root, g, OpenOptions{})
		if s != nil || !(errors.Is(err, ErrIndexDamaged) || errors.Is(err, ErrNoIndex)) {
			t.Fatalf("flip %d (byte %d of %d, bit %#x): Open = %v, %v; want a damage error", i, off, len(data), bit, s != nil, err)
		}
	}
}

// TestBuildRebuildsDamageInPlace: damage that keeps the index file's size
// and modification time (the manifest's proof of an unchanged index) is
// still found by the next Build, which rebuilds instead of reporting the
// index up to date.
func TestBuildRebuildsDamageInPlace(t *testing.T) {
	t.Parallel()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	// Files older than the manifest's racy window, so that the manifest
	// alone could prove the index up to date.
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	g := testutil.FakeIndex(t, root)
	if _, err := Build(t.Context(), root, g, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(root, ".relay", IndexFile)
	want := searchTop(t, root, g)
	paths, err := walkFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	graph, err := graphHashes(t.Context(), g)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := quickUnchanged(filepath.Dir(idx), root, paths, graph, nil); !ok {
		t.Fatal("the manifest does not prove the intact index up to date; the test would not reach the fast path")
	}
	fi, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(idx, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(idx, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	st, err := Build(t.Context(), root, g, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Changed != st.Files {
		t.Errorf("Build over an index damaged in place = %+v, want a full rebuild", st)
	}
	if diff := cmp.Diff(want, searchTop(t, root, g)); diff != "" {
		t.Errorf("search after the rebuild (-want +got):\n%s", diff)
	}
}

// snapshot records every path under dir with its mode, size and
// modification time.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = fmt.Sprintf("%v %d %d", fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReadersWriteNothing: Open reads a valid index without writing, and
// OpenInMemory, for an index directory that cannot be written, builds a
// searcher that answers as the persisted index does while leaving the
// directory (here holding an index of an older format) untouched.
func TestReadersWriteNothing(t *testing.T) {
	t.Parallel()
	root, g, idx, want := builtIndex(t)
	dir := filepath.Dir(idx)
	before := snapshot(t, root)
	if _, err := Open(root, g, OpenOptions{}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("Open changed the tree (-before +after):\n%s", diff)
	}

	if err := os.WriteFile(idx, oldFormatIndex(t, idx), 0o600); err != nil {
		t.Fatal(err)
	}
	before = snapshot(t, root)
	s, st, err := OpenInMemory(t.Context(), root, g, OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if st.Files == 0 || st.Changed != st.Files {
		t.Errorf("in-memory build stats = %+v", st)
	}
	res, err := s.Search(t.Context(), damageQuery, SearchOptions{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, locs(res.Hits, 5)); diff != "" {
		t.Errorf("in-memory search (-persisted +in memory):\n%s", diff)
	}
	if diff := cmp.Diff(before, snapshot(t, root)); diff != "" {
		t.Errorf("OpenInMemory changed the tree (-before +after):\n%s", diff)
	}
}

// TestStateDirInsideRepository: an index directory inside the repository
// under another name than .relay (--store ./idx) is not indexed itself.
func TestStateDirInsideRepository(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{
		"notes.md":            "# Notes\n\nUploads are retried.\n",
		"idx/feedback.jsonl":  `{"file":"a.go","comment":"uploads retried","accepted":true}` + "\n",
		"idx/runs/run.jsonl":  `{"kind":"tool","text":"uploads"}` + "\n",
		"idxnot/kept.md":      "# Kept\n",
		"sub/idx/also.md":     "# Also kept: only the state directory itself is skipped\n",
		".gitignore":          strings.Repeat("x", 128<<10) + "\n*.txt\n",
		"debug.txt":           "ignored by the rule after the long line\n",
		"idx/retrieve.sample": "not a known language anyway\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := walkFiles(root, filepath.Join(root, "idx"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".gitignore", "idxnot/kept.md", "notes.md", "sub/idx/also.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walkFiles (-want +got):\n%s", diff)
	}
}
