package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
)

// TestChunkFileSkipsSynthetic checks that a synthetic node (a Go file's
// variable-initialiser caller, whose lines span other declarations) is not
// a chunk and leaves its lines to the symbols and text windows.
func TestChunkFileSkipsSynthetic(t *testing.T) {
	t.Parallel()
	lines := []string{"package p", "var x = 1", "var a = f()", "", "func f() int { return 1 }", "var y = 2", "var b = f()"}
	nodes := []graphdb.Node{
		{ID: "go:p.f", Kind: graphdb.KindFunction, Name: "f", StartLine: 5, EndLine: 5},
		{ID: "go:p.init#p.go#vars", Kind: graphdb.KindFunction, Name: "init (package variables)", StartLine: 3, EndLine: 7,
			Attrs: map[string]string{graphdb.AttrSynthetic: "go.varinit"}},
	}
	var got []string
	for _, c := range chunkFile("p.go", "go", lines, nodes) {
		got = append(got, c.Kind+" "+c.Name)
	}
	want := []string{"text lines 1-4", "function f"} // lines 6-7: too short for a window
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
