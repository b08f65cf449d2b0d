//go:build !unix

package safefs

// openFlags: no FIFOs to guard against where there is no Unix.
const openFlags = 0
