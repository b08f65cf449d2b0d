//go:build unix

package tools

import (
	"os"
	"os/exec"
	"runtime"
	"syscall"
)

// killGroup starts cmd in its own process group and makes cancellation kill
// the whole group, grandchildren included.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// peakRSS returns the finished child's peak resident set size in bytes.
func peakRSS(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return ru.Maxrss // bytes there
	}
	return ru.Maxrss << 10 // kilobytes on Linux and the BSDs
}
