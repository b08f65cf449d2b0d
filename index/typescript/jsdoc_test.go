//go:build cgo

package typescript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestJSDocTags(t *testing.T) {
	tests := []struct {
		name, doc string
		want      [][3]string
	}{
		{"param and returns", "/**\n * Does it. Mail a@b.c\n * @param {Foo} x the x\n * @returns {Bar}\n */",
			[][3]string{{"param", "Foo", "x the x"}, {"returns", "Bar", ""}}},
		{"nested braces and scoped import", "/** @type {import('@org/m').T<{a: B}>} */",
			[][3]string{{"type", "import('@org/m').T<{a: B}>", ""}}},
		{"optional with default", "/** @param {?Foo=} [opts=1] */", [][3]string{{"param", "?Foo=", "[opts=1]"}}},
		{"import tag", "/** @import { A, B as C } from './m' */", [][3]string{{"import", " A, B as C ", "from './m'"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, jsdocTags(tt.doc)); diff != "" {
				t.Errorf("jsdocTags (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJSDocNames(t *testing.T) {
	for in, want := range map[string]string{"x the x": "x", "[opts=1]": "opts", "[y]": "y", "opts.x": "", "": ""} {
		if got := jsdocParamName(in); got != want {
			t.Errorf("jsdocParamName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string][2]string{"import('./m').A.B": {"./m", "A.B"}, `import("@o/m")`: {"@o/m", ""}, "Foo": {"", ""}} {
		spec, name, _ := jsdocImportType(in)
		if got := [2]string{spec, name}; got != want {
			t.Errorf("jsdocImportType(%q) = %q, want %q", in, got, want)
		}
	}
}
