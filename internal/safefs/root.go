package safefs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Root is a repository root through which files are read on someone else's
// behalf. It is safe for concurrent use. Paths given to its methods are
// relative to the root (or absolute inside it) and are checked by Rel.
type Root struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
}

// MaxPathBytes is the longest path accepted (Linux's PATH_MAX less the NUL).
const MaxPathBytes = 4095

// maxLinkHops bounds the symlinks followed when rewriting absolute links.
const maxLinkHops = 40

// OpenRoot opens dir (made absolute, symlinks resolved) as a Root. The
// descriptor is released by Close, or when the Root is garbage collected.
// Its errors name dir, which the caller chose.
func OpenRoot(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("repository root %q: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", abs, err)
	}
	r, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("repository root %s: %w", abs, err)
	}
	return &Root{dir: real, root: r}, nil
}

// Dir returns the root's absolute path, symlinks resolved.
func (r *Root) Dir() string { return r.dir }

// Close releases the root's descriptor.
func (r *Root) Close() error { return r.root.Close() }

// Rel checks p lexically and returns it relative to the root, slash
// separated ("." for the root itself). p may be relative to the root or
// absolute inside it; it is not trimmed.
func (r *Root) Rel(p string) (string, error) {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return "", &PathError{Path: p, Msg: "path contains a NUL byte; pass a plain repository-relative path", Err: fs.ErrInvalid}
	case p == "":
		return "", &PathError{Path: p, Msg: "path is empty; pass a repository-relative path such as \"cmd/relay/main.go\"", Err: fs.ErrInvalid}
	case len(p) > MaxPathBytes:
		return "", &PathError{Path: p, Msg: fmt.Sprintf("path %s is %d bytes long (limit %d); pass a shorter repository-relative path", Quote(p), len(p), MaxPathBytes), Err: syscall.ENAMETOOLONG}
	}
	var joined string
	if filepath.IsAbs(p) {
		joined = filepath.Clean(p)
	} else {
		joined = filepath.Join(r.dir, p)
	}
	rel, err := filepath.Rel(r.dir, joined)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &PathError{Path: p, Msg: fmt.Sprintf("path %s is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)", Quote(p)), Err: ErrOutside}
	}
	return filepath.ToSlash(rel), nil
}

