package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"
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
	s := openFiles(t, files)
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
