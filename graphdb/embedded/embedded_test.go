package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/graphdb"
)

// assertAgree checks the native Traverse against graphdb.TraverseNeighbors
// from each start, for several kind sets, both directions and depths.
func assertAgree(t *testing.T, s *Store, starts []graphdb.NodeID) {
	t.Helper()
	ctx := t.Context()
	sets := [][]graphdb.EdgeKind{
		{graphdb.EdgeCalls},
		{graphdb.EdgeParent},
		{graphdb.EdgeCalls, graphdb.EdgeParent},
		{graphdb.EdgeParent, graphdb.EdgeCalls, graphdb.EdgeImplements},
	}
	for _, start := range starts {
		for _, kinds := range sets {
			for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
				for _, depth := range []int{1, 3} {
					for _, limit := range []int{0} { // limits: see storetest
						want, err := graphdb.TraverseNeighbors(ctx, s, start, kinds, dir, depth, limit)
						if err != nil {
							t.Fatal(err)
						}
						got, err := s.Traverse(ctx, start, kinds, dir, depth, limit)
						if err != nil {
							t.Fatal(err)
						}
						if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
							t.Fatalf("Traverse(%s, %v, %s, %d, %d) disagrees with TraverseNeighbors (-want +got):\n%s", start, kinds, dir, depth, limit, diff)
						}
					}
				}
			}
		}
	}
	// Multi-source: overlapping windows of starts, all of them, and all
	// of them reversed (ties go to the earlier start).
	var multi [][]graphdb.NodeID
	for i := 0; i < len(starts); i += 2 {
		multi = append(multi, starts[i:min(i+4, len(starts))])
	}
	reversed := slices.Clone(starts)
	slices.Reverse(reversed)
	multi = append(multi, starts, reversed)
	for _, ss := range multi {
		for _, kinds := range sets {
			for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
				for _, depth := range []int{1, 3} {
					want, err := graphdb.TraverseMultiNeighbors(ctx, s, ss, kinds, dir, depth, 0)
					if err != nil {
						t.Fatal(err)
					}
					got, err := s.TraverseMulti(ctx, ss, kinds, dir, depth, 0)
					if err != nil {
						t.Fatal(err)
					}
					if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
						t.Fatalf("TraverseMulti(%v, %v, %s, %d) disagrees with TraverseMultiNeighbors (-want +got):\n%s", ss, kinds, dir, depth, diff)
					}
				}
			}
		}
	}
}

// randomGraph is a small graph with everything a traversal must get right:
// cycles, self loops, duplicate edges, several kinds between the same
// nodes, edges whose site file differs from the owner, and dangling edges.
func randomGraph(seed uint64, files int) []synthOwner {
	r := rand.New(rand.NewPCG(seed, 9))
	id := func(i int) graphdb.NodeID { return graphdb.NodeID(fmt.Sprintf("n%03d", i)) }
	total := files * 6
	var owners []synthOwner
	for f := range files {
		path := fmt.Sprintf("d/f%02d.go", f)
		o := synthOwner{file: graphdb.FileRecord{Path: path, Language: "go"}}
		for j := range 6 {
			i := f*6 + j
			o.nodes = append(o.nodes, graphdb.Node{ID: id(i), Kind: graphdb.KindFunction, Name: fmt.Sprintf("F%d", i%5),
				QName: fmt.Sprintf("d.F%03d", i), File: path, StartLine: 1 + j*10, EndLine: 9 + j*10, Language: "go"})
			for range r.IntN(6) {
				kind := []graphdb.EdgeKind{graphdb.EdgeCalls, graphdb.EdgeCalls, graphdb.EdgeParent, graphdb.EdgeImplements}[r.IntN(4)]
				to := id(r.IntN(total + 8)) // ids ≥ total are never declared: dangling
				site := path
				if r.IntN(5) == 0 {
					site = fmt.Sprintf("d/f%02d.go", r.IntN(files))
				}
				e := graphdb.Edge{From: id(i), To: to, Kind: kind, File: site, Line: 1 + r.IntN(4)}
				o.edges = append(o.edges, e)
				if r.IntN(8) == 0 {
					o.edges = append(o.edges, e) // duplicate
				}
			}
		}
		owners = append(owners, o)
	}
	return owners
}

