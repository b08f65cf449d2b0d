//go:build !unix

package tools

// openFlags: no FIFOs to guard against where there is no Unix.
const openFlags = 0
