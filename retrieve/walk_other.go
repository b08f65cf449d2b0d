//go:build !unix

package retrieve

// oNonblock is 0 where FIFOs cannot be opened by name.
const oNonblock = 0
