//go:build unix

package serve

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// killGroupOnCancel runs cmd in its own process group and kills the whole
// group when its context ends, so git's helpers (remote-https, ssh) die too.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// lockStateDir takes an exclusive lock on dir/serve.lock: one process per
// state directory (mirrors, worktrees and the embedded queue are not shared).
// The kernel releases it when the process dies.
func lockStateDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	path := filepath.Join(dir, "serve.lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("state directory %s is in use by another relay process (%s); give each process its own state_dir and share a PostgreSQL queue instead", dir, path)
	}
	return func() { f.Close() }, nil
}
