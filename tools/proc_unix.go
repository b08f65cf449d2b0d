//go:build unix

package tools

import (
	"os/exec"
	"syscall"
)

// killGroup starts cmd in its own process group and makes cancellation kill
// the whole group, grandchildren included. On Linux the child also dies
// with relay (dieWithParent).
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