func TestTraverseAgreesOnRandomGraphs(t *testing.T) {
	for seed := range uint64(2) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			s := openTemp(t)
			owners := randomGraph(seed, 8)
			write := func(fn func(ctx context.Context, tx graphdb.Tx) error) {
				tx, err := s.Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if err := fn(t.Context(), tx); err != nil {
					t.Fatal(err)
				}
				if err := tx.Commit(); err != nil {
					t.Fatal(err)
				}
			}
			write(func(ctx context.Context, tx graphdb.Tx) error {
				for _, o := range owners {
					if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
						return err
					}
				}
				return nil
			})
			var starts []graphdb.NodeID
			for i := 0; i < 8*6+8; i += 3 {
				starts = append(starts, graphdb.NodeID(fmt.Sprintf("n%03d", i)))
			}
			// Another process reads the snapshot file the first one saved;
			// it must agree too.
			fresh, err := Open(s.Dir(), Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer fresh.Close()
			for _, start := range starts {
				for _, kinds := range [][]graphdb.EdgeKind{{graphdb.EdgeCalls}, {graphdb.EdgeImplements, graphdb.EdgeCalls, graphdb.EdgeParent}} {
					for _, dir := range []graphdb.Direction{graphdb.Outbound, graphdb.Inbound} {
						for _, limit := range []int{0} {
							want, err := graphdb.TraverseNeighbors(t.Context(), fresh, start, kinds, dir, 1, limit)
							if err != nil {
								t.Fatal(err)
							}
							got, err := fresh.Traverse(t.Context(), start, kinds, dir, 1, limit)
							if err != nil {
								t.Fatal(err)
							}
							if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
								t.Fatalf("one-hop Traverse(%s, %v, %s, limit %d) (-want +got):\n%s", start, kinds, dir, limit, diff)
							}
						}
					}
				}
			}
			assertAgree(t, s, starts)
			// Incremental updates: a deleted file makes edges dangle; the
			// adjacency of the previous generation must not be reused.
			write(func(ctx context.Context, tx graphdb.Tx) error { return tx.DeleteFile(ctx, owners[3].file.Path) })
			assertAgree(t, s, starts)
			o := randomGraph(seed+100, 8)[5]
			write(func(ctx context.Context, tx graphdb.Tx) error { return tx.ReplaceFile(ctx, o.file, o.nodes, o.edges) })
			assertAgree(t, s, starts)
		})
	}
}

