//go:build unix

package diskindex

import (
	"os"

	"golang.org/x/sys/unix"
)

// fileIno returns the inode number of the open file f.
func fileIno(f *os.File) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	return uint64(st.Ino), nil
}
