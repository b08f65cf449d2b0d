//go:build !linux

package index

import "io/fs"

// sysStamp returns 0, 0 where the change time and inode are not read: the
// stamp holds the size and modification time alone.
func sysStamp(fs.FileInfo) (ctime, ino int64) { return 0, 0 }
