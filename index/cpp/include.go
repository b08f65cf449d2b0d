//go:build cgo

package cpp

import (
	"path"
	"sort"
	"strings"
)

// includes resolves the quoted includes of the repository's files to
// its files: relative to the including file first, as the preprocessor
// does, then any file whose path ends in the include's (an include
// directory such as include/), the shortest such path first.
type includes struct {
	files  map[string]bool
	byBase map[string][]string
}

func newIncludes(files []string) *includes {
	in := &includes{files: map[string]bool{}, byBase: map[string][]string{}}
	for _, f := range files {
		in.files[f] = true
		in.byBase[path.Base(f)] = append(in.byBase[path.Base(f)], f)
	}
	for _, fs := range in.byBase {
		sort.Slice(fs, func(i, j int) bool {
			if len(fs[i]) != len(fs[j]) {
				return len(fs[i]) < len(fs[j])
			}
			return fs[i] < fs[j]
		})
	}
	return in
}

// resolve returns the file an include of p in from names, "" when it is
// none of the repository's.
func (in *includes) resolve(from, p string) string {
	if p == "" || strings.HasPrefix(p, "/") {
		return ""
	}
	if rel := path.Join(path.Dir(from), p); in.files[rel] {
		return rel
	}
	clean := path.Clean(p)
	if strings.HasPrefix(clean, "../") {
		return ""
	}
	for _, f := range in.byBase[path.Base(clean)] {
		if f == clean || strings.HasSuffix(f, "/"+clean) {
			return f
		}
	}
	return ""
}
