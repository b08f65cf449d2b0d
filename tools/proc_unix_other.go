//go:build unix && !linux

package tools

import "syscall"

// dieWithParent does nothing where the kernel has no parent-death signal;
// a child there ends when its search does or its deadline kills it.
func dieWithParent(*syscall.SysProcAttr) {}
