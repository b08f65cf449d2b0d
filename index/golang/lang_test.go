package golang

import (
	"path"
	"testing"
)

// TestIsSource: Go's files are those the repository's language table
// calls Go, as the go command reads them: a lower-case .go extension, no
// directory on the path starting with "_".
func TestIsSource(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		want bool
	}{
		{"a.go", true},
		{"p/q/a_test.go", true},
		{"testdata/x.go", true},
		{".hidden/a.go", true}, // the scan decides on dot directories
		{"A.GO", false},
		{"_build/a.go", false},
		{"p/_gen/a.go", false},
		{"p_/a.go", true},
		{"a.go.txt", false},
		{"go.mod", false},
		{"a.py", false},
	} {
		if got := isSource(tc.rel, path.Base(tc.rel)); got != tc.want {
			t.Errorf("isSource(%q) = %v, want %v", tc.rel, got, tc.want)
		}
	}
}
