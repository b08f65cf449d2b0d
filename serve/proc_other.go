//go:build !unix

package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

func killGroupOnCancel(cmd *exec.Cmd) {}

// lockStateDir creates dir/serve.lock exclusively; a crashed process leaves
// it behind, and the message says to remove it.
func lockStateDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(dir, "serve.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("state directory %s is in use (%s exists; remove it if no other relay process uses the directory): %w", dir, path, err)
	}
	return func() { f.Close(); os.Remove(path) }, nil
}
