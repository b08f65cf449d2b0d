package index

import (
	"github.com/relayhq/relay/internal/repofs"
)

// ignores holds the .gitignore patterns the scan has read so far, for the
// tree-sitter languages (Python, TypeScript/JavaScript and the others of
// fileLangs). Go files are not filtered: the Go frontend reads what go list
// loads, and go list does not read .gitignore.
//
// The patterns and their semantics are internal/repofs's (the one ignore
// implementation relay has, also the search index's): .git/info/exclude
// and the root .gitignore first, then each nested .gitignore as the walk
// enters its directory; nothing inside an ignored directory is
// re-included.
type ignores struct{ rules repofs.Ignores }

// load reads the patterns of the ignore file rel (a .gitignore, or
// .git/info/exclude for dir "."), whose patterns apply beneath dir. A
// missing file adds nothing; one that cannot be read is reported to the
// caller.
func (ig *ignores) load(rf *repoFiles, dir, rel string) error {
	return ig.rules.Load(rf.root, dir, rel)
}

// ignored reports whether rel (a file, or a directory when isDir) is
// ignored: a directory on its path was, or the patterns match it.
func (ig *ignores) ignored(rel string, isDir bool) bool { return ig.rules.Ignored(rel, isDir) }
