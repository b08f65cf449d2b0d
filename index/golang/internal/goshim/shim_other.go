//go:build !linux

package goshim

// shimSupported is false: only Linux has PR_SET_PDEATHSIG.
const shimSupported = false

// runShim is never reached where the shim is not supported; it only passes
// the call on.
func runShim() int { return 127 }
