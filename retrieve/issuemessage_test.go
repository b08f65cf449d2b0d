package retrieve

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb/memstore"
)

// TestMessageFiles: a message the report quotes is found in the file that
// prints it (case and spacing aside, across a string concatenation's
// line break); prose that many files share, or no file holds, finds
// nothing.
func TestMessageFiles(t *testing.T) {
	files := map[string]string{
		"src/Maker.java": "class Maker {\n  void f() {\n    throw new RuntimeException(\"Mockito cannot mock this class: \" + t +\n      \". Unsupported   settings with this type\");\n  }\n}\n",
		"src/Other.java": "class Other { /* the value of the field is not checked here */ }\n",
		"src/A.java":     "class A { /* the value of the field is not checked here */ }\n",
		"src/B.java":     "class B { /* the value of the field is not checked here */ }\n",
		"src/C.java":     "class C { /* the value of the field is not checked here */ }\n",
	}
	root := t.TempDir()
	for rel, data := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := memstore.New()
	if _, err := Build(t.Context(), root, g, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"quoted message", "Error:\n```\norg.mockito.exceptions.base.MockitoException:\nMOCKITO CANNOT MOCK THIS CLASS: class com.x.PieceType\n```", []string{"src/Maker.java"}},
		{"message over a line break", "it says unsupported settings with this type and stops", []string{"src/Maker.java"}},
		{"prose in many files", "I think the value of the field is not checked here at all", nil},
		{"in no file", "the moon is made of green cheese today", nil},
	} {
		var got []string
		s.messageFiles(tt.text, nil, func(docs []int32) {
			for _, d := range docs {
				got = append(got, s.ix.Files[d].Path)
			}
		})
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, d)
		}
	}
}
