//go:build unix

package embedded

import (
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
