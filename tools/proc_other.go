//go:build !unix

package tools

import (
	"os"
	"os/exec"
)

// killGroup leaves the default cancellation (kill the child) where process
// groups do not exist.
func killGroup(cmd *exec.Cmd) {}

// peakRSS is unknown where there is no rusage.
func peakRSS(ps *os.ProcessState) int64 { return 0 }
