//go:build !linux

package confine

import "os/exec"

// Available reports whether programs started through Start are confined:
// never on this OS.
func Available() bool { return false }

// Start is cmd.Start: Landlock is Linux's.
func Start(cmd *exec.Cmd, root string) error { return cmd.Start() }
