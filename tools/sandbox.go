package tools

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// sandbox keeps paths inside the repository root.
//
// DESIGN: a path is checked twice. First lexically: NUL bytes are refused,
// relative paths are joined to root, and the cleaned result must stay under
// root (this catches "../" and absolute paths elsewhere). Then physically: the
// deepest existing ancestor is resolved with EvalSymlinks and must still be
// under root, so a symlink inside the repository that points outside leaks
// nothing — not even whether the far file exists.
type sandbox struct {
	root string // absolute, symlinks resolved
}

// escapeError is a model-visible refusal.
type escapeError struct{ msg string }

func (e *escapeError) Error() string { return e.msg }

// resolve returns the absolute path and the slash-separated path relative to
// root for p. A refusal is an *escapeError whose text is meant for the model.
func (s sandbox) resolve(p string) (abs, rel string, err error) {
	if strings.IndexByte(p, 0) >= 0 {
		return "", "", &escapeError{"path contains a NUL byte; pass a plain repository-relative path"}
	}
	p = strings.TrimSpace(p)
	if p == "" {
		return "", "", &escapeError{"path is empty; pass a repository-relative path such as \"cmd/relay/main.go\""}
	}
	var joined string
	if filepath.IsAbs(p) {
		joined = filepath.Clean(p)
	} else {
		joined = filepath.Join(s.root, p)
	}
	if !s.contains(joined) {
		return "", "", &escapeError{fmt.Sprintf("path %q is outside the repository; only paths inside the repository root can be used (pass a repository-relative path)", p)}
	}
	real, err := s.evalExisting(joined)
	if err != nil {
		return "", "", err
	}
	if !s.contains(real) {
		return "", "", &escapeError{fmt.Sprintf("path %q resolves through a symlink to a place outside the repository; it cannot be used", p)}
	}
	r, err := filepath.Rel(s.root, joined)
	if err != nil {
		return "", "", fmt.Errorf("relative path of %s: %w", joined, err)
	}
	return joined, filepath.ToSlash(r), nil
}

// contains reports whether the cleaned absolute path p is root or below it.
func (s sandbox) contains(p string) bool {
	if p == s.root {
		return true
	}
	prefix := s.root
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	return strings.HasPrefix(p, prefix)
}

// evalExisting resolves symlinks in the longest existing prefix of p and
// appends the missing rest unchanged. A dangling symlink on the way is
// followed to where it points, so it cannot hide a way out of the root.
func (s sandbox) evalExisting(p string) (string, error) {
	return s.evalHops(p, 0)
}

func (s sandbox) evalHops(p string, hops int) (string, error) {
	if hops > 40 {
		return "", &escapeError{fmt.Sprintf("path %q has too many levels of symlinks", p)}
	}
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !isNotDir(err) {
			return "", fmt.Errorf("resolve %s: %w", cur, err)
		}
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, rerr := os.Readlink(cur)
			if rerr != nil {
				return "", fmt.Errorf("resolve %s: %w", cur, rerr)
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(cur), target)
			}
			return s.evalHops(filepath.Join(target, rest), hops+1)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Join(cur, rest), nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func isNotDir(err error) bool {
	return errors.Is(err, syscall.ENOTDIR)
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
			return fmt.Sprintf("%s %q contains \"..\"; patterns are relative to the repository root and cannot leave it", what, p)
		}
	}
	return ""
}
