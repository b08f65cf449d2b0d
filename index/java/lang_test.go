package java

import (
	"path"
	"testing"
)

// TestIsSource: Java files are the .java files of internal/repofs's
// language table, with the extension in lower case (javac reads no
// other) and a name before it.
func TestIsSource(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"A.java", true},
		{"src/main/java/com/acme/App.java", true},
		{"module-info.java", true},
		{".java", false},
		{"src/.java", false},
		{"A.JAVA", false},
		{"A.Java", false},
		{"A.java.txt", false},
		{"A.jav", false},
		{"A.kt", false},
		{"java", false},
	} {
		if got := isSource(tt.rel, path.Base(tt.rel)); got != tt.want {
			t.Errorf("isSource(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}
