package embedded

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// copyStore copies the regular files of src into a new directory (new
// files, new inodes: what a checkout or `cp -r` of a committed store
// makes) and returns it.
func copyStore(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), ".relay")
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestForeignStore: with a key, only a store whose seal carries that key's
// MAC for the very graph.db it opens is believed. A copy (new inode), a
// store sealed under another key or without one, and one whose seal was
// removed are refused by readers with ErrForeign and advice, and moved
// aside and rebuilt by a writable open with Rebuild; TrustForeign believes
// them, and a writable trusted open makes the store the key's own.
func TestForeignStore(t *testing.T) {
	keyA, keyB := []byte("key A: 32 bytes of secret ......"), []byte("key B: 32 bytes of secret ......")
	g := genGraph(30, 3, 2)
	tests := []struct {
		name    string
		writeKy []byte
		prepare func(t *testing.T, dir string) string // returns the directory to open
		openKey []byte
		foreign bool
	}{
		{name: "own store", writeKy: keyA, openKey: keyA, prepare: func(t *testing.T, dir string) string { return dir }},
		{name: "copied store", writeKy: keyA, openKey: keyA, foreign: true, prepare: copyStore},
		{name: "another key", writeKy: keyB, openKey: keyA, foreign: true, prepare: func(t *testing.T, dir string) string { return dir }},
		{name: "sealed without a key", writeKy: nil, openKey: keyA, foreign: true, prepare: func(t *testing.T, dir string) string { return dir }},
		{name: "seal removed", writeKy: keyA, openKey: keyA, foreign: true, prepare: func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, sealName)); err != nil {
				t.Fatal(err)
			}
			return dir
		}},
		{name: "no key judges nothing", writeKy: keyB, openKey: nil, prepare: copyStore},
	}
	// Each foreign store is also adopted by a trusted writable open (on a
	// copy of it): after that it is the key's own.
	adopt := func(t *testing.T, dir string, key []byte) {
		t.Helper()
		cp := copyStore(t, dir)
		w, err := Open(cp, Options{Key: key, TrustForeign: true, Rebuild: true})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		r, err := Open(cp, Options{ReadOnly: true, Key: key})
		if err != nil {
			t.Fatalf("after a trusted writable open the store is not the key's own: %v", err)
		}
		r.Close()
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := t.TempDir()
			s, err := Open(src, Options{Key: tt.writeKy})
			if err != nil {
				t.Fatal(err)
			}
			writeOwners(t, s, g)
			s.Close()
			dir := tt.prepare(t, src)

			r, err := Open(dir, Options{ReadOnly: true, Key: tt.openKey})
			if !tt.foreign {
				if err != nil {
					t.Fatalf("read-only open of a store that is not foreign: %v", err)
				}
				r.Close()
				return
			}
			if fe := (*ForeignError)(nil); !errors.As(err, &fe) || !errors.Is(err, ErrForeign) || fe.Dir != dir || strings.Contains(err.Error(), "relay index") {
				t.Fatalf("read-only open = %v, want a *ForeignError naming %s (and no command)", err, dir)
			}
			adopt(t, dir, tt.openKey)
			if r, err := Open(dir, Options{ReadOnly: true, Key: tt.openKey, TrustForeign: true}); err != nil {
				t.Errorf("trusted read-only open: %v", err)
			} else {
				r.Close()
			}

			w, err := Open(dir, Options{Key: tt.openKey, Rebuild: true})
			if err != nil {
				t.Fatalf("writable open with Rebuild: %v", err)
			}
			if !strings.Contains(w.Rebuilt(), "not written by relay") || !strings.Contains(w.Rebuilt(), "graph.db.foreign-") {
				t.Errorf("Rebuilt() = %q, want it to say the graph was foreign and where it went", w.Rebuilt())
			}
			if files, err := w.Files(t.Context()); err != nil || len(files) != 0 {
				t.Errorf("the rebuilt store holds %d files (%v), want none of the foreign graph", len(files), err)
			}
			writeOwners(t, w, g)
			w.Close()
			r, err = Open(dir, Options{ReadOnly: true, Key: tt.openKey})
			if err != nil {
				t.Fatalf("the rebuilt store is not the key's own: %v", err)
			}
			r.Close()
		})
	}
}

