package chunk

import (
	"fmt"
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
	for _, c := range File("p.go", "go", lines, nodes) {
		got = append(got, c.Kind+" "+c.Name)
	}
	want := []string{"text lines 1-4", "function f"} // lines 6-7: too short for a window
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

// TestChunkFileObjectMembers checks that a function-valued property of an
// object literal (a dayjs locale's `ordinal: n => n`) is a chunk of its own
// but does not cut the object's text into windows around it: the file
// keeps one window over the whole object, as before members were nodes.
func TestChunkFileObjectMembers(t *testing.T) {
	t.Parallel()
	lines := []string{
		"import dayjs from 'dayjs'",
		"const locale = {",
		"  name: 'en-ie',",
		"  weekStart: 1,",
		"  ordinal: n => n,",
		"  formats: {",
		"    LT: 'HH:mm',",
		"    LTS: 'HH:mm:ss'",
		"  }",
		"}",
		"export default locale",
	}
	nodes := []graphdb.Node{
		{ID: "ts:en-ie.locale.ordinal", Kind: graphdb.KindFunction, SubKind: "method", Name: "ordinal", Loc: "en-ie.js:locale.ordinal", StartLine: 5, EndLine: 5},
		{ID: "ts:en-ie.f", Kind: graphdb.KindFunction, Name: "f", Loc: "en-ie.js:f", StartLine: 11, EndLine: 11},
	}
	var got []string
	for _, c := range File("en-ie.js", "javascript", lines, nodes) {
		got = append(got, fmt.Sprintf("%s %s %d-%d", c.Kind, c.Name, c.StartLine, c.EndLine))
	}
	// Line 11 is a (top-level) function: it still covers its line.
	want := []string{"text lines 1-10 1-10", "function ordinal 5-5", "function f 11-11"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
