package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// WriteFile writes b to path whole, through a temporary file beside it
// and a rename, so that a reader (or a resumed Batch, for which a report
// file marks a ticket done) never sees half a file. Its errors name path,
// not the temporary file.
func WriteFile(path string, b []byte) error {
	tmp, err := CreateTemp(path, ".tmp")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// CreateTemp creates the temporary file, ending in suffix, that will be
// renamed to path. Its error names path and the reason, not the temporary
// file's name (which read ".x.md.1369212727.tmp: no such file or
// directory" for a path in a folder that does not exist).
func CreateTemp(path, suffix string) (*os.File, error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*"+suffix)
	if err == nil {
		return f, nil
	}
	if fi, serr := os.Stat(dir); errors.Is(serr, fs.ErrNotExist) {
		return nil, fmt.Errorf("write %s: the folder %s does not exist; create it, or choose another path", path, dir)
	} else if serr == nil && !fi.IsDir() {
		return nil, fmt.Errorf("write %s: %s is not a folder", path, dir)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return nil, fmt.Errorf("write %s: %w", path, err)
}
