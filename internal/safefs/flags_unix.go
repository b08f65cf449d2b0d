//go:build unix

package safefs

import "syscall"

// openFlags make opening a FIFO return at once (instead of waiting for a
// writer) and keep a terminal from becoming the controlling one; the open
// descriptor is then checked to be a regular file or directory.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
