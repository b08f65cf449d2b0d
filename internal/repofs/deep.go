package repofs

import (
	"path"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// deepPattern is a pattern with a "**" before its last name ("a/**/b/c",
// "**/foo/bar"), matched as git matches it: "**" stands for zero or more
// directories, and every split is tried. go-git's pattern takes the first
// directory matching the name after "**" and never backtracks, so it
// missed a/b/x/b/c for "a/**/b/c"; every other pattern stays go-git's.
type deepPattern struct {
	domain  []string
	segs    []string // the pattern's names, the anchoring "" left out
	include bool
	dirOnly bool
}

// parsePattern parses one pattern line (as patternOf leaves it) for the
// ignore file of the directory domain: a deepPattern when it has a "**"
// before its last name, else go-git's.
func parsePattern(p string, domain []string) gitignore.Pattern {
	include := strings.HasPrefix(p, "!")
	body := strings.TrimPrefix(p, "!")
	dirOnly := strings.HasSuffix(body, "/")
	body = strings.TrimSuffix(body, "/")
	all := strings.Split(body, "/")
	if len(all) < 2 || !slices.Contains(all[:len(all)-1], "**") {
		return gitignore.ParsePattern(p, domain)
	}
	var segs []string
	for i, s := range all {
		switch {
		case i == 0 && s == "":
			// "/a/**/b": anchored, as every pattern with a "/" is.
		case s == "**" && len(segs) > 0 && segs[len(segs)-1] == "**":
			// "**/**" is "**".
		default:
			segs = append(segs, s)
		}
	}
	return &deepPattern{domain: append([]string(nil), domain...), segs: segs, include: include, dirOnly: dirOnly}
}

// Match implements gitignore.Pattern: the path (split into names) is
// matched beneath the pattern's directory; a match of a directory above
// the path's end counts, as in go-git (what lies in an ignored directory
// is ignored).
func (p *deepPattern) Match(names []string, isDir bool) gitignore.MatchResult {
	if len(names) <= len(p.domain) {
		return gitignore.NoMatch
	}
	for i, d := range p.domain {
		if names[i] != d {
			return gitignore.NoMatch
		}
	}
	names = names[len(p.domain):]
	m := matcher{p: p, names: names, isDir: isDir, memo: make([]int8, (len(p.segs)+1)*(len(names)+1))}
	if !m.match(0, 0) {
		return gitignore.NoMatch
	}
	if p.include {
		return gitignore.Include
	}
	return gitignore.Exclude
}

// matcher matches one path against a deepPattern. memo holds each
// (pattern name, path name) pair's answer once found (0 not yet, 1 no,
// 2 yes), so that a pattern of many "**" costs len(segs)·len(names) pairs,
// not one try per way of splitting the path.
type matcher struct {
	p     *deepPattern
	names []string
	isDir bool
	memo  []int8
}

// match reports whether the pattern's names from i match a prefix of the
// path's names from j: all of them (then a directory-only pattern needs
// isDir) or a directory above the path's end.
func (m *matcher) match(i, j int) bool {
	k := i*(len(m.names)+1) + j
	if m.memo[k] != 0 {
		return m.memo[k] == 2
	}
	ok := m.try(i, j)
	m.memo[k] = 1
	if ok {
		m.memo[k] = 2
	}
	return ok
}

func (m *matcher) try(i, j int) bool {
	segs, names := m.p.segs, m.names
	if i == len(segs) {
		return j < len(names) || !m.p.dirOnly || m.isDir
	}
	if segs[i] == "**" {
		for n := j; n <= len(names); n++ {
			if m.match(i+1, n) {
				return true
			}
		}
		return false
	}
	if j == len(names) {
		return false
	}
	if ok, err := path.Match(segs[i], names[j]); err != nil || !ok {
		return false
	}
	return m.match(i+1, j+1)
}
