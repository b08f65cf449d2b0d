package embedded

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
)

// TestRecordChecksums damages one stored value at a time behind relay's
// back (through SQL, so SQLite's own structure stays valid and only the
// record checksums can tell) in a store without a seal, and checks that the
// read that would answer from it fails with graphdb.ErrCorrupt, that the
// store then refuses every other call too, and that nothing was answered.
func TestRecordChecksums(t *testing.T) {
	g := genGraph(20, 3, 2)
	target := g.funcs[7] // a callable with callers (zipf hubs come first)
	tests := []struct {
		name   string
		damage string
		read   func(t *testing.T, s *Store) error
	}{
		{
			name:   "node name",
			damage: "UPDATE nodes SET name = 'M9' WHERE sid = (SELECT sid FROM syms WHERE id = '" + string(target) + "')",
			read: func(t *testing.T, s *Store) error {
				_, err := s.Node(t.Context(), target)
				return err
			},
		},
		{
			name:   "node doc in rest",
			damage: "UPDATE nodes SET rest = CAST(replace(CAST(rest AS TEXT), 'synthetic', 'Synthetic') AS BLOB)",
			read: func(t *testing.T, s *Store) error {
				_, err := s.FindSymbols(t.Context(), graphdb.SymbolQuery{File: "p000/f0.go"})
				return err
			},
		},
		{
			name:   "id text",
			damage: "UPDATE syms SET id = id || 'x' WHERE id = '" + string(g.funcs[0]) + "'",
			read: func(t *testing.T, s *Store) error {
				_, err := s.Traverse(t.Context(), target, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Outbound, 3, 0)
				if err == nil {
					_, err = s.Neighbors(t.Context(), g.funcs[1], graphdb.EdgeCalls, graphdb.Inbound, 0)
				}
				return err
			},
		},
		{
			name:   "file record",
			damage: "UPDATE files SET hash = 'feed' WHERE path = 'p000/f1.go'",
			read: func(t *testing.T, s *Store) error {
				_, err := s.Files(t.Context())
				return err
			},
		},
		{
			name:   "edge set",
			damage: "UPDATE edgesets SET data = substr(data, 1, 5) || x'7f' || substr(data, 7) WHERE fid = 3",
			read: func(t *testing.T, s *Store) error {
				return s.Warm(t.Context())
			},
		},
		{
			name:   "edge counts",
			damage: "UPDATE edgesets SET counts = replace(counts, '\"calls\":', '\"calls\":1')",
			read: func(t *testing.T, s *Store) error {
				_, err := s.Stats(t.Context())
				return err
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			s := writeGraph(t, dir, g)
			s.Close()
			rawExec(t, dir, tc.damage)
			os.Remove(filepath.Join(dir, sealName)) // only the records can tell
			for _, name := range []string{snapshotName, "adjacency.out.bin", "adjacency.in.bin"} {
				os.Remove(filepath.Join(dir, name))
			}
			ro, err := Open(dir, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer ro.Close()
			err = tc.read(t, ro)
			if !errors.Is(err, graphdb.ErrCorrupt) {
				t.Fatalf("read after damaging the %s = %v, want graphdb.ErrCorrupt", tc.name, err)
			}
			if de := (*DamageError)(nil); !errors.As(err, &de) || de.Dir != dir {
				t.Errorf("error %v is not a *DamageError of %s", err, dir)
			}
			for _, m := range []string{dir, "is damaged"} {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("error %q does not say %q", err, m)
				}
			}
			if _, err := ro.Meta(t.Context(), "x"); !errors.Is(err, graphdb.ErrCorrupt) {
				t.Errorf("Meta after damage was found = %v, want the same damage error (sticky)", err)
			}
			// A writable open checks every record of an unsealed store.
			if w, err := Open(dir, Options{}); !errors.Is(err, graphdb.ErrCorrupt) {
				if err == nil {
					w.Close()
				}
				t.Errorf("writable open of the damaged store = %v, want graphdb.ErrCorrupt", err)
			}
		})
	}
}

// TestSeal: closing a writer seals graph.db; a changed byte anywhere in it
// (here in the last MiB of a multi-MiB file) fails every open with
// graphdb.ErrCorrupt naming where; Begin opens the seal before writing.
func TestSeal(t *testing.T) {
	dir := t.TempDir()
	s := writeGraph(t, dir, genGraph(1500, 6, 3))
	s.Close()
	raw, err := os.ReadFile(filepath.Join(dir, sealName))
	if err != nil {
		t.Fatalf("no seal after the writer closed: %v", err)
	}
	info, err := parseSeal(raw)
	if err != nil || len(info.sums) < 3 || info.open {
		t.Fatalf("seal of a %d-byte graph.db: %d chunks (open %v), %v", info.size, len(info.sums), info.open, err)
	}
	if err := verifySeal(dir, ownership{}); err != nil {
		t.Fatalf("verifySeal of an intact store: %v", err)
	}

	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := verifySeal(dir, ownership{}); !errors.Is(err, errNoSeal) {
		t.Errorf("the seal was not opened by Begin: verifySeal = %v", err)
	}
	tx.Rollback()
	w.Close()
	if err := verifySeal(dir, ownership{}); err != nil {
		t.Fatalf("the writer did not reseal on Close: %v", err)
	}

	db := filepath.Join(dir, dbName)
	b, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	off := len(b) - 100
	b[off] ^= 0x10
	os.WriteFile(db, b, 0o644)
	for _, opts := range []Options{{ReadOnly: true}, {}} {
		_, err := Open(dir, opts)
		if !errors.Is(err, graphdb.ErrCorrupt) || !strings.Contains(err.Error(), "does not match the checksum") {
			t.Errorf("Open(%+v) of a flipped bit = %v, want graphdb.ErrCorrupt naming the checksum", opts, err)
		}
	}
	s, err = Open(dir, Options{Rebuild: true})
	if err != nil {
		t.Fatalf("rebuild: %v", err)
	}
	defer s.Close()
	if !strings.Contains(s.Rebuilt(), "moved it to graph.db.corrupt-") {
		t.Errorf("Rebuilt() = %q", s.Rebuilt())
	}
}
