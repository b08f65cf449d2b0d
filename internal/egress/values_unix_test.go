//go:build unix

package egress

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSecretValuesSpecialFiles: a FIFO named like a secret-bearing file
// neither hangs the reading nor is read, and a link to a file outside the
// checkout is not followed.
func TestSecretValuesSpecialFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.env")
	if err := os.WriteFile(outside, []byte("TOKEN=outside-value-0123456789\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, ".env"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "prod.env")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "id_rsa"), []byte("inside-value-abcdefghijkl\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	vals, err := SecretValues(root, Default().Files())
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, v := range vals {
		found[v] = true
	}
	if found["outsidevalue0123456789"] {
		t.Error("a link to a file outside the checkout was read")
	}
	if !found["insidevalueabcdefghijkl"] {
		t.Errorf("the regular secret-bearing file was not read: %v", vals)
	}
}