func TestSnapshot(t *testing.T) {
	dir := t.TempDir()
	s := writeGraph(t, dir, genGraph(50, 6, 3))
	defer s.Close()
	ctx := t.Context()
	if err := s.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	gen, err := s.generation(ctx)
	if err != nil {
		t.Fatal(err)
	}
	commonPath, dirPaths := s.snapshotPaths()
	loaded, err := loadCommon(commonPath, gen, s.snap)
	if err != nil || loaded == nil {
		t.Fatalf("loadCommon after Warm = %v, %v", loaded, err)
	}
	built := s.adj.Load()
	opts := cmp.Options{cmp.AllowUnexported(csr{}, ent{}), cmpopts.EquateEmpty()}
	if diff := cmp.Diff([]any{built.nsid, built.exists, built.rank, built.files}, []any{loaded.nsid, loaded.exists, loaded.rank, loaded.files}, opts); diff != "" {
		t.Fatalf("loaded snapshot differs from the built adjacency (-built +loaded):\n%s", diff)
	}
	for d := range 2 {
		c, err := loadDir(dirPaths[d], d, gen, loaded.nsid, s.snap)
		if err != nil || c == nil {
			t.Fatalf("loadDir(%d, s.snap) = %v, %v", d, c, err)
		}
		if diff := cmp.Diff(built.dirs[d].Load(), c, opts); diff != "" {
			t.Fatalf("loaded direction %d differs (-built +loaded):\n%s", d, diff)
		}
	}
	if a, err := loadCommon(commonPath, gen+1, s.snap); a != nil || err == nil {
		t.Errorf("loadCommon of a stale generation = %v, %v; want an error", a, err)
	}
	if c, err := loadDir(dirPaths[dirIn], dirOut, gen, loaded.nsid, s.snap); c != nil || err == nil {
		t.Errorf("loadDir of the other direction's file = %v, %v; want an error", c, err)
	}

	// A second store on the same directory (another process) uses the
	// snapshot; a damaged snapshot is detected and rebuilt.
	want, err := s.Traverse(ctx, genGraph(50, 6, 3).funcs[0], []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 2, 0)
	if err != nil || len(want) == 0 {
		t.Fatalf("Traverse = %d hops, %v", len(want), err)
	}
	saved := map[string][]byte{}
	for _, p := range append([]string{commonPath}, dirPaths[:]...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		saved[p] = b
	}
	for name, damage := range map[string]func([]byte) []byte{
		"intact":    func(b []byte) []byte { return b },
		"bit flip":  func(b []byte) []byte { c := append([]byte{}, b...); c[len(c)/2] ^= 1; return c },
		"truncated": func(b []byte) []byte { return b[:len(b)/3] },
		"garbage":   func([]byte) []byte { return []byte("not a snapshot at all") },
	} {
		for _, victim := range []string{commonPath, dirPaths[dirIn]} {
			t.Run(name+"/"+filepath.Base(victim), func(t *testing.T) {
				for p, b := range saved { // damage one file at a time
					if err := os.WriteFile(p, b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				if err := os.WriteFile(victim, damage(saved[victim]), 0o644); err != nil {
					t.Fatal(err)
				}
				if name != "intact" && victim == dirPaths[dirIn] {
					if c, err := loadDir(victim, dirIn, gen, loaded.nsid, s.snap); c != nil || err == nil {
						t.Errorf("loadDir of a damaged file = %v, %v; want an error", c != nil, err)
					}
				}
				if name != "intact" && victim == commonPath {
					if a, err := loadCommon(victim, gen, s.snap); a != nil || err == nil {
						t.Errorf("loadCommon of a damaged file = %v, %v; want an error", a != nil, err)
					}
				}
				s2, err := Open(dir, Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				defer s2.Close()
				got, err := s2.Traverse(ctx, genGraph(50, 6, 3).funcs[0], []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 2, 0)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("Traverse with a %s snapshot (-want +got):\n%s", name, diff)
				}
			})
		}
	}
}

func TestOpenErrors(t *testing.T) {
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		opts    Options
		wantIs  error
		wantMsg []string
	}{
		{
			name:    "read-only without a store",
			opts:    Options{ReadOnly: true},
			wantIs:  graphdb.ErrNotFound,
			wantMsg: []string{"no index at"},
		},
		{
			name: "read-only on an empty database",
			prepare: func(t *testing.T, dir string) {
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, dbName), nil, 0o644)
			},
			opts:    Options{ReadOnly: true},
			wantIs:  graphdb.ErrNotFound,
			wantMsg: []string{"no index at"},
		},
		{
			name: "garbage database file",
			prepare: func(t *testing.T, dir string) {
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, dbName), []byte(strings.Repeat("this is not sqlite ", 500)), 0o644)
			},
			wantIs:  graphdb.ErrCorrupt,
			wantMsg: []string{"is damaged", "not a database"},
		},
		{
			name: "garbage database file read-only",
			prepare: func(t *testing.T, dir string) {
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, dbName), []byte(strings.Repeat("this is not sqlite ", 500)), 0o644)
			},
			opts:    Options{ReadOnly: true},
			wantIs:  graphdb.ErrCorrupt,
			wantMsg: []string{"is damaged"},
		},
		{
			name: "newer schema version",
			prepare: func(t *testing.T, dir string) {
				s, err := Open(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				rawExec(t, dir, "PRAGMA user_version = 99")
			},
			wantIs:  ErrIncompatible,
			wantMsg: []string{"schema version 99"},
		},
		{
			name: "foreign sqlite database",
			prepare: func(t *testing.T, dir string) {
				os.MkdirAll(dir, 0o755)
				rawExec(t, dir, "CREATE TABLE t(x)")
			},
			wantIs:  ErrIncompatible,
			wantMsg: []string{"did not create"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".relay")
			if tc.prepare != nil {
				tc.prepare(t, dir)
			}
			s, err := Open(dir, tc.opts)
			if err == nil {
				s.Close()
				t.Fatal("Open succeeded")
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("Open error %v, want one wrapping %v", err, tc.wantIs)
			}
			for _, m := range tc.wantMsg {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("Open error %q does not say %q", err, m)
				}
			}
			if strings.Contains(err.Error(), dir) == false {
				t.Errorf("Open error %q does not name the directory", err)
			}
			// The message states the problem; what to run is the
			// surface's advice (internal/advice), never the library's.
			if strings.Contains(err.Error(), "relay index") {
				t.Errorf("Open error %q names a command", err)
			}
			// It does not end with the sentinel's own text.
			if strings.HasSuffix(err.Error(), ": not found") {
				t.Errorf("Open error %q ends with a stray \": not found\"", err)
			}
		})
	}
}

