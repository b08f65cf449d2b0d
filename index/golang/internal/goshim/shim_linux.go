package goshim

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

const shimSupported = true

// runShim supervises the real go command (see the DESIGN note in
// shim.go) and returns the exit status to leave with.
func runShim() int {
	// The main goroutine keeps its thread until the process exits, so
	// the Pdeathsig of the child it starts cannot fire early.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0, 0, 0); err != nil {
		fmt.Fprintf(os.Stderr, "relay go shim: prctl: %v\n", err)
	}
	if parentGone() {
		return 1
	}
	if syscall.Getpgrp() != os.Getpid() {
		// Started by someone other than gocommand: lead a group of our
		// own, so that killing it spares the caller.
		_ = syscall.Setpgid(0, 0)
	}
	dir := os.Getenv(envShimDir)
	env := shimEnv(os.Environ(), dir)
	real := os.Getenv(envShimReal)
	if real == "" || sameFile(real, "/proc/self/exe") {
		os.Setenv("PATH", stripPath(os.Getenv("PATH"), dir))
		var err error
		if real, err = exec.LookPath("go"); err != nil {
			fmt.Fprintf(os.Stderr, "relay go shim: %v\n", err)
			return 127
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	cmd := exec.Command(real, os.Args[1:]...)
	cmd.Args[0] = "go"
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "relay go shim: %v\n", err)
		return 127
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case <-done:
			return exitStatus(cmd.ProcessState)
		case sig := <-sigs:
			if sig == syscall.SIGINT || sig == syscall.SIGQUIT {
				// gocommand signals the whole group; pass it on in
				// case it was sent to the shim alone.
				_ = cmd.Process.Signal(sig)
				continue
			}
			// The parent died (PR_SET_PDEATHSIG) or hung up: end the
			// go command and everything it started, then ourselves.
			_ = syscall.Kill(-os.Getpid(), syscall.SIGKILL)
			return 1
		}
	}
}

// parentGone reports whether the relay process that started the shim died
// before PR_SET_PDEATHSIG was set.
func parentGone() bool {
	if os.Getppid() == 1 {
		return true
	}
	pid, err := strconv.Atoi(os.Getenv(envShimParent))
	if err != nil || pid <= 0 {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

// exitStatus returns the go command's status; a death by signal is passed
// on by dying of the same signal.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal.Reset(ws.Signal())
		_ = syscall.Kill(os.Getpid(), ws.Signal())
		time.Sleep(100 * time.Millisecond)
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}
