package repofs

import (
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DESIGN: go-git's matcher asks every pattern, from the last, about the
// whole path, and a pattern without a "/" ("*.log", "build/") is matched
// against every name on the path: a file ten directories deep under
// forty such patterns cost four hundred glob matches, which made the scan
// of a deep Java tree cost its depth times its rules rather than its
// files. The answer for a file splits into what depends on its directory
// and what depends on its name: such a pattern matches dir/name when it
// matches a name of dir (beneath the pattern's own directory) or, that
// failing, name itself. So each directory keeps, per pattern, whether
// its names already match (rule hits, computed once per directory), and
// each file asks the patterns about its own name only, newest first, as
// go-git does; a pattern with a "/" (anchored, or with "**") is still
// matched whole, by go-git or by deepPattern. Literal names and "*.ext"
// are compared without a glob match. The answers are go-git's, even where
// they differ from git's (FuzzIgnoresAgainstGoGit holds them equal).

// rule is one pattern, ready to be matched.
type rule struct {
	// whole matches the whole path; nil for a name pattern (no "/"),
	// which the fields below describe.
	whole gitignore.Pattern

	name    string   // the name's glob
	kind    nameKind // how name is compared
	domain  []string // the directory of the pattern's ignore file
	dirOnly bool     // a trailing "/": directories only
	include bool     // a leading "!"
}

// nameKind says how a name pattern compares a name.
type nameKind int8

const (
	nameGlob    nameKind = iota // filepath.Match
	nameLiteral                 // no glob characters: equal
	nameSuffix                  // "*" then no glob characters: a suffix
)

// hit is what a name pattern makes of a directory's names.
type hit int8

const (
	hitNone     hit = iota // no name of the directory matches: ask the file's name
	hitMatch               // a name of the directory matches: so does every path beneath
	hitStop                // a bad pattern, or the pattern's directory is not above: no match beneath
	hitNotBelow            // the directory is not beneath the pattern's directory: no match beneath
)

// newRule parses one pattern line (as patternOf leaves it) for the
// ignore file of the directory domain.
func newRule(p string, domain []string) rule {
	body := strings.TrimPrefix(p, "!")
	body = strings.TrimSuffix(body, "/")
	if strings.Contains(body, "/") || strings.HasSuffix(p, "\\ ") {
		return rule{whole: parsePattern(p, domain)}
	}
	r := rule{name: body, domain: append([]string(nil), domain...), include: strings.HasPrefix(p, "!"), dirOnly: strings.HasSuffix(p, "/")}
	switch {
	case !strings.ContainsAny(body, `*?[\`):
		r.kind = nameLiteral
	case strings.HasPrefix(body, "*") && !strings.ContainsAny(body[1:], `*?[\`):
		r.kind, r.name = nameSuffix, body[1:]
	}
	return r
}

// matchName matches the rule's name glob against one name; ok is false
// for a bad pattern.
func (r *rule) matchName(name string) (match, ok bool) {
	switch r.kind {
	case nameLiteral:
		return name == r.name, true
	case nameSuffix:
		return strings.HasSuffix(name, r.name), true
	}
	m, err := filepath.Match(r.name, name)
	return m, err == nil
}

// dirHit is what the name rule r makes of the names of a directory
// (parts), as go-git's simple-name match reads them: from the top, the
// first match or bad pattern decides.
func (r *rule) dirHit(parts []string) hit {
	if len(parts) < len(r.domain) {
		return hitNotBelow
	}
	for i, d := range r.domain {
		if parts[i] != d {
			return hitNotBelow
		}
	}
	for _, name := range parts[len(r.domain):] {
		m, ok := r.matchName(name)
		if !ok {
			return hitStop
		}
		if m {
			return hitMatch
		}
	}
	return hitNone
}

// dirState is what the rules make of one directory.
type dirState struct {
	parts   []string // its names from the root
	ignored bool     // it or a directory above it is excluded
	hits    []hit    // per rule (name rules only)
}

// newDirState computes the state of the directory parts, whose parent's
// state is parent (nil for the root).
func (ig *Ignores) newDirState(parent *dirState, parts []string) *dirState {
	st := &dirState{parts: parts, hits: make([]hit, len(ig.rules))}
	for i := range ig.rules {
		if r := &ig.rules[i]; r.whole == nil {
			st.hits[i] = r.dirHit(parts)
		}
	}
	if parent != nil {
		st.ignored = parent.ignored || ig.excludes(parent, parts[len(parts)-1], true)
	}
	return st
}

// rootState returns the root's state.
func (ig *Ignores) rootState() *dirState {
	if ig.root == nil {
		ig.root = ig.newDirState(nil, nil)
	}
	return ig.root
}

// dirState returns the state of the directory rel (a prefix of a path
// asked about, possibly "" for a path that starts with "/"), computing it
// and those above it once.
func (ig *Ignores) dirState(rel string) *dirState {
	if st, ok := ig.dirs[rel]; ok {
		return st
	}
	parent := ig.rootState()
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent = ig.dirState(rel[:i])
	}
	parts := make([]string, len(parent.parts)+1)
	copy(parts, parent.parts)
	parts[len(parts)-1] = rel[strings.LastIndexByte(rel, '/')+1:]
	st := ig.newDirState(parent, parts)
	if ig.dirs == nil {
		ig.dirs = map[string]*dirState{}
	}
	ig.dirs[rel] = st
	return st
}

// excludes reports whether the newest rule that matches dir/name (a
// directory when isDir) excludes it; false when none matches.
func (ig *Ignores) excludes(dir *dirState, name string, isDir bool) bool {
	for i := len(ig.rules) - 1; i >= 0; i-- {
		r := &ig.rules[i]
		if r.whole != nil {
			ig.scratch = append(append(ig.scratch[:0], dir.parts...), name)
			if m := r.whole.Match(ig.scratch, isDir); m != gitignore.NoMatch {
				return m == gitignore.Exclude
			}
			continue
		}
		switch dir.hits[i] {
		case hitMatch:
			return !r.include
		case hitStop, hitNotBelow:
			continue
		}
		if m, ok := r.matchName(name); ok && m && !(r.dirOnly && !isDir) {
			return !r.include
		}
	}
	return false
}