// TestOpenRebuild: a writable open with Rebuild replaces an unusable graph
// with an empty one, keeps a damaged or foreign file aside (removes only
// another relay version's graph) and leaves the directory's other files
// alone.
func TestOpenRebuild(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		wantIs  error
		roIs    error // what a read-only open says, when not wantIs
		aside   bool
	}{
		{
			name: "garbage",
			prepare: func(t *testing.T, dir string) {
				os.WriteFile(filepath.Join(dir, dbName), []byte(strings.Repeat("this is not sqlite ", 500)), 0o644)
			},
			wantIs: graphdb.ErrCorrupt,
			aside:  true,
		},
		{
			name: "foreign database",
			prepare: func(t *testing.T, dir string) {
				rawExec(t, dir, "CREATE TABLE t(x)")
			},
			wantIs: ErrIncompatible,
			roIs:   graphdb.ErrNotFound, // no relay tables: no index
			aside:  true,
		},
		{
			name: "other schema version",
			prepare: func(t *testing.T, dir string) {
				s, err := Open(dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				s.Close()
				rawExec(t, dir, "PRAGMA user_version = 3")
				os.Remove(filepath.Join(dir, sealName)) // an old relay wrote none
			},
			wantIs: ErrIncompatible,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), ".relay")
			os.MkdirAll(dir, 0o755)
			keep := filepath.Join(dir, "feedback.jsonl")
			os.WriteFile(keep, []byte("{}\n"), 0o644)
			tc.prepare(t, dir)
			roIs := tc.roIs
			if roIs == nil {
				roIs = tc.wantIs
			}
			if _, err := Open(dir, Options{ReadOnly: true, Rebuild: true}); !errors.Is(err, roIs) {
				t.Fatalf("read-only open with Rebuild = %v, want %v (read-only never rebuilds)", err, roIs)
			}
			s, err := Open(dir, Options{Rebuild: true})
			if err != nil {
				t.Fatalf("Open with Rebuild: %v", err)
			}
			defer s.Close()
			if s.Rebuilt() == "" {
				t.Error("Rebuilt() is empty after a rebuild")
			}
			st, err := s.Stats(t.Context())
			if err != nil || st.Files != 0 {
				t.Errorf("rebuilt store stats = %+v, %v; want empty", st, err)
			}
			if b, err := os.ReadFile(keep); err != nil || string(b) != "{}\n" {
				t.Errorf("Rebuild touched another file of the directory: %q %v", b, err)
			}
			aside, _ := filepath.Glob(filepath.Join(dir, dbName+".corrupt-*"))
			if tc.aside && (len(aside) != 1 || !strings.Contains(s.Rebuilt(), filepath.Base(aside[0]))) {
				t.Errorf("set aside %q; Rebuilt() = %q, want one graph.db.corrupt-* it names", aside, s.Rebuilt())
			}
			if !tc.aside && len(aside) != 0 {
				t.Errorf("another version's graph was kept as %q, want it removed", aside)
			}
		})
	}
}

// rawExec runs one statement on the store's database file directly.
func rawExec(t *testing.T, dir, stmt string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, dbName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(stmt); err != nil {
		t.Fatal(err)
	}
}

