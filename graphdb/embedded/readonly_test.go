package embedded

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// dirState lists a directory's files with their sizes and modification
// times, to show that nothing in it was written.
func dirState(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %s %d", e.Name(), info.ModTime().Format(time.RFC3339Nano), info.Size()))
	}
	sort.Strings(out)
	return out
}

// TestReadOnlyDirectory takes the read-only paths by making writable say
// no, as on a read-only file system (tests run as root here, and root
// ignores permission bits, so chmod cannot show them): a reader opens the
// store immutable, answers exactly what a writable open answers, and
// leaves every file untouched — no -wal, -shm, snapshot or lock file; a
// writer is refused with an error naming the directory and what to do.
// TestReadOnlyMount (Linux) checks the same on a real read-only mount,
// including that pathWritable notices it.
func TestReadOnlyDirectory(t *testing.T) {
	dir := t.TempDir()
	s := writeGraph(t, dir, genGraph(30, 4, 3))
	want := digest(t, s)
	s.Close()
	for _, name := range []string{snapshotName, "adjacency.out.bin", "adjacency.in.bin"} { // a reader must not write one
		os.Remove(filepath.Join(dir, name))
	}
	if _, err := os.Stat(filepath.Join(dir, sealName)); err != nil {
		t.Fatalf("closing the writer left no seal: %v", err)
	}
	writable = func(string) bool { return false }
	t.Cleanup(func() { writable = pathWritable })

	before := dirState(t, dir)
	if got := readOnlyMode(dir); got != modeImmutable {
		t.Errorf("readOnlyMode = %q, want %q", got, modeImmutable)
	}
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only open of a read-only directory: %v", err)
	}
	if got := digest(t, ro); got != want {
		t.Errorf("read-only answers differ from the writer's")
	}
	ro.Close()
	if diff := cmp.Diff(before, dirState(t, dir)); diff != "" {
		t.Errorf("a read-only open changed the directory (-before +after):\n%s", diff)
	}

	_, err = Open(dir, Options{})
	if !errors.Is(err, ErrReadOnly) {
		t.Fatalf("writable open of a read-only directory = %v, want ErrReadOnly", err)
	}
	if re := (*ReadOnlyError)(nil); !errors.As(err, &re) || re.Dir != dir || re.Pending {
		t.Errorf("error %v is not a writable open's *ReadOnlyError of %s", err, dir)
	}
	for _, m := range []string{dir, "read-only"} {
		if !strings.Contains(err.Error(), m) {
			t.Errorf("error %q does not say %q", err, m)
		}
	}
}

// TestReadOnlyModeDSN: the read-only modes reach SQLite as URI parameters.
func TestReadOnlyModeDSN(t *testing.T) {
	tests := []struct {
		mode string
		want []string
		not  []string
	}{
		{modeWriter, []string{"_journal_mode=WAL", "_txlock=immediate"}, []string{"mode=ro", "immutable"}},
		{modeReader, []string{"query_only"}, []string{"mode=ro", "immutable"}},
		{modeReadOnly, []string{"mode=ro", "query_only"}, []string{"immutable"}},
		{modeImmutable, []string{"mode=ro", "immutable=1"}, []string{"_journal_mode"}},
	}
	for _, tc := range tests {
		d := dsn("/x/graph.db", tc.mode)
		if !strings.HasPrefix(d, "file:/x/graph.db?") {
			t.Errorf("%s: dsn %q does not start with file:", tc.mode, d)
		}
		for _, w := range tc.want {
			if !strings.Contains(d, strings.ReplaceAll(strings.ReplaceAll(w, "(", "%28"), ")", "%29")) {
				t.Errorf("%s: dsn %q lacks %q", tc.mode, d, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(d, n) {
				t.Errorf("%s: dsn %q has %q", tc.mode, d, n)
			}
		}
	}
}
