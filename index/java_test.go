//go:build cgo

package index

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJavaGolden is TestGolden for the Java repositories alone, for quick
// runs (-run Java).
func TestJavaGolden(t *testing.T) {
	for _, name := range []string{"java_basic", "java_mixed"} {
		t.Run(name, func(t *testing.T) { checkGolden(t, name) })
	}
}

// TestJavaByNameCap: a call whose receiver type is not evident gets the
// repository's methods of that name and arity as calls_by_name candidates,
// at most javaMaxByName of them, and never a calls edge.
func TestJavaByNameCap(t *testing.T) {
	for _, tt := range []struct {
		classes, want int
	}{{2, 2}, {javaMaxByName, javaMaxByName}, {javaMaxByName + 1, 0}} {
		root := t.TempDir()
		var b strings.Builder
		for i := range tt.classes {
			fmt.Fprintf(&b, "class C%d { void frob(int n) {} void frob() {} }\n", i)
		}
		b.WriteString("class User {\n    void use(Object o) {\n        unknown(o).frob(1);\n    }\n}\n")
		if err := os.WriteFile(filepath.Join(root, "All.java"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		st := openStore(t)
		runIndex(t, st, root, false)
		got := dump(t, st)
		if n := strings.Count(got, "edge calls_by_name java:User.use -> "); n != tt.want {
			t.Errorf("%d classes with frob(int): %d by-name candidates, want %d:\n%s", tt.classes, n, tt.want, got)
		}
		if strings.Contains(got, "edge calls java:User.use") {
			t.Errorf("%d classes: an unresolved call became a calls edge", tt.classes)
		}
	}
}
