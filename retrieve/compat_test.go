package retrieve

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// fixtureFormat is the format of testdata/format9.idx: the index of
// testdata/repo.txtar (with testutil.FakeIndex's graph) that relay wrote
// before retrieve was split into internal packages.
const fixtureFormat = 9

// TestIndexOfEarlierRelay: an index file an earlier relay wrote keeps
// working. While the format is the fixture's, it decodes to the index this
// relay builds from the same tree and graph, Open serves it, and a Build
// over it reuses every file; once the format changes, Open refuses it as
// ErrNoIndex (another format) and a Build rebuilds it.
func TestIndexOfEarlierRelay(t *testing.T) {
	t.Parallel()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/format9.idx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	if diskindex.Version != fixtureFormat {
		if _, err := Open(root, g, OpenOptions{Dir: dir}); !errors.Is(err, ErrNoIndex) {
			t.Fatalf("Open of a format %d index = %v, want ErrNoIndex", fixtureFormat, err)
		}
		st, err := Build(t.Context(), root, g, BuildOptions{Dir: dir})
		if err != nil || st.Reused != 0 || st.Changed != st.Files {
			t.Fatalf("Build over a format %d index = %+v, %v; want a rebuild", fixtureFormat, st, err)
		}
		return
	}
	fresh := t.TempDir()
	if _, err := Build(t.Context(), root, g, BuildOptions{Dir: fresh}); err != nil {
		t.Fatal(err)
	}
	want, err := diskindex.Read(filepath.Join(fresh, IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	got, err := diskindex.Read(filepath.Join(dir, IndexFile))
	if err != nil {
		t.Fatalf("read the earlier relay's index: %v", err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(bm25.Index{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("index (-built now +written earlier):\n%s", diff)
	}
	if _, err := Open(root, g, OpenOptions{Dir: dir}); err != nil {
		t.Fatalf("Open of the earlier relay's index: %v", err)
	}
	st, err := Build(t.Context(), root, g, BuildOptions{Dir: dir})
	if err != nil || st.Changed != 0 || st.Reused != st.Files || st.Files == 0 {
		t.Errorf("Build over the earlier relay's index = %+v, %v; want every file reused", st, err)
	}
}
