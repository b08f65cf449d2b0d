package index

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"path"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// ignores holds the .gitignore patterns the scan has read so far, for the
// tree-sitter languages (Python, TypeScript/JavaScript and the others of
// fileLangs). Go files are not filtered: the Go frontend reads what go list
// loads, and go list does not read .gitignore.
//
// DESIGN: patterns come from .git/info/exclude and the root .gitignore,
// then from each nested .gitignore as the walk enters its directory;
// go-git's gitignore package gives git's semantics for one pattern
// (anchoring, "**", directory-only patterns, negation, later and deeper
// patterns winning). What git does across directories is kept here: a
// file inside an ignored directory stays ignored whatever a later "!"
// pattern says, because git never looks inside an excluded directory. The
// user's global excludes file is not read: it is not part of the
// repository, and the index must not depend on who runs it.
type ignores struct {
	patterns []gitignore.Pattern
	matcher  gitignore.Matcher
	dirs     map[string]bool // ignored directories (rel) the walk entered
}

// load reads the patterns of the ignore file rel (a .gitignore, or
// .git/info/exclude for dir "."), whose patterns apply beneath dir. A
// missing file adds nothing; one that cannot be read is reported to the
// caller.
func (ig *ignores) load(rf *repoFiles, dir, rel string) error {
	data, err := rf.read(rel)
	if err != nil {
		// ENOTDIR: .git is a file in a linked worktree.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil
		}
		return err
	}
	var domain []string
	if dir != "." {
		domain = strings.Split(dir, "/")
	}
	n := len(ig.patterns)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		ig.patterns = append(ig.patterns, gitignore.ParsePattern(line, domain))
	}
	if len(ig.patterns) != n {
		ig.matcher = gitignore.NewMatcher(ig.patterns)
	}
	return sc.Err()
}

// ignored reports whether rel (a file, or a directory when isDir) is
// ignored: a directory on its path was, or the patterns match it. An
// ignored directory is remembered so that what lies inside stays ignored.
func (ig *ignores) ignored(rel string, isDir bool) bool {
	if ig.matcher == nil {
		return false
	}
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if ig.dirs[d] {
			if isDir {
				ig.dirs[rel] = true
			}
			return true
		}
	}
	if !ig.matcher.Match(strings.Split(rel, "/"), isDir) {
		return false
	}
	if isDir {
		if ig.dirs == nil {
			ig.dirs = map[string]bool{}
		}
		ig.dirs[rel] = true
	}
	return true
}
