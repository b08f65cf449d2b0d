//go:build cgo

package python_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestByNameRedeclaredClass: a module declaring a class twice keeps
// the first in its scope, in a full index as in the scope an incremental
// run rebuilds from the stored nodes; the second's methods (their nodes
// share the qname prefix) are no by-name candidates in either. The stdlib
// has such modules (test_importlib/test_abc.py redeclares InspectLoader).
func TestByNameRedeclaredClass(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	write("a.py", "def use(x):\n    return x.frob()\n")
	write("m.py", "class K:\n    def a(self):\n        return 1\n\n\nclass K:\n    def frob(self):\n        return 2\n")
	write("b.py", "class B:\n    def other(self):\n        return 1\n")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	const edge = "edge calls_by_name py:a.use -> py:b.B.frob @a.py:2"
	checkIncremental(t, st, root, []incrementalStep{
		{
			name:   "a method the call may land on appears elsewhere",
			change: func() { write("b.py", "class B:\n    def frob(self):\n        return 1\n") },
			want:   []string{edge}, notWant: []string{"-> py:m.K.frob @"},
		},
		{
			name:    "and is renamed",
			change:  func() { write("b.py", "class B:\n    def frobble(self):\n        return 1\n") },
			notWant: []string{edge, "-> py:m.K.frob @"},
		},
	})
}

// TestByNameModuleRenamed: an __init__.py appearing renames the
// modules of its directory, and with them the ids of their methods; an
// unchanged file's by-name edges follow the new ids.
func TestByNameModuleRenamed(t *testing.T) {
	root := t.TempDir()
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	write("a.py", "def use(x):\n    return x.frob()\n")
	write("x/pkg/b.py", "class B:\n    def frob(self):\n        return 1\n")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	checkIncremental(t, st, root, []incrementalStep{
		{
			name:    "the candidate's directory becomes a package",
			change:  func() { write("x/pkg/__init__.py", "") },
			want:    []string{"edge calls_by_name py:a.use -> py:pkg.b.B.frob @a.py:2"},
			notWant: []string{"-> py:x.pkg.b.B.frob @"},
		},
		{
			name: "and stops being one",
			change: func() {
				if err := os.Remove(filepath.Join(root, "x", "pkg", "__init__.py")); err != nil {
					t.Fatal(err)
				}
			},
			want:    []string{"edge calls_by_name py:a.use -> py:x.pkg.b.B.frob @a.py:2"},
			notWant: []string{"-> py:pkg.b.B.frob @"},
		},
	})
}
