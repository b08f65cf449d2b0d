package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStoreKeyFile: the key is created 0600 (in a 0700 folder) on first
// use and the same key is read afterwards; a key others may read, one of
// the wrong size and one that is a link are refused with advice.
func TestStoreKeyFile(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "cfg", "relay", "store.key")
	k1, err := loadOrCreateKey(p)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 || len(k1) != storeKeySize {
		t.Fatalf("key file %v (mode %v), %d bytes; want 0600 and %d bytes", err, fi.Mode().Perm(), len(k1), storeKeySize)
	}
	if di, err := os.Stat(filepath.Dir(p)); err != nil || di.Mode().Perm() != 0o700 {
		t.Errorf("key folder mode %v, %v; want 0700", di.Mode().Perm(), err)
	}
	k2, err := loadOrCreateKey(p)
	if err != nil || string(k1) != string(k2) {
		t.Errorf("second use read another key (%v)", err)
	}
	tests := []struct {
		name  string
		setup func(t *testing.T, p string)
		want  string
	}{
		{"readable by others", func(t *testing.T, p string) {
			if err := os.WriteFile(p, k1, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "chmod 600"},
		{"wrong size", func(t *testing.T, p string) {
			if err := os.WriteFile(p, []byte("short"), 0o600); err != nil {
				t.Fatal(err)
			}
		}, "holds 5 bytes"},
		{"a link", func(t *testing.T, p string) {
			target := filepath.Join(filepath.Dir(p), "elsewhere")
			if err := os.WriteFile(target, k1, 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "store.key")
			tt.setup(t, p)
			if _, err := loadOrCreateKey(p); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("loadOrCreateKey = %v, want an error saying %q", err, tt.want)
			}
		})
	}
}
