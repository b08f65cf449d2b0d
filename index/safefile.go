package index

import (
	"fmt"
	"io/fs"

	"github.com/relayhq/relay/internal/safefs"
)

// The index reads files only through internal/safefs: beneath the
// repository root in one step, only regular files, never blocking on a
// FIFO. These names keep the indexer's call sites short.
var (
	// errNotRegular marks a FIFO, device, socket or directory where a
	// source file was expected: opening or reading one can block forever.
	errNotRegular = safefs.ErrNotRegular
	// errOutside marks a path whose real location lies outside the
	// repository: the tools may not read it, so the index does not either.
	errOutside = safefs.ErrOutside
	// fileType names a non-regular file type ("a FIFO").
	fileType = safefs.Kind
)

// repoFiles opens files beneath the repository root, and only regular
// files (safefs.Root).
type repoFiles struct{ root *safefs.Root }

func openRepoFiles(root string) (*repoFiles, error) {
	r, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open repository root: %w", err)
	}
	return &repoFiles{root: r}, nil
}

func (r *repoFiles) close() { r.root.Close() }

// read returns the content of the regular file rel (slash-separated)
// beneath the root.
func (r *repoFiles) read(rel string) ([]byte, error) { return r.root.ReadFile(rel, 0) }

// stat describes what rel leads to (symbolic links followed), without
// leaving the root: an error wrapping errOutside when its real path lies
// outside.
func (r *repoFiles) stat(rel string) (fs.FileInfo, error) { return r.root.Stat(rel) }
