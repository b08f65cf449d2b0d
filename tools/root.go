package tools

import (
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

// Root is a repository root through which files are read on a model's
// behalf: read (files and directory listings), the stats grep and glob make,
// the search tool's snippets and the answer's citation checks all go
// through it. It is safe for concurrent use.
//
// DESIGN: a path is checked lexically first (NUL bytes, length, ".." or an
// absolute path leaving the root), then opened beneath the root in one step
// with os.Root, which resolves every component relative to an open
// directory descriptor and refuses symlinks that leave it. Nothing is
// checked by name and then reopened by name, so a file swapped for a
// symlink to /etc/passwd between a check and an open cannot be read. The
// one extra step is for symlinks whose target is an absolute path inside
// the root (os.Root refuses all absolute targets): such a path is rewritten
// to its repository-relative form by reading the links through the same
// os.Root and opened again beneath the root — still never outside it.
//
// Files are opened non-blocking and the open descriptor is fstat-ed: only
// regular files and directories are used, so a FIFO or device (even one
// swapped in after a check) neither hangs a call nor is read.
//
// Errors are *PathError, whose messages name paths as the caller gave them
// (capped) or relative to the root, never an absolute path outside it.
type Root struct {
	dir  string // absolute, symlinks resolved
	root *os.Root
}

// MaxPathBytes is the longest path accepted (Linux's PATH_MAX less the NUL).
const MaxPathBytes = 4095

// maxLinkHops bounds the symlinks followed when rewriting absolute links.
const maxLinkHops = 40

// Sentinels wrapped by *PathError, for errors.Is.
var (
	// ErrOutside: the path leaves the repository, lexically or through a symlink.
	ErrOutside = errors.New("path outside the repository")
	// ErrNotRegular: the path names a FIFO, device, socket or other non-regular file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrTooLarge: a file is larger than the caller's limit.
	ErrTooLarge = errors.New("file too large")
)

// PathError is a refused or failed access to a repository path. Its message
// is written for a model: it names the problem and what to do, with the path
// as given (capped) or relative to the root. Err is fs.ErrNotExist,
// ErrOutside, ErrNotRegular, ErrTooLarge or the system error.
type PathError struct {
	Path string // the path as given
	Msg  string
	Err  error
}

func (e *PathError) Error() string { return e.Msg }
func (e *PathError) Unwrap() error { return e.Err }

// OpenRoot opens dir (made absolute, symlinks resolved) as a Root. The
// descriptor is released by Close, or when the Root is garbage collected.
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
		return "", &PathError{Path: p, Msg: fmt.Sprintf("path %s is %d bytes long (limit %d); pass a shorter repository-relative path", quoteArg(p), len(p), MaxPathBytes), Err: syscall.ENAMETOOLONG}
	}
	var joined string
	if filepath.IsAbs(p) {
		joined = filepath.Clean(p)
	} else {
		joined = filepath.Join(r.dir, p)
	}
	rel, err := filepath.Rel(r.dir, joined)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", &PathError{Path: p, Msg: fmt.Sprintf("path %s is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)", quoteArg(p)), Err: ErrOutside}
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
			return nil, nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is %s, not a regular file; only regular files and directories can be read", displayPath(rel), fileKind(fi.Mode())), Err: ErrNotRegular}
		}
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadFile returns the content of the regular file p, refusing one larger
// than max bytes (max <= 0: no limit).
func (r *Root) ReadFile(p string, max int64) ([]byte, error) {
	f, fi, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rel := displayPath(r.relOr(p))
	if fi.IsDir() {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is a directory, not a file", rel), Err: syscall.EISDIR}
	}
	if max > 0 && fi.Size() > max {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is %d bytes, larger than the %d-byte limit", rel, fi.Size(), max), Err: ErrTooLarge}
	}
	var src io.Reader = f
	if max > 0 {
		src = io.LimitReader(f, max+1)
	}
	data, err := io.ReadAll(src)
	if err != nil {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: %v", rel, errnoOf(err)), Err: errnoOf(err)}
	}
	if max > 0 && int64(len(data)) > max {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s grew past the %d-byte limit while being read", rel, max), Err: ErrTooLarge}
	}
	return data, nil
}

// ReadDir lists the directory p beneath the root, sorted by name.
func (r *Root) ReadDir(p string) ([]fs.DirEntry, error) {
	f, fi, err := r.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if !fi.IsDir() {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s is not a directory", displayPath(r.relOr(p))), Err: syscall.ENOTDIR}
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be listed: %v", displayPath(r.relOr(p)), errnoOf(err)), Err: errnoOf(err)}
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
	shown := displayPath(rel)
	switch errno := errnoOf(err); {
	case isEscape(err) || errors.Is(err, ErrOutside):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s resolves through a symlink to a place outside the repository; it cannot be used", quoteArg(p)), Err: ErrOutside}
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		return &PathError{Path: p, Msg: fmt.Sprintf("%s does not exist", shown), Err: fs.ErrNotExist}
	case errors.Is(err, syscall.ELOOP):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s goes through a symlink loop (too many levels of symbolic links); it cannot be used", quoteArg(p)), Err: syscall.ELOOP}
	case errors.Is(err, syscall.ENAMETOOLONG):
		return &PathError{Path: p, Msg: fmt.Sprintf("path %s is too long (a name in it is over 255 bytes, or it has too many components); pass a shorter repository-relative path", quoteArg(p)), Err: syscall.ENAMETOOLONG}
	case errors.Is(err, fs.ErrPermission):
		return &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: permission denied", shown), Err: fs.ErrPermission}
	default:
		return &PathError{Path: p, Msg: fmt.Sprintf("%s cannot be read: %v", shown, errno), Err: errno}
	}
}

// errnoOf strips the *os.PathError (and its path) off err.
func errnoOf(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// isEscape reports os.Root's refusal of a path leaving the root; the
// error it wraps is not exported, so it is recognised by its text (tests
// pin it through the symlink-escape cases).
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err.Error() == "path escapes from parent"
}

// relOr returns p relative to the root, or p itself when it does not check.
func (r *Root) relOr(p string) string {
	if rel, err := r.Rel(p); err == nil {
		return rel
	}
	return p
}

// fileKind names a non-regular file's type for a message.
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symlink"
	}
	return fmt.Sprintf("a special file (%s)", m.Type())
}

func sortDirEntries(ents []fs.DirEntry) {
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}

// checkPattern refuses glob/include patterns that could leave the root or
// that no tool could use.
func checkPattern(what, p string) string {
	switch {
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Sprintf("%s contains a NUL byte; pass a plain pattern", what)
	case len(p) > MaxPatternBytes:
		return fmt.Sprintf("%s is %d bytes long (limit %d); use a shorter pattern", what, len(p), MaxPatternBytes)
	}
	for _, seg := range strings.Split(filepath.ToSlash(p), "/") {
		if seg == ".." {
			return fmt.Sprintf("%s %s contains \"..\"; patterns are relative to the repository root and cannot leave it", what, quoteArg(p))
		}
	}
	return ""
}
