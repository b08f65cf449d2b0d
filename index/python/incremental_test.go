//go:build cgo

package python_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestIncremental edits, deletes, renames and adds Python files and
// checks after each step that the incremental graph equals a fresh full
// index of the same tree, and that the dependents were re-resolved.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	steps := []incrementalStep{
		{
			name: "edit body only",
			change: func() {
				write("shop/util.py", "\"\"\"Helpers.\"\"\"\nimport functools\n\n\ndef register(fn):\n    \"\"\"Register fn.\"\"\"\n    return fn\n\n\ndef slug(s):\n    return register(s)\n\n\ndef _private():\n    return slug(\"X\")\n")
			},
			want: []string{"edge calls py:shop.util.slug -> py:shop.util.register @shop/util.py:11"},
		},
		{
			name:    "rename a function used elsewhere",
			change:  func() { write("shop/util.py", "def register(fn):\n    return fn\n\n\ndef slugify(s):\n    return s\n") },
			want:    []string{"node py:shop.util.slugify "},
			notWant: []string{"-> py:shop.util.slug @"},
		},
		{
			name: "add the module a file imported",
			change: func() {
				write("shop/extra.py", "from .models import Base\n\n\nclass Extra(Base):\n    def go(self):\n        return self.describe()\n")
			},
			want: []string{"edge inherits py:shop.extra.Extra -> py:shop.models.Base", "edge calls py:shop.extra.Extra.go -> py:shop.models.Base.describe"},
		},
		{
			name: "delete a base module",
			change: func() {
				if err := os.Remove(filepath.Join(root, "shop", "models.py")); err != nil {
					t.Fatal(err)
				}
			},
			notWant: []string{"py:shop.models.Base", "py:pkg:shop.models"},
		},
		{
			name: "rename a file back",
			change: func() {
				data, err := os.ReadFile(filepath.Join(root, "shop", "extra.py"))
				if err != nil {
					t.Fatal(err)
				}
				write("shop/models.py", "class Base:\n    def describe(self):\n        return 1\n")
				write("shop/more.py", string(data))
				if err := os.Remove(filepath.Join(root, "shop", "extra.py")); err != nil {
					t.Fatal(err)
				}
			},
			want:    []string{"edge calls py:shop.more.Extra.go -> py:shop.models.Base.describe"},
			notWant: []string{"py:shop.extra."},
		},
	}
	checkIncremental(t, st, root, steps)
}

// incrementalStep is one change of a Python incremental test.
type incrementalStep struct {
	name    string
	change  func()
	want    []string // lines the dump must hold
	notWant []string
}

// checkIncremental applies each step, indexes incrementally and checks
// the graph equals a full index of the same tree and holds what the step
// wants; at the end a run without change must rewrite nothing.
func checkIncremental(t *testing.T, st graphdb.Store, root string, steps []incrementalStep) {
	t.Helper()
	for _, s := range steps {
		s.change()
		sum := indexrun.Run(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := indexrun.Run(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}

// TestValuesIncremental: the calls a function's parameter makes are
// resolved at the call sites passing it functions, in other files; when
// the function stops calling its parameter, those files are re-resolved
// and the edges they owned go.
func TestValuesIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "values")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	funcs := filepath.Join(root, "app", "funcs.py")
	orig, err := os.ReadFile(funcs)
	if err != nil {
		t.Fatal(err)
	}
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(funcs, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const passed = "edge calls py:app.funcs.apply -> py:app.funcs.other @app/funcs.py:10" // from runner.main
	checkIncremental(t, st, root, []incrementalStep{
		{
			name:    "the callee stops calling its parameter",
			change:  func() { write(strings.Replace(string(orig), "    return f(x)\n", "    return x\n", 1)) },
			notWant: []string{passed},
		},
		{
			name:   "and calls it again",
			change: func() { write(string(orig)) },
			want:   []string{passed},
		},
	})
}

// TestRootPackageIncremental: a module imported relatively from the
// root package (from . import console) re-resolves its importers when it
// changes.
func TestRootPackageIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "rootpkg")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(data string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(root, "console.py"), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Console becomes a function returning an Other: show's call of print
	// must now reach Other.print, which only re-resolving jupyter.py finds.
	checkIncremental(t, st, root, []incrementalStep{{
		name: "the class becomes a factory",
		change: func() {
			write("class Other:\n    def print(self, x):\n        return x\n\n\ndef Console():\n    return Other()\n")
		},
		want: []string{"edge calls py:jupyter.show -> py:console.Other.print @jupyter.py:8"},
	}})
}
