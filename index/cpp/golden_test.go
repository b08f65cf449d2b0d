//go:build cgo

package cpp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestGolden indexes each testdata/*.txtar repository and compares the
// sorted dump of the graph (and the run's summary) with testdata/*.golden.
func TestGolden(t *testing.T) {
	indextest.GoldenAll(t, indexrun.Run)
}

// TestByNameCap: a call whose receiver's type is not evident gets the
// repository's methods of that name and arity as calls_by_name
// candidates, at most 8 of them, and never a calls edge.
func TestByNameCap(t *testing.T) {
	for _, tt := range []struct {
		classes, want int
	}{{2, 2}, {8, 8}, {9, 0}} {
		root := t.TempDir()
		var b strings.Builder
		for i := range tt.classes {
			fmt.Fprintf(&b, "struct C%d { void frob(int n) {} void frob() {} };\n", i)
		}
		b.WriteString("template <typename T> void use(T& o) {\n  o.frob(1);\n}\n")
		if err := os.WriteFile(filepath.Join(root, "all.cc"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		st := indextest.OpenStore()
		indexrun.Run(t, st, root, false)
		got := indextest.Dump(t, st)
		if n := strings.Count(got, "edge calls_by_name cpp:use -> "); n != tt.want {
			t.Errorf("%d classes with frob(int): %d by-name candidates, want %d:\n%s", tt.classes, n, tt.want, got)
		}
		if strings.Contains(got, "edge calls cpp:use") {
			t.Errorf("%d classes: an unresolved call became a calls edge", tt.classes)
		}
	}
}
