package golang_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// chainRepo is a module of four packages: a (a leaf), b importing a and
// embedding a.T in an exported struct, c importing b only (it reaches a's
// methods through b.S), and d declaring an interface no one implements yet.
var chainRepo = map[string]string{
	"go.mod": "module example.com/chain\n\ngo 1.22\n",
	"a/a.go": `package a

import (
	"crypto"
	"net"
	"strings"
)

// Conn is a connection whose method set comes from the standard library
// (net.Conn declares its methods out of alphabetical order).
type Conn struct{ net.Conn }

// Sign reaches crypto.PrivateKey, declared "any": checked from source its
// underlying type prints "any", loaded from export data "interface{}".
func Sign(k crypto.PrivateKey) bool { return k != nil }

// T is a leaf type.
type T struct{ N int }

// Get returns N.
func (t T) Get() int { return t.N }

// F is called by b.
func F() int { return len(strings.TrimSpace(" x ")) }
`,
	"a/more.go": "package a\n\n// More is called by b.\nfunc More() int { return 2 }\n",
	"b/b.go": `package b

import (
	"fmt"

	"example.com/chain/a"
)

// S embeds a.T: its methods are promoted.
type S struct{ a.T }

// Use calls into a.
func Use() string { return fmt.Sprint(a.F() + a.More()) }
`,
	"c/c.go": `package c

import "example.com/chain/b"

// Run calls a method promoted from a.T through b.S.
func Run(s b.S) int { return s.Get() }
`,
	"d/d.go": "package d\n\n// Sizer has a size.\ntype Sizer interface{ Size() int }\n\n// Measure measures.\nfunc Measure(s Sizer) int { return s.Size() }\n",
}

// TestTypeCacheMatchesColdRun edits a repository indexed with a type cache
// and checks that the incremental run, which loads the unchanged packages'
// types from the cache, leaves the graph exactly as a cold run without any
// cache, reloading the changed packages and the importers whose view of
// them changed, and no others.
func TestTypeCacheMatchesColdRun(t *testing.T) {
	tests := []struct {
		name        string
		edit        func(t *testing.T, root string)
		wantChecked []string // repository packages checked from source by the incremental run
		wantUnits   int
		mustContain string
	}{
		{
			name: "body-only edit",
			edit: func(t *testing.T, root string) {
				replaceIn(t, root, "a/a.go", "return t.N", "return t.N + 0")
			},
			wantChecked: []string{"example.com/chain/a"},
			wantUnits:   1,
		},
		{
			name: "exported signature change",
			edit: func(t *testing.T, root string) {
				replaceIn(t, root, "a/a.go", "func F() int {", "func F(k int) int { _ = k;")
			},
			// b calls a.F() and no longer compiles; b's API is unchanged, so
			// c stays.
			wantChecked: []string{"example.com/chain/a", "example.com/chain/b"},
			wantUnits:   2,
			mustContain: "not enough arguments in call to a.F",
		},
		{
			name: "method renamed below an embedding: reached through b",
			edit: func(t *testing.T, root string) {
				replaceIn(t, root, "a/a.go", "func (t T) Get() int", "func (t T) Value() int")
			},
			// b's API shows a.T's methods (b.S embeds it): c is reloaded
			// although it does not import a.
			wantChecked: []string{"example.com/chain/a", "example.com/chain/b", "example.com/chain/c"},
			wantUnits:   3,
			mustContain: "s.Get undefined",
		},
		{
			name: "new method satisfies an interface elsewhere",
			edit: func(t *testing.T, root string) {
				replaceIn(t, root, "a/a.go", "// F is called", "// Size sizes.\nfunc (t T) Size() int { return 1 }\n\n// F is called")
			},
			wantChecked: []string{"example.com/chain/a", "example.com/chain/b", "example.com/chain/c"},
			wantUnits:   3,
			mustContain: "edge implements go:example.com/chain/a.T -> go:example.com/chain/d.Sizer",
		},
		{
			name: "deleted file",
			edit: func(t *testing.T, root string) {
				removeFile(t, root, "a/more.go")
			},
			wantChecked: []string{"example.com/chain/a", "example.com/chain/b"},
			wantUnits:   2,
			mustContain: "undefined: a.More",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for rel, src := range chainRepo {
				testutil.WriteFile(t, root, rel, src)
			}
			cache := t.TempDir()
			st := indextest.OpenStore()
			runCached(t, st, root, cache)
			tt.edit(t, root)
			var checked []string
			golang.SetTestHookChecked(t, func(ids []string) { checked = append(checked, ids...) })
			sum := runCached(t, st, root, cache)
			golang.SetTestHookChecked(t, nil)
			if got := sum.Languages["Go"].Units; got != tt.wantUnits {
				t.Errorf("incremental run extracted %d packages, want %d", got, tt.wantUnits)
			}
			// Everything checked from source is the edited packages; the
			// standard library comes from the cache.
			slices.Sort(checked)
			if diff := cmp.Diff(tt.wantChecked, slices.Compact(checked)); diff != "" {
				t.Errorf("packages checked from source (-want +got):\n%s", diff)
			}
			got := indextest.Dump(t, st)
			cold := indextest.OpenStore()
			indexrun.Run(t, cold, root, false)
			if diff := cmp.Diff(indextest.Dump(t, cold), got); diff != "" {
				t.Errorf("incremental graph differs from a cold run (-cold +incremental):\n%s", diff)
			}
			if !strings.Contains(got, tt.mustContain) {
				t.Errorf("graph lacks %q", tt.mustContain)
			}
		})
	}
}

