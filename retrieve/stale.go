package retrieve

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
// retrieve.stale (an empty file: it needs no data block, so it can be made
// on a full disk), and removes it only once the new index is in place;
// `relay index` also makes it (MarkStale) before it builds the search
// index after the graph changed, so an interruption while files are
// chunked leaves the index refused rather than served behind the graph.
// While the marker exists, Open refuses the index (ErrIndexStale, whose
// message says to run `relay index`), and Build takes no shortcut: it
// checks every file against the index (whose chunks are keyed by content
// and graph hashes, so reusing the unchanged ones is safe) and clears the
// marker once the index is current. When even the marker cannot be made,
// Build removes the old index (removal frees space; it needs none) before
// it writes, so no stale index is ever served as current.

// staleFile is the marker of an index whose last update did not finish.
const staleFile = "retrieve.stale"

// ErrIndexStale is matched (errors.Is) by Open's error when the last
// update of the index did not finish: it is older than the graph and the
// files. The error also matches ErrIndexDamaged, so callers that work
// without a damaged index work without a stale one; its message says to
// run `relay index`, which rebuilds it.
var ErrIndexStale = errors.New("search index stale")

type staleError struct{ path, since string }

func (e *staleError) Error() string {
	return fmt.Sprintf("the search index at %s is stale: its last update (begun %s) did not finish, so its line numbers may no longer match the files; run `relay index` to rebuild it", e.path, e.since)
}

func (e *staleError) Is(target error) bool {
	return target == ErrIndexStale || target == ErrIndexDamaged
}

// checkStale returns a *staleError when dir holds the marker.
func checkStale(dir string) error {
	fi, err := os.Lstat(filepath.Join(dir, staleFile))
	if err != nil {
		return nil
	}
	return &staleError{path: filepath.Join(dir, IndexFile), since: fi.ModTime().UTC().Format(time.RFC3339)}
}

// MarkStale marks the search index in dir stale (see the DESIGN note)
// before what it is derived from changes: Open refuses it until a Build
// brings it up to date. When the mark cannot be made, the index is removed.
func MarkStale(dir string) error { return markStale(dir) }

// markStale makes the marker before an index update, or, when it cannot be
// made, removes the index it would have marked.
func markStale(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, staleFile), os.O_CREATE|os.O_WRONLY, 0o600)
	if err == nil {
		return f.Close()
	}
	for _, name := range []string{IndexFile, manifestFile} {
		if rmErr := os.Remove(filepath.Join(dir, name)); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
			return fmt.Errorf("mark the search index stale (%v) or remove it: %w", err, rmErr)
		}
	}
	return nil
}

// clearStale removes the marker once a complete index is in place.
func clearStale(dir string) error {
	if err := os.Remove(filepath.Join(dir, staleFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("clear the stale mark of the search index: %w", err)
	}
	return nil
}
