package safefs

import (
	"os"
)

// ReadRegular reads the file name, which the caller itself chose outside
// any repository (a dependency's source file), only if it is a regular
// file: opened non-blocking, so a FIFO cannot hang the read, and checked on
// the open descriptor. More than limit bytes (limit > 0) is ErrTooLarge.
// Errors carry no path (wrap them with one the caller may show).
func ReadRegular(name string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, Errno(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, Errno(err)
	}
	if !fi.Mode().IsRegular() {
		return nil, notRegular(fi.Mode())
	}
	data, err := readAll(f, fi.Size(), limit)
	if err != nil {
		return nil, Errno(err)
	}
	return data, nil
}
