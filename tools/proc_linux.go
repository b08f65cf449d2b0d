package tools

import "syscall"

// dieWithParent has the kernel SIGKILL the child when relay dies, kill -9
// included, instead of leaving rg or fd running to the end of its search.
// The signal follows the thread that forked the child: internal/confine
// keeps its forking thread alive until the child exits, and an unconfined
// start forks from a thread of Go's pool, which lives as long as relay.
func dieWithParent(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }
