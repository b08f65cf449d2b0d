package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteFile: a file is written whole, replacing the one there, with no
// temporary file left; a path in a missing folder, or under a file, is
// refused with an error naming the path and the folder, not the temporary
// file.
func TestWriteFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "r.md")
	for _, body := range []string{"first\n", "second\n"} {
		if err := WriteFile(p, []byte(body)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(p); err != nil || string(b) != body {
			t.Fatalf("read %q, %v; want %q", b, err, body)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the folder; want the file alone", len(ents))
	}
	tests := []struct {
		path string
		want string
	}{
		{filepath.Join(dir, "missing", "r.md"), "the folder " + filepath.Join(dir, "missing") + " does not exist"},
		{filepath.Join(p, "r.md"), p + " is not a folder"},
	}
	for _, tt := range tests {
		err := WriteFile(tt.path, []byte("x"))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "write "+tt.path+": ") || strings.Contains(err.Error(), ".tmp") {
			t.Errorf("WriteFile(%s): %v; want %q about the path", tt.path, err, tt.want)
		}
	}
}
