package index

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// errNotRegular is returned for a FIFO, device, socket or directory where a
// source file was expected: opening or reading one can block forever.
var errNotRegular = errors.New("not a regular file")

// errOutside is returned for a path whose real location (symbolic links
// resolved) lies outside the repository: the tools may not read it, so the
// index does not either.
var errOutside = errors.New("links outside the repository")

// repoFiles opens files beneath the repository root, and only regular
// files.
//
// DESIGN: a path checked and then opened by name can be swapped for a
// symbolic link or a FIFO in between. Files are opened through an os.Root
// (openat, one component at a time, never leaving the root) with
// O_NONBLOCK, so opening a FIFO cannot block, and the type is checked with
// fstat on the open descriptor, so what is read is what was checked.
// os.Root refuses every absolute symbolic link and every ".." that climbs
// above the root, even one that lands back inside; such a path is resolved
// once more with EvalSymlinks and, when its real path lies inside the root,
// opened through the root by that path (still without leaving it).
type repoFiles struct {
	root string   // absolute, as given
	real string   // root with symbolic links resolved
	fsys *os.Root // the root directory
}

func openRepoFiles(root string) (*repoFiles, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("resolve repository root: %w", err)
	}
	fsys, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("open repository root: %w", err)
	}
	return &repoFiles{root: root, real: real, fsys: fsys}, nil
}

func (r *repoFiles) close() { r.fsys.Close() }

// open opens rel (slash-separated) beneath the root: a regular file, or an
// error (errNotRegular, errOutside, a *fs.PathError naming rel).
func (r *repoFiles) open(rel string) (*os.File, error) {
	name := filepath.FromSlash(rel)
	f, err := r.fsys.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil && escapes(err) {
		inner, rerr := r.inside(rel)
		if rerr != nil {
			return nil, rerr
		}
		f, err = r.fsys.OpenFile(inner, os.O_RDONLY|oNonblock, 0)
	}
	if err != nil {
		return nil, err
	}
	return checkRegular(f)
}

// inside resolves rel's real path and returns it relative to the root, or
// errOutside.
func (r *repoFiles) inside(rel string) (string, error) {
	real, err := filepath.EvalSymlinks(filepath.Join(r.root, filepath.FromSlash(rel)))
	if err != nil {
		return "", &fs.PathError{Op: "resolve", Path: rel, Err: unwrapPath(err)}
	}
	in, err := filepath.Rel(r.real, real)
	if err != nil || in == ".." || strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return "", errOutside
	}
	return in, nil
}

// stat describes what rel leads to (symbolic links followed), without
// leaving the root: errOutside when its real path lies outside.
func (r *repoFiles) stat(rel string) (fs.FileInfo, error) {
	fi, err := r.fsys.Stat(filepath.FromSlash(rel))
	if err != nil && escapes(err) {
		inner, rerr := r.inside(rel)
		if rerr != nil {
			return nil, rerr
		}
		fi, err = r.fsys.Stat(inner)
	}
	return fi, err
}

// read returns the content of the regular file rel beneath the root.
func (r *repoFiles) read(rel string) ([]byte, error) {
	f, err := r.open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// readRegular reads an absolute path outside the repository (a dependency's
// file), only if it is a regular file, without blocking on a FIFO.
func readRegular(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	f, err = checkRegular(f)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// checkRegular returns f when it is a regular file; otherwise it closes f.
func checkRegular(f *os.File) (*os.File, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", errNotRegular, fileType(fi.Mode()))
	}
	return f, nil
}

// fileType names a non-regular file type.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "irregular"
}

// escapes reports whether err is os.Root's refusal of a path that leaves
// it (an unexported error in package os, recognised by its text).
func escapes(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// unwrapPath drops the *fs.PathError around err, whose path may be
// absolute.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// reason says in a few words why a file or directory was not read, never
// naming an absolute path.
func reason(err error) string {
	switch {
	case errors.Is(err, errOutside) || escapes(err):
		return "links outside the repository"
	case errors.Is(err, errNotRegular):
		return unwrapPath(err).Error()
	case errors.Is(err, syscall.ELOOP) || strings.Contains(err.Error(), "too many links"):
		return "symbolic link loop"
	case errors.Is(err, syscall.ENAMETOOLONG):
		return "path too long to open"
	case errors.Is(err, fs.ErrNotExist):
		return "missing: a broken symbolic link, or deleted during indexing"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	return unwrapPath(err).Error()
}

// shortRel keeps a very long repository-relative path readable in a note.
func shortRel(rel string) string {
	const max = 160
	if len(rel) <= max {
		return rel
	}
	return fmt.Sprintf("%s…%s (%d bytes)", rel[:max/2], rel[len(rel)-max/2+10:], len(rel))
}
