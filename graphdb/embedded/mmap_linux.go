package embedded

import "golang.org/x/sys/unix"

// mapPopulate asks Linux to fill the mapping's page tables up front: one
// call instead of a page fault per 4 KiB.
const mapPopulate = unix.MAP_POPULATE
