package repofs

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"

	"github.com/relayhq/relay/internal/safefs"
)

// MaxIgnoreFileSize is the largest ignore file read; a bigger one is
// reported to the caller instead of being read.
const MaxIgnoreFileSize = 16 << 20

// Ignores holds the ignore patterns of a repository read so far, in git's
// order of precedence: later patterns (and patterns of deeper .gitignore
// files, which are loaded later) win. The zero value ignores nothing.
//
// DESIGN: git never looks inside an excluded directory, so a path is
// ignored when any directory on its path is, whatever a later "!" pattern
// says about the path itself. Ignored checks the directories on the path
// from the top and remembers each directory's answer until the next Add
// (a walk asks about a directory before what lies inside, so each is
// matched once). The answers are go-git's matcher's (match.go says how
// they are reached without matching every name of every path).
type Ignores struct {
	rules   []rule
	root    *dirState            // the root's state, nil until asked since the last Add
	dirs    map[string]*dirState // by directory (a prefix of a path asked about), since the last Add
	scratch []string             // a path's names, for the rules matched whole
}

// Load reads the ignore file rel beneath fsys (a .gitignore, or
// .git/info/exclude for dir ".") whose patterns apply beneath the
// slash-separated directory dir. A missing file adds nothing (nor does a
// .git that is a file, as in a linked worktree); one that cannot be read
// is an error, and the patterns read so far stay.
func (ig *Ignores) Load(fsys *safefs.Root, dir, rel string) error {
	data, err := fsys.ReadFile(rel, MaxIgnoreFileSize)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return fmt.Errorf("read ignore file: %w", err)
	}
	ig.Add(dir, data)
	return nil
}

// Add adds the patterns of one ignore file's content data, which apply
// beneath the slash-separated directory dir ("." or "" for the root).
func (ig *Ignores) Add(dir string, data []byte) {
	var domain []string
	if dir != "." && dir != "" {
		domain = strings.Split(dir, "/")
	}
	n := len(ig.rules)
	// Split, not a bufio.Scanner: one over-long line would end the scan
	// and drop the rules after it.
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := patternOf(line); ok {
			ig.rules = append(ig.rules, newRule(p, domain))
		}
	}
	if len(ig.rules) != n {
		ig.root = nil
		clear(ig.dirs)
	}
}

// patternOf turns one line of an ignore file into the pattern go-git's
// ParsePattern reads as git would, or reports that the line holds none
// (blank, or a comment).
func patternOf(line string) (string, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return "", false
	}
	line = trimTrailingSpaces(line)
	if line == "" || line == "!" {
		return "", false
	}
	// go-git matches a trailing "/**" against the directory itself; git
	// only against what lies inside it, which "/*" does in go-git (a path
	// below a matched name is matched too).
	switch {
	case strings.HasSuffix(line, "/**"):
		line = line[:len(line)-1]
	case strings.HasSuffix(line, "/**/"):
		line = line[:len(line)-2] + "/"
	}
	return negatedClasses(line), true
}

// trimTrailingSpaces drops the spaces that end line unless a backslash
// escapes them ("a\ " keeps one).
func trimTrailingSpaces(line string) string {
	end := len(line)
	for end > 0 && line[end-1] == ' ' {
		end--
	}
	if end == len(line) {
		return line
	}
	// Count the backslashes before the first trailing space: an odd
	// number escapes it.
	bs := 0
	for i := end - 1; i >= 0 && line[i] == '\\'; i-- {
		bs++
	}
	if bs%2 == 1 {
		end++
	}
	return line[:end]
}

// negatedClasses rewrites git's "[!...]" as "[^...]", the negated class of
// path.Match, which go-git uses.
func negatedClasses(p string) string {
	if !strings.Contains(p, "[!") {
		return p
	}
	b := []byte(p)
	for i := 0; i < len(b)-1; i++ {
		switch {
		case b[i] == '\\':
			i++ // escaped: not a class
		case b[i] == '[' && b[i+1] == '!':
			b[i+1] = '^'
		}
	}
	return string(b)
}

// Ignored reports whether the slash-separated path rel (a directory when
// isDir) is ignored: a directory on its path is, or the patterns exclude
// it.
func (ig *Ignores) Ignored(rel string, isDir bool) bool {
	if len(ig.rules) == 0 {
		return false
	}
	if isDir {
		return ig.dirState(rel).ignored
	}
	dir, name := ig.rootState(), rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		dir, name = ig.dirState(rel[:i]), rel[i+1:]
	}
	return dir.ignored || ig.excludes(dir, name, false)
}
