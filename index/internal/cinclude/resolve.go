package cinclude

import (
	"path"
	"strings"
)

// Resolver finds the repository file an #include names.
type Resolver struct {
	files  map[string]bool     // the repository's C-family files
	dirs   []string            // include directories, repository-relative
	suffix map[string][]string // files by every trailing part of their path
}

// NewResolver returns a resolver over files (repository-relative) with
// the include directories dirs (Dirs).
func NewResolver(files []string, dirs []string) *Resolver {
	r := &Resolver{files: map[string]bool{}, dirs: dirs, suffix: map[string][]string{}}
	for _, f := range files {
		r.files[f] = true
		for i := len(f) - 1; i >= 0; i-- {
			if f[i] == '/' {
				r.suffix[f[i+1:]] = append(r.suffix[f[i+1:]], f)
			}
		}
		r.suffix[f] = append(r.suffix[f], f)
	}
	return r
}

// Resolve returns the file `#include "name"` (quoted) or `#include
// <name>` in the file from names, as the compiler searches: a quoted name
// relative to the including file's folder first, then each include
// directory; then, for a quoted name only, the one file of the
// repository whose path ends in /name (a build this check cannot see
// adds its folder). ok is false for a name outside the repository (the C
// library's headers).
func (r *Resolver) Resolve(from, name string, quoted bool) (string, bool) {
	if name == "" || strings.HasPrefix(name, "/") {
		return "", false
	}
	if quoted {
		if p := path.Join(path.Dir(from), name); r.files[p] {
			return p, true
		}
	}
	for _, d := range r.dirs {
		if p := path.Join(d, name); r.files[p] {
			return p, true
		}
	}
	if quoted {
		if c := r.suffix[path.Clean(name)]; len(c) == 1 {
			return c[0], true
		}
	}
	return "", false
}
