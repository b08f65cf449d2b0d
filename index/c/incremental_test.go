//go:build cgo

package c_test

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

// incrementalStep is one change of an incremental test.
type incrementalStep struct {
	name          string
	change        func()
	want, notWant []string
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

// TestIncremental edits, deletes and adds C files of testdata/basic and
// checks after each step that the incremental graph equals a full index
// of the same tree: the files calling a function that moves, the files
// including a header whose macro changes and the callers of a field whose
// initializer changes are resolved again.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	read := func(rel string) string {
		data, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	remove := func(rel string) {
		if err := os.Remove(filepath.Join(root, rel)); err != nil {
			t.Fatal(err)
		}
	}
	dev := read("src/dev.c")
	checkIncremental(t, st, root, []incrementalStep{
		{
			name: "a body calls another function",
			change: func() {
				write("src/dev.c", strings.Replace(dev, "return d->name != NULL;", "return d->name != NULL && dev_open(d->name);", 1))
			},
			want: []string{"edge calls c:src/dev.c:dev_valid -> c:src/dev.c:dev_open @src/dev.c:15"},
		},
		{
			name: "a function moves to another file",
			change: func() {
				write("src/dev.c", strings.Replace(dev, "int dev_valid(const dev_t *d)\n{\n\treturn d->name != NULL;\n}\n", "", 1))
				write("src/valid.c", "#include \"dev/dev.h\"\n\nint dev_valid(const dev_t *d) { return d != NULL; }\n")
			},
			want:    []string{"edge calls c:tests/test_dev.c:main -> c:src/dev.c:dev_open", "edge calls c:src/broken.c:ok -> c:src/valid.c:dev_valid @src/broken.c:3"},
			notWant: []string{"-> c:src/dev.c:dev_valid"},
		},
		{
			name: "a header's macro calls something else",
			change: func() {
				write("include/dev/dev.h", strings.Replace(read("include/dev/dev.h"), "#define DEV_CHECK(d) dev_valid(d)", "#define DEV_CHECK(d) dev_open((d)->name)", 1))
			},
			want:    []string{"edge calls c:src/dev.c:dev_read -> c:src/dev.c:dev_open @src/dev.c:23"},
			notWant: []string{"c:src/dev.c:dev_read -> c:src/valid.c:dev_valid"},
		},
		{
			name: "an initializer assigns another function",
			change: func() {
				write("src/null.c", strings.Replace(read("src/null.c"), ".read = null_read,", ".read = null_close_read,", 1)+"\nint null_close_read(int fd, char *buf, size_t n) { return 0; }\n")
			},
			want:    []string{"edge calls c:src/dev.c:dev_read -> c:src/null.c:null_close_read"},
			notWant: []string{"-> c:src/null.c:null_read @src/dev.c"},
		},
		{
			name:    "a file is deleted",
			change:  func() { remove("src/valid.c") },
			notWant: []string{"c:src/valid.c:dev_valid"},
		},
	})
}

// TestIncrementalInclude: a file whose quoted include did not resolve
// is resolved again when the header appears, and when it goes.
func TestIncrementalInclude(t *testing.T) {
	root := indextest.ExtractTxtar(t, "preproc")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	const viaMacro = "edge calls c:lib/join.c:scan_all -> c:lib/join.c:join @lib/join.c:27"
	checkIncremental(t, st, root, []incrementalStep{
		{
			name:   "the missing header is added",
			change: func() { testutil.WriteFile(t, root, "lib/missing.h", "#define MISSING_CALL(x) join((x), 1)\n") },
			want:   []string{viaMacro, "edge calls c:lib/join.c:scan_all -> c:lib/missing.h:#MISSING_CALL"},
		},
		{
			name: "and removed",
			change: func() {
				if err := os.Remove(filepath.Join(root, "lib", "missing.h")); err != nil {
					t.Fatal(err)
				}
			},
			notWant: []string{viaMacro},
		},
	})
}
