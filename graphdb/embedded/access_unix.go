//go:build unix

package embedded

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// pathWritable reports whether this process may write path. access(2)
// answers EROFS on a read-only file system even for root, which permission
// bits do not stop.
func pathWritable(path string) bool { return unix.Access(path, unix.W_OK) == nil }

// syncDir makes a removal or rename in dir durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// mapFile maps the first size bytes of f read-only. A file that shrinks
// under the mapping faults (SIGBUS) instead of returning short reads;
// hashFile turns that into an error (debug.SetPanicOnFault). Relay's own
// writers never shrink a sealed graph.db: they remove the seal first.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	if int64(int(size)) != size {
		return nil, nil, errors.New("file too large to map")
	}
	b, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, err
	}
	return b, func() { unix.Munmap(b) }, nil
}

// fileIno returns the inode number of the file at path (not following a
// final symbolic link).
func fileIno(path string) (uint64, error) {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err != nil {
		return 0, err
	}
	return uint64(st.Ino), nil
}
