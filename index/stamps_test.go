//go:build cgo

package index

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
)

// setMtime sets the modification (and access) time of root/rel.
func setMtime(t *testing.T, root, rel string, mt time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(root, filepath.FromSlash(rel)), mt, mt); err != nil {
		t.Fatal(err)
	}
}

// TestStampsRacyEdit: an edit that keeps a file's size and times (a save
// in the clock tick of the previous run's read, its change time standing
// still) is found because the file's time lies within the racy window of
// that run: the graph is not stale. Trusting the stamp alone would keep
// the old function.
func TestStampsRacyEdit(t *testing.T) {
	old := sysStampOf
	sysStampOf = func(fs.FileInfo) (int64, int64) { return 0, 0 } // a change time that did not move
	t.Cleanup(func() { sysStampOf = old })

	root := t.TempDir()
	testutil.WriteFile(t, root, "a.py", "def alpha():\n    return 1\n")
	testutil.WriteFile(t, root, "b.py", "def beta():\n    return 2\n")
	// Within the window of every run below, whatever the machine's load.
	mt := time.Now().Add(time.Hour)
	setMtime(t, root, "a.py", mt)
	setMtime(t, root, "b.py", time.Now().Add(-time.Hour))
	st := openStore(t)
	runIndex(t, st, root, false)

	testutil.WriteFile(t, root, "a.py", "def gamma():\n    return 1\n") // same size
	setMtime(t, root, "a.py", mt)
	sum := runIndex(t, st, root, false)
	if sum.Unchanged || sum.Changed != 1 {
		t.Errorf("run after the racy edit: unchanged=%v changed=%d, want the edit found (changed=1)", sum.Unchanged, sum.Changed)
	}
	dumpHolds(t, "racy edit", dump(t, st), []string{"gamma"}, []string{"alpha"})
}

// TestStampsOnlyRacyHashed: a scan reads only the files its stamps cannot
// vouch for (modified within the window of the scan that recorded them,
// or whose stat changed); the others take the stamp's hash, which is the
// file's.
func TestStampsOnlyRacyHashed(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"a.py": "a = 1\n", "b.py": "b = 2\n", "c.py": "c = 3\n", "d.py": "d = 4\n"}
	for rel, body := range files {
		testutil.WriteFile(t, root, rel, body)
		setMtime(t, root, rel, time.Now().Add(-time.Hour))
	}
	setMtime(t, root, "a.py", time.Now().Add(time.Hour)) // within the window
	first, err := scan(t.Context(), root, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	first.rf.close()
	if first.hashed != len(files) {
		t.Errorf("first scan hashed %d files, want %d", first.hashed, len(files))
	}
	setMtime(t, root, "c.py", time.Now().Add(-2*time.Hour)) // the stat changed, the content did not

	second, err := scan(t.Context(), root, 2, first.stamps)
	if err != nil {
		t.Fatal(err)
	}
	second.rf.close()
	if second.hashed != 2 { // a.py (racy), c.py (its stat)
		t.Errorf("second scan hashed %d files, want 2 (a.py within the window, c.py whose time moved)", second.hashed)
	}
	if second.settled != 1 {
		t.Errorf("second scan: settled = %d, want 1 (c.py, hashed and now outside the window)", second.settled)
	}
	py := second.langs[langIndex(t, "python")]
	for rel := range files {
		if diff := cmp.Diff(first.langs[langIndex(t, "python")][rel], py[rel]); diff != "" {
			t.Errorf("%s (-first +second):\n%s", rel, diff)
		}
	}
}