func TestOpenLayout(t *testing.T) {
	root := t.TempDir()
	dir := DefaultDir(root)
	if want := filepath.Join(root, ".relay"); dir != want {
		t.Fatalf("DefaultDir = %q, want %q", dir, want)
	}
	if _, err := Open(dir, Options{ReadOnly: true}); err == nil {
		t.Fatal("read-only Open of a missing store succeeded")
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("read-only Open created %s", dir)
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gi, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	if err != nil || string(gi) != "*\n" {
		t.Errorf(".gitignore = %q, %v; want \"*\\n\"", gi, err)
	}
	s.Close()

	// An initialised store nothing was committed to holds no index; after
	// a commit (even of nothing) it opens read-only.
	if _, err := Open(dir, Options{ReadOnly: true}); !errors.As(err, new(*graphdb.NoIndexError)) {
		t.Errorf("read-only Open of a never-committed store = %v, want a *graphdb.NoIndexError", err)
	}
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx, err := w.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	ro, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("read-only Open of a committed store: %v", err)
	}
	defer ro.Close()
	if st, err := ro.Stats(t.Context()); err != nil || st.Files != 0 {
		t.Errorf("Stats = %+v, %v", st, err)
	}
	if _, err := ro.Begin(t.Context()); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("Begin on a read-only store = %v, want a read-only error", err)
	}
	// Two stores on one directory in one process: the second writer is
	// refused by the file lock.
	w1, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Close()
	w2, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	tx, err = w1.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w2.Begin(t.Context()); !errors.Is(err, graphdb.ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Errorf("second store's Begin = %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	tx.Rollback()
}

func TestFailedWritePoisonsTx(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	a := graphdb.Node{ID: "x", Kind: graphdb.KindFunction, Name: "x", QName: "p.x", File: "a.go"}
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{a}, nil); err != nil {
		t.Fatal(err)
	}
	err = tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "b.go"}, []graphdb.Node{a}, nil)
	if err == nil || !strings.Contains(err.Error(), "already owned by a.go") {
		t.Fatalf("ReplaceFile of an id owned by a.go = %v, want an error naming a.go", err)
	}
	if err := tx.SetMeta(ctx, "k", "v"); err == nil || !strings.Contains(err.Error(), "rolled back") {
		t.Errorf("SetMeta after a failed write = %v, want an error saying to roll back", err)
	}
	if err := tx.Commit(); err == nil {
		t.Fatal("Commit after a failed write succeeded")
	}
	if st, err := s.Stats(ctx); err != nil || st.Files != 0 {
		t.Errorf("Stats after the refused commit = %+v, %v; want an empty store", st, err)
	}
	// Invalid input is rejected before anything is written: the Tx stays usable.
	tx, err = s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	bad := graphdb.Edge{From: "x", To: "y", Kind: "friend_of"}
	if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "a.go"}, nil, []graphdb.Edge{bad}); err == nil || !strings.Contains(err.Error(), "friend_of") {
		t.Errorf("ReplaceFile with an unknown edge kind = %v", err)
	}
	if err := tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{a}, nil); err != nil {
		t.Errorf("ReplaceFile after rejected input: %v", err)
	}
	if err := tx.Commit(); err != nil {
		t.Errorf("Commit after rejected input: %v", err)
	}
}

// TestGeneration: only graph writes make the adjacency stale.
func TestGeneration(t *testing.T) {
	s := openTemp(t)
	ctx := t.Context()
	commit := func(fn func(tx graphdb.Tx) error) int64 {
		t.Helper()
		tx, err := s.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := fn(tx); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		gen, err := s.generation(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return gen
	}
	n := graphdb.Node{ID: "x", Kind: graphdb.KindFunction, Name: "x", QName: "p.x", File: "a.go"}
	g1 := commit(func(tx graphdb.Tx) error {
		return tx.ReplaceFile(ctx, graphdb.FileRecord{Path: "a.go"}, []graphdb.Node{n}, nil)
	})
	if err := s.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.adj.Load()
	g2 := commit(func(tx graphdb.Tx) error { return tx.SetMeta(ctx, "indexed_at", "now") })
	if g2 != g1 {
		t.Errorf("a SetMeta-only commit moved the generation %d → %d", g1, g2)
	}
	if _, err := s.Traverse(ctx, "x", []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 2, 0); err != nil {
		t.Fatal(err)
	}
	if s.adj.Load() != before {
		t.Error("the adjacency was rebuilt after a SetMeta-only commit")
	}
	g3 := commit(func(tx graphdb.Tx) error { return tx.DeleteFile(ctx, "a.go") })
	if g3 != g2+1 {
		t.Errorf("DeleteFile commit: generation %d → %d, want +1", g2, g3)
	}
}
