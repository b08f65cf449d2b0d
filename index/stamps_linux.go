package index

import (
	"io/fs"
	"syscall"
)

// sysStamp returns a file's change time (UnixNano) and inode, which a save
// through a new file and a rename changes even when it keeps the size and
// modification time.
func sysStamp(fi fs.FileInfo) (ctime, ino int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0
	}
	return st.Ctim.Sec*1e9 + st.Ctim.Nsec, int64(st.Ino)
}