// TestTypeCacheColdRunMatches checks that a full run whose dependencies
// come from a warm type cache writes the graph a run without the cache
// writes, and that an entry that cannot be read falls back to checking
// from source.
func TestTypeCacheColdRunMatches(t *testing.T) {
	root := t.TempDir()
	for rel, src := range chainRepo {
		testutil.WriteFile(t, root, rel, src)
	}
	plain := indextest.OpenStore()
	indexrun.Run(t, plain, root, true)
	want := indextest.Dump(t, plain)
	cache := t.TempDir()
	runCached(t, indextest.OpenStore(), root, cache) // fills the cache
	warm := indextest.OpenStore()
	var checked []string
	golang.SetTestHookChecked(t, func(ids []string) { checked = append(checked, ids...) })
	runCached(t, warm, root, cache)
	if diff := cmp.Diff(want, indextest.Dump(t, warm)); diff != "" {
		t.Errorf("warm-cache run differs (-no cache +warm cache):\n%s", diff)
	}
	if slices.Contains(checked, "strings") || slices.Contains(checked, "fmt") {
		t.Errorf("warm-cache run checked the standard library from source: %v", checked)
	}
	// Damage every entry: the run must still be right.
	entries, err := filepath.Glob(filepath.Join(cache, "go-types", "*.types"))
	if err != nil || len(entries) == 0 {
		t.Fatalf("no cache entries (%v)", err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(e)
		if err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(string(data), "\ni"); i > 0 {
			data = append(data[:i+2], "garbage"...)
		}
		if err := os.WriteFile(e, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	damaged := indextest.OpenStore()
	runCached(t, damaged, root, cache)
	if diff := cmp.Diff(want, indextest.Dump(t, damaged)); diff != "" {
		t.Errorf("run over a damaged cache differs (-no cache +damaged):\n%s", diff)
	}
}

func runCached(t *testing.T, st graphdb.Store, root, cache string) index.Summary {
	t.Helper()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root, CacheDir: cache})
	if err != nil {
		t.Fatalf("index.Run: %v", err)
	}
	for _, d := range sum.Errors {
		t.Logf("diagnostic: %s", d)
	}
	return sum
}

func replaceIn(t *testing.T, root, rel, old, new string) {
	t.Helper()
	src := indextest.ReadFile(t, root, rel)
	if !strings.Contains(src, old) {
		t.Fatalf("%s lacks %q", rel, old)
	}
	testutil.WriteFile(t, root, rel, strings.Replace(src, old, new, 1))
}

// TestTypeCacheSweep checks that a full run removes the entries of the
// packages it did not meet, and keeps the others.
func TestTypeCacheSweep(t *testing.T) {
	root := t.TempDir()
	for rel, src := range chainRepo {
		testutil.WriteFile(t, root, rel, src)
	}
	cache := t.TempDir()
	st := indextest.OpenStore()
	runCached(t, st, root, cache)
	entries := func() []string {
		es, err := filepath.Glob(filepath.Join(cache, "go-types", "*"))
		if err != nil {
			t.Fatal(err)
		}
		return es
	}
	before := len(entries())
	stray := filepath.Join(cache, "go-types", ".tmp-left-over")
	if err := os.WriteFile(stray, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	removeFile(t, root, "d")
	sum, err := index.Run(t.Context(), st, index.Options{Root: root, CacheDir: cache, Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Errors) != 0 {
		t.Fatalf("errors: %v", sum.Errors)
	}
	after := entries()
	if slices.Contains(after, stray) {
		t.Errorf("the full run left %s", stray)
	}
	if len(after) != before-1 {
		t.Errorf("%d entries after package d went, want %d", len(after), before-1)
	}
}
