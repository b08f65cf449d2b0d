package retrieve

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestForeignIndexRefused: with a key, a search index that came with the
// repository (a copy: a new file; or one written without the key) is
// refused by Open with ErrIndexForeign, is neither reused nor
// called up to date by Build, and a trusted Build gives it the key's MAC.
func TestForeignIndexRefused(t *testing.T) {
	key := []byte("the key of this user ............")
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	tests := []struct {
		name  string
		key   []byte // the key the index was built with
		trust bool
	}{
		{name: "copy of this user's index", key: key},
		{name: "index of another user", key: []byte("someone else's key ..............")},
		{name: "index built without a key", key: nil},
		{name: "shared on purpose", key: nil, trust: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			if _, err := Build(t.Context(), root, g, BuildOptions{Dir: src, Key: tt.key}); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "state")
			if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			s, err := Open(root, g, OpenOptions{Dir: dir, Key: key, TrustForeign: tt.trust})
			if tt.trust {
				if err != nil {
					t.Fatalf("trusted Open: %v", err)
				}
			} else if s != nil || !errors.Is(err, ErrIndexForeign) || !errors.Is(err, ErrIndexDamaged) || !strings.Contains(err.Error(), "not written by relay for this user") {
				t.Fatalf("Open of a foreign index = %v, want ErrIndexForeign saying whose it is not", err)
			}
			st, err := Build(t.Context(), root, g, BuildOptions{Dir: dir, Key: key, TrustForeign: tt.trust})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.trust && (st.Reused != 0 || st.Changed == 0) {
				t.Errorf("Build over a foreign index reused %d files and changed %d, want a rebuild", st.Reused, st.Changed)
			}
			if _, err := Open(root, g, OpenOptions{Dir: dir, Key: key}); err != nil {
				t.Errorf("Open after Build is not this user's index: %v", err)
			}
			if _, err := Open(root, g, OpenOptions{Dir: src, Key: nil}); err != nil {
				t.Errorf("Open without a key judges nothing: %v", err)
			}
		})
	}
}
