package python

import (
	"path"
	"testing"
)

// TestIsSource: the frontend reads .py files only, by repofs's language
// table; stub files (.pyi) and other case spellings are not read.
func TestIsSource(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"a.py", true},
		{"pkg/sub/__init__.py", true},
		{"_private/x.py", true},
		{"types.pyi", false},
		{"A.PY", false},
		{"a.py.txt", false},
		{"a.pyc", false},
		{"main.go", false},
	} {
		if got := isSource(tc.rel, path.Base(tc.rel)); got != tc.want {
			t.Errorf("isSource(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}
