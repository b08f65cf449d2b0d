//go:build !unix

package tools

import "os/exec"

// killGroup leaves the default cancellation (kill the child) where process
// groups do not exist.
func killGroup(cmd *exec.Cmd) {}
