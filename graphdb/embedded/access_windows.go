//go:build windows

package embedded

import (
	"errors"
	"os"
)

// pathWritable reports whether this process may write path: for a
// directory, whether a file can be created in it; for a file, whether it
// opens for writing.
func pathWritable(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		f, err := os.CreateTemp(path, ".relay-probe-*")
		if err != nil {
			return false
		}
		f.Close()
		os.Remove(f.Name())
		return true
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// syncDir is a no-op: Windows cannot sync a directory handle.
func syncDir(string) error { return nil }

// mapFile is not used on Windows: hashFile reads the file instead.
func mapFile(*os.File, int64) ([]byte, func(), error) {
	return nil, nil, errors.New("not mapped on windows")
}

// fileIno is 0 on Windows: a seal's MAC there covers the checksums only.
func fileIno(path string) (uint64, error) {
	_, err := os.Lstat(path)
	return 0, err
}