// TestTrustForeignAdopts: a writable open with TrustForeign keeps a
// foreign graph and seals it with its key on Close, so later opens without
// trust believe it; writing between (Begin opens the seal) keeps it the
// key's own for readers.
func TestTrustForeignAdopts(t *testing.T) {
	key := []byte("a key of this user ..............")
	src := t.TempDir()
	s := writeGraph(t, src, genGraph(20, 3, 2))
	s.Close()
	dir := copyStore(t, src)
	w, err := Open(dir, Options{Key: key, TrustForeign: true, Rebuild: true})
	if err != nil {
		t.Fatal(err)
	}
	if w.Rebuilt() != "" {
		t.Errorf("a trusted store was rebuilt: %s", w.Rebuilt())
	}
	w.Close()
	r, err := Open(dir, Options{ReadOnly: true, Key: key})
	if err != nil {
		t.Fatalf("after a trusted writable open the store is not the key's: %v", err)
	}
	if files, err := r.Files(t.Context()); err != nil || len(files) != 20 {
		t.Errorf("adopted store holds %d files (%v), want 20", len(files), err)
	}
	r.Close()

	w, err = Open(dir, Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	r, err = Open(dir, Options{ReadOnly: true, Key: key})
	if err != nil {
		t.Errorf("a reader while the owner writes: %v", err)
	} else {
		r.Close()
	}
	tx.Rollback()
	w.Close()
}

// writeOwners writes every owner of g in one transaction of s.
func writeOwners(t *testing.T, s *Store, g *synthGraph) {
	t.Helper()
	tx, err := s.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range g.owners {
		if err := tx.ReplaceFile(t.Context(), o.file, o.nodes, o.edges); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// TestStoreLinkRefused: a store directory that is a link (a committed
// `sub/.relay -> ..`), or a file of the store that is one, is refused with
// ErrLink, and nothing is written through it.
func TestStoreLinkRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, store, outside string)
	}{
		{name: "directory link", setup: func(t *testing.T, store, outside string) {
			if err := os.Symlink(outside, store); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "write.lock link", setup: func(t *testing.T, store, outside string) {
			if err := os.Mkdir(store, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(store, lockName)); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "graph.db link", setup: func(t *testing.T, store, outside string) {
			if err := os.Mkdir(store, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Join(outside, "victim"), filepath.Join(store, dbName)); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := t.TempDir()
			victim := filepath.Join(outside, "victim")
			if err := os.WriteFile(victim, []byte("not relay's\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			store := filepath.Join(t.TempDir(), ".relay")
			tt.setup(t, store, outside)
			for _, opts := range []Options{{Rebuild: true}, {ReadOnly: true}} {
				s, err := Open(store, opts)
				if err == nil {
					s.Close()
				}
				if !errors.Is(err, ErrLink) {
					t.Errorf("Open(%+v) = %v, want ErrLink", opts, err)
				}
			}
			var names []string
			filepath.WalkDir(outside, func(p string, d fs.DirEntry, err error) error {
				if p != outside {
					names = append(names, d.Name())
				}
				return nil
			})
			if len(names) != 1 {
				t.Errorf("written outside the store: %q", names)
			}
			if b, _ := os.ReadFile(victim); string(b) != "not relay's\n" {
				t.Errorf("the link's target was changed: %q", b)
			}
		})
	}
}

// TestForeignSnapshotIgnored: adjacency snapshots that came with the
// repository (built from another call graph over the same ids, at the same
// generation, by another user's relay) are not loaded into this user's
// store: its queries answer from its own graph.
func TestForeignSnapshotIgnored(t *testing.T) {
	key := []byte("the key of this user .............")
	g := genGraph(40, 4, 3)
	target := []graphdb.EdgeKind{graphdb.EdgeCalls}
	dir := t.TempDir()
	s, err := Open(dir, Options{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	writeOwners(t, s, g)
	if err := s.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	want, err := s.Traverse(t.Context(), g.funcs[0], target, graphdb.Inbound, 2, 0)
	if err != nil || len(want) == 0 {
		t.Fatalf("Traverse = %d hops, %v", len(want), err)
	}
	s.Close()

	other := t.TempDir()
	o, err := Open(other, Options{Key: []byte("the key of someone else .........")})
	if err != nil {
		t.Fatal(err)
	}
	writeOwners(t, o, genGraphSeed(2, 40, 4, 3))
	if err := o.Warm(t.Context()); err != nil {
		t.Fatal(err)
	}
	forged, err := o.Traverse(t.Context(), g.funcs[0], target, graphdb.Inbound, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	o.Close()
	if cmp.Equal(want, forged) {
		t.Fatal("the other call graph answers the same: nothing to tell apart")
	}
	for _, name := range []string{snapshotName, "adjacency.out.bin", "adjacency.in.bin"} {
		b, err := os.ReadFile(filepath.Join(other, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir, Options{ReadOnly: true, Key: key})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.Traverse(t.Context(), g.funcs[0], target, graphdb.Inbound, 2, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("callers answered from the foreign snapshot (-own graph +got):\n%s", d)
	}
}