// TestStampsUntouchedInWindowNotReextracted: right after an edit, the
// edited file lies within the window of the run that indexed it; the next
// run hashes it, finds it unchanged and re-extracts nothing. Once the file
// is older than the window, a run that changes nothing writes the table
// again, after which no file is read.
func TestStampsUntouchedInWindowNotReextracted(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFile(t, root, "a.py", "def alpha():\n    return 1\n")
	testutil.WriteFile(t, root, "b.py", "def beta():\n    return 2\n")
	setMtime(t, root, "b.py", time.Now().Add(-time.Hour))
	st := openStore(t)
	runIndex(t, st, root, false)
	testutil.WriteFile(t, root, "a.py", "def alpha():\n    return 10\n")
	setMtime(t, root, "a.py", time.Now().Add(time.Hour))
	if sum := runIndex(t, st, root, false); sum.Changed != 1 {
		t.Fatalf("edit run: changed=%d, want 1", sum.Changed)
	}
	if sum := runIndex(t, st, root, false); !sum.Unchanged || sum.Changed != 0 {
		t.Errorf("run right after the edit: unchanged=%v changed=%d, want nothing re-extracted", sum.Unchanged, sum.Changed)
	}
	before := storedStamps(t, st)
	if before.files["a.py"].mod < before.start-int64(racyWindow) {
		t.Fatal("a.py should lie within the window of the stored table")
	}
	setMtime(t, root, "a.py", time.Now().Add(-time.Hour)) // time passed
	if sum := runIndex(t, st, root, false); !sum.Unchanged {
		t.Errorf("settling run: unchanged=%v, want true", sum.Unchanged)
	}
	after := storedStamps(t, st)
	if after.start == before.start {
		t.Error("a run that changed nothing but settled a file did not rewrite the stamps table")
	}
	tr, err := scan(t.Context(), root, 2, after)
	if err != nil {
		t.Fatal(err)
	}
	tr.rf.close()
	if tr.hashed != 0 || tr.settled != 0 {
		t.Errorf("scan after the table was rewritten: hashed=%d settled=%d, want 0, 0", tr.hashed, tr.settled)
	}
}

// TestWorthWriting: a no-change run writes the table for many settled
// files (a fresh checkout), not for the one an edit left in the window.
func TestWorthWriting(t *testing.T) {
	for _, tt := range []struct {
		settled, total int
		want           bool
	}{
		{0, 10, false}, {1, 2, true}, {1, 16, true}, {1, 17, false}, {1, 9000, false},
		{255, 9000, false}, {256, 9000, true}, {600, 9000, true}, {9000, 9000, true},
	} {
		if got := worthWriting(tt.settled, tt.total); got != tt.want {
			t.Errorf("worthWriting(%d, %d) = %v, want %v", tt.settled, tt.total, got, tt.want)
		}
	}
}

// storedStamps reads the stamps table of st.
func storedStamps(t *testing.T, st graphdb.Store) *stamps {
	t.Helper()
	text, err := st.Meta(t.Context(), MetaStamps)
	if err != nil {
		t.Fatal(err)
	}
	s, err := decodeStamps(text)
	if err != nil || s == nil {
		t.Fatalf("stored stamps: %v (%d bytes)", err, len(text))
	}
	return s
}

// langIndex returns the index in fileLangs of the language named name.
func langIndex(t *testing.T, name string) int {
	t.Helper()
	for i, l := range fileLangs {
		if l.Name == name {
			return i
		}
	}
	t.Fatalf("no language %q", name)
	return -1
}

// FuzzStamps: any table text decodes or fails without panicking, and a
// table of any paths reads back as written.
func FuzzStamps(f *testing.F) {
	f.Add("a.py", "stamps-1\t5\nx.py\t1\t2\t3\t4\tabc\n")
	f.Add("dir/\"quoted\"\tand\nnewline\\.py", "stamps-1\t0\n\"a\\tb\"\t1\t2\t3\t4\t\n")
	f.Add("\xff\x00é.py", "stamps-2\t1\n")
	f.Fuzz(func(t *testing.T, rel, text string) {
		_, _ = decodeStamps(text)
		if strings.ContainsRune(rel, '\x00') {
			return // not a path
		}
		want := &stamps{start: 7, files: map[string]stamp{rel: {size: 1, mod: -2, ctime: 3, ino: 4, hash: "h"}, "b": {hash: "x"}}}
		got, err := decodeStamps(want.encode())
		if err != nil {
			t.Fatalf("decode(encode(%q)): %v", rel, err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(stamps{}, stamp{})); diff != "" {
			t.Errorf("round trip (-want +got):\n%s", diff)
		}
	})
}
