package c

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBlank checks which preprocessor branches blank keeps and the
// guards it records for the lines of the branches it cannot evaluate.
func TestBlank(t *testing.T) {
	tests := []struct {
		name   string
		src    string
		mode   ppMode
		kept   []string // the non-blank lines, trimmed
		guards map[int][]string
	}{
		{name: "if 0", src: "#if 0\na\n#else\nb\n#endif\n", kept: []string{"#if 0", "#else", "b", "#endif"}, guards: map[int][]string{}},
		{name: "defined above", src: "#define DEBUG 0\n#if DEBUG\na\n#elif 1\nb\n#else\nc\n#endif\n",
			kept: []string{"#define DEBUG 0", "#if DEBUG", "#elif 1", "b", "#else", "#endif"}, guards: map[int][]string{}},
		{name: "unknown keeps all", src: "#ifdef X\na\n#else\nb\n#endif\n#if !Y\nc\n#endif\n",
			kept:   []string{"#ifdef X", "a", "#else", "b", "#endif", "#if !Y", "c", "#endif"},
			guards: map[int][]string{2: {"def:X"}, 4: {"!def:X"}, 7: {"!Y"}}},
		{name: "unknown keeps the first", mode: ppFirstOnly, src: "#if defined(X)\na {\n#else\nb {\n#endif\n}\n",
			kept: []string{"a {", "}"}, guards: map[int][]string{2: {"def:X"}}},
		{name: "include guard", src: "#ifndef H\n#define H\nint f(void);\n#endif\n",
			kept: []string{"#ifndef H", "#define H", "int f(void);", "#endif"}, guards: map[int][]string{}},
		{name: "continued directive", src: "#if 0\n#define A \\\n  b\nc\n#endif\nd\n", kept: []string{"#if 0", "#endif", "d"}, guards: map[int][]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, guards := blank([]byte(tt.src), tt.mode)
			if len(out) != len(tt.src) || strings.Count(string(out), "\n") != strings.Count(tt.src, "\n") {
				t.Fatalf("blank moved offsets: %q", out)
			}
			var kept []string
			for _, l := range strings.Split(string(out), "\n") {
				if l = strings.TrimSpace(l); l != "" {
					kept = append(kept, l)
				}
			}
			if diff := cmp.Diff(tt.kept, kept); diff != "" {
				t.Errorf("kept lines (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.guards, guards); diff != "" {
				t.Errorf("guards (-want +got):\n%s", diff)
			}
		})
	}
}
