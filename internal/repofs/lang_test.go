package repofs

import (
	"slices"
	"testing"
)

// TestLanguage: extensions (in any case) and whole base names map to a
// language; known extensions that are not read and unknown ones do not.
func TestLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rel, lang string
		ok        bool
	}{
		{"a/b.go", "go", true},
		{"x.py", "python", true},
		{"x.pyi", "python", true},
		{"web/app.ts", "typescript", true},
		{"web/app.tsx", "typescript", true},
		{"web/esm.mts", "typescript", true},
		{"web/cjs.cts", "typescript", true},
		{"web/types.d.mts", "typescript", true},
		{"web/APP.TS", "typescript", true},
		{"web/app.js", "javascript", true},
		{"web/app.mjs", "javascript", true},
		{"web/app.cjs", "javascript", true},
		{"web/app.jsx", "javascript", true},
		{"A.java", "java", true},
		{"Makefile", "make", true},
		{"sub/go.mod", "gomod", true},
		{"go.sum", "", false},
		{"image.png", "", false},
		{"README", "", false},
	} {
		lang, ok := Language(tc.rel)
		if lang != tc.lang || ok != tc.ok {
			t.Errorf("Language(%q) = %q, %v; want %q, %v", tc.rel, lang, ok, tc.lang, tc.ok)
		}
	}
	langs := Languages()
	if !slices.IsSorted(langs) || slices.Contains(langs, "") || !slices.Contains(langs, "javascript") {
		t.Errorf("Languages() = %q: want sorted names, javascript among them, no empty name", langs)
	}
}