// Open opens p for reading beneath the root. Only a regular file or a
// directory is returned, with its FileInfo from the open descriptor; the
// caller closes it.
func (r *Root) Open(p string) (*os.File, fs.FileInfo, error) {
	var (
		f  *os.File
		fi fs.FileInfo
	)
	rel, err := r.do(p, func(name string) error {
		var err error
		f, err = r.root.OpenFile(name, os.O_RDONLY|openFlags, 0)
		if err != nil {
			return err
		}
		fi, err = f.Stat()
		if err != nil {
			f.Close()
			return err
		}
		if !fi.Mode().IsRegular() && !fi.IsDir() {
			f.Close()
			return ErrNotRegular
		}
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrNotRegular) {
			return nil, nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is %s, not a regular file; only regular files and directories can be read", DisplayPath(rel), Kind(fi.Mode())), Err: notRegular(fi.Mode())}
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile returns the content of the regular file p, refusing one larger
// than max bytes (max <= 0: no limit), also one that grows past max while
// it is read.
func (r *Root) ReadFile(p string, max int64) ([]byte, error) {
	f, fi, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	shown := func() string { return DisplayPath(r.relOr(p)) }
	if fi.IsDir() {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is a directory, not a file", shown()), Err: syscall.EISDIR}
	}
	if max > 0 && fi.Size() > max {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is %d bytes, larger than the %d-byte limit", shown(), fi.Size(), max), Err: ErrTooLarge}
	}
	data, err := readAll(f, fi.Size(), max)
	if errors.Is(err, ErrTooLarge) {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s grew past the %d-byte limit while being read", shown(), max), Err: ErrTooLarge}
	}
	if err != nil {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: %v", shown(), Errno(err)), Err: Errno(err)}
	}
	return data, nil
}

// readAll reads f, size bytes when it was opened, to its end, or
// ErrTooLarge once more than limit bytes (limit > 0) have come. The
// buffer starts at size, so a file read whole is not copied as it grows.
func readAll(f *os.File, size, limit int64) ([]byte, error) {
	var src io.Reader = f
	if limit > 0 {
		src = io.LimitReader(f, limit+1)
		size = min(size, limit)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(src); err != nil {
		return nil, err
	}
	if limit > 0 && int64(buf.Len()) > limit {
		return nil, ErrTooLarge
	}
	return buf.Bytes(), nil
}

// ReadDir lists the directory p beneath the root, sorted by name.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	f, fi, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.IsDir() {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is not a directory", DisplayPath(r.relOr(p))), Err: syscall.ENOTDIR}
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be listed: %v", DisplayPath(r.relOr(p)), Errno(err)), Err: Errno(err)}
	}
	sortDirEntries(ents)
	return ents, nil
}

// Stat returns p's FileInfo beneath the root, following symlinks that stay
// inside it.
func (r *Root) Stat(p string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	_, err := r.do(p, func(name string) error {
		var err error
		fi, err = r.root.Stat(name)
		return err
	})
	return fi, err
}

// Lstat is Stat without following a final symlink.
func (r *Root) Lstat(p string) (fs.FileInfo, error) {
	var fi fs.FileInfo
	_, err := r.do(p, func(name string) error {
		var err error
		fi, err = r.root.Lstat(name)
		return err
	})
	return fi, err
}

// do runs op on p's root-relative name; when os.Root refuses it as escaping
// (which it does for every absolute symlink target), op runs once more on
// the name rewritten by canon. It returns the relative name and an error
// translated by pathError.
func (r *Root) do(p string, op func(name string) error) (string, error) {
	rel, err := r.Rel(p)
	if err != nil {
		return "", err
	}
	// A symlink replaced between a component's open and its readlink comes
	// back as ELOOP or EINVAL; trying again tells a swap from a real loop.
	for try := 0; ; try++ {
		err = r.attempt(rel, op)
		if try == 2 || !(errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EINVAL)) {
			break
		}
	}
	if err != nil {
		return rel, r.pathError(p, rel, err)
	}
	return rel, nil
}

// attempt runs op on rel, and once more on canon(rel) when os.Root refuses
// rel as escaping.
func (r *Root) attempt(rel string, op func(name string) error) error {
	err := op(filepath.FromSlash(rel))
	if err == nil || !isEscape(err) {
		return err
	}
	c, err := r.canon(rel)
	if err != nil {
		return err
	}
	return op(filepath.FromSlash(c))
}

// canon resolves the symlinks in rel through the root, turning absolute
// targets inside the root into relative ones; any link leaving the root is
// ErrOutside. A missing component ends the walk with the rest appended.
func (r *Root) canon(rel string) (string, error) {
	parts := splitRel(rel)
	var done []string // resolved components, no symlinks
	hops := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				return "", ErrOutside
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(done, part)...)
		fi, err := r.root.Lstat(filepath.FromSlash(cur))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return path.Join(append([]string{cur}, parts...)...), nil
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, part)
			continue
		}
		if hops++; hops > maxLinkHops {
			return "", syscall.ELOOP
		}
		target, err := r.root.Readlink(filepath.FromSlash(cur))
		if err != nil {
			return "", err
		}
		if filepath.IsAbs(target) {
			t, err := filepath.Rel(r.dir, filepath.Clean(target))
			if err != nil || t == ".." || strings.HasPrefix(t, ".."+string(filepath.Separator)) {
				return "", ErrOutside
			}
			done = nil
			target = t
		}
		parts = append(splitRel(filepath.ToSlash(target)), parts...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

func splitRel(p string) []string { return strings.Split(p, "/") }

// pathError turns an error from os.Root into a *PathError for the model.
func (r *Root) pathError(p, rel string, err error) error {
	var pe *PathError
	if errors.As(err, &pe) {
		return pe
	}
	shown := DisplayPath(rel)
	switch errno := Errno(err); {
	case isEscape(err) || errors.Is(err, ErrOutside):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s resolves through a symlink to a place outside the repository; it cannot be used", Quote(p)), Err: ErrOutside}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return &PathError{Path: p, Msg: fmt.Sprintf("%s does not exist", shown), Err: fs.ErrNotExist}
	case errors.Is(err, syscall.ELOOP):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s goes through a symlink loop (too many levels of symbolic links); it cannot be used", Quote(p)), Err: syscall.ELOOP}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s is too long (a name in it is over 255 bytes, or it has too many components); pass a shorter repository-relative path", Quote(p)), Err: syscall.ENAMETOOLONG}
	case errors.Is(err, fs.ErrPermission):
		return &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: permission denied", shown), Err: fs.ErrPermission}
	default:
		return &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: %v", shown, errno), Err: errno}
	}
}

// relOr returns p relative to the root, or p itself when it does not check.
func (r *Root) relOr(p string) string {
	if rel, err := r.Rel(p); err == nil {
		return rel
	}
	return p
}

func sortDirEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
