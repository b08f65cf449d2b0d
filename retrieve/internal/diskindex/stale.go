package diskindex

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DESIGN: a search index that failed to update. Build writes a new index
// to a temporary file and renames it into place, so a failed write (a full
// disk, a crash) leaves the previous index whole — but the graph beside it
// has moved on, and the old chunks' line numbers are no longer the files'.
// So before it writes a changed index Build creates the marker
// retrieve.stale (MarkStale; an empty file: it needs no data block, so it
// can be made on a full disk), and removes it only once the new index is
// in place (ClearStale); `relay index` also makes it (retrieve.MarkStale)
// before it builds the search index after the graph changed, so an
// interruption while files are chunked leaves the index refused rather
// than served behind the graph. While the marker exists, Open refuses the
// index (CheckStale: ErrStale), and Build takes no shortcut: it
// checks every file against the index (whose chunks are keyed by content
// and graph hashes, so reusing the unchanged ones is safe) and clears the
// marker once the index is current. When even the marker cannot be made,
// Build removes the old index (removal frees space; it needs none) before
// it writes, so no stale index is ever served as current.

// staleFile is the marker of an index whose last update did not finish.
const staleFile = "retrieve.stale"

// staleError is CheckStale's refusal: it matches ErrStale and ErrDamaged.
type staleError struct{ path, since string }

func (e *staleError) Error() string {
	return fmt.Sprintf("the search index at %s is stale: its last update (begun %s) did not finish, so its line numbers may no longer match the files", e.path, e.since)
}

func (e *staleError) Is(target error) bool {
	return target == ErrStale || target == ErrDamaged
}

// CheckStale returns an error matching ErrStale when dir holds the marker.
func CheckStale(dir string) error {
	fi, err := os.Lstat(filepath.Join(dir, staleFile))
	if err != nil {
		return nil
	}
	return &staleError{path: filepath.Join(dir, FileName), since: fi.ModTime().UTC().Format(time.RFC3339)}
}

// MarkStale makes the marker before an index update, or, when it cannot
// be made, removes the index it would have marked (and the manifest).
func MarkStale(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, staleFile), os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		return f.Close()
	}
	for _, name := range []string{FileName, ManifestFile} {
		if rmErr := os.Remove(filepath.Join(dir, name)); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return fmt.Errorf("mark the search index stale (%v) or remove it: %w", err, rmErr)
		}
	}
	return nil
}

// ClearStale removes the marker once a complete index is in place.
func ClearStale(dir string) error {
	if err := os.Remove(filepath.Join(dir, staleFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear the stale mark of the search index: %w", err)
	}
	return nil
}
