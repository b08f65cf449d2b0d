// Package goshim makes every go command the Go frontend starts (go list,
// through go/packages) die with relay, even when relay is killed with
// SIGKILL: while a run lists packages, the relay executable stands on PATH
// as "go" and, started under that name, supervises the real go command
// (Linux only; elsewhere go list is stopped by its timeout and by the
// context). See the DESIGN note in shim.go. Run is called first in main
// (index.RunGoShim); Acquire brackets each run's listing.
package goshim
