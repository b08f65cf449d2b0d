package repofs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/relayhq/relay/internal/safefs"
)

// SkipDirs are the directories Walk never enters nor hands over, by name
// (see the package doc for why each is there).
var SkipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".relay": true, ".idea": true, ".vscode": true,
	"vendor": true, "node_modules": true, "site-packages": true, "dist-packages": true,
	".venv": true, "__pycache__": true,
}

// Options changes what Walk leaves out.
type Options struct {
	// StateDir is relay's state directory (it may be anywhere, e.g.
	// --store ./idx); it is skipped when it lies strictly inside the root:
	// relay's own files are not the repository's.
	StateDir string
	// SkipHidden skips every directory whose name starts with "." too
	// (and every entry so named that is neither a directory nor a
	// regular file).
	SkipHidden bool
	// VisitIgnored enters ignored directories and hands over ignored
	// entries too (Entry.Ignored says which), for a caller that reads
	// some files whatever the ignore files say (the go command does not
	// read them). Ignore files inside an ignored directory are not read.
	VisitIgnored bool
}

// Entry is one thing Walk hands to its visitor.
type Entry struct {
	// Rel is the slash-separated path relative to the root.
	Rel string
	// D describes the entry as the directory listing did (a symbolic
	// link is a link, never what it leads to); nil when Err is set and
	// nothing is known about it (an ignore file that could not be read:
	// a directory that could not be read has its D).
	D fs.DirEntry
	// Err is set for what could not be read: a directory (a path too
	// long to open, permissions) or an ignore file. The walk goes on
	// unless the visitor returns an error.
	Err error

	ignored bool     // a directory's answer, matched by the walk
	ig      *Ignores // a file's rules, matched when asked (Options.VisitIgnored)
}

// Ignored reports whether the ignore rules exclude the entry (only ever
// true with Options.VisitIgnored). A file is matched when this is asked,
// not before, so that a visitor that reads a file whatever the rules say
// pays nothing for them; ask from the visitor (the answer does not change
// as the walk goes on, but the walk's rules are not safe for concurrent
// use).
//
// DESIGN: the answer is stable because the rules that can match a file
// are those of the ignore files in the directories above it, all read
// before the walk reaches it; later ignore files apply beneath other
// directories.
func (e Entry) Ignored() bool {
	if e.ig != nil {
		return e.ig.Ignored(e.Rel, false)
	}
	return e.ignored
}

// Walk visits the entries beneath root in lexical order, the root itself
// left out, with the repository's ignore rules (Ignores), SkipDirs and
// opts applied; symbolic links are handed over, never followed. Ignore
// files are read beneath root only. visit decides what to do with each
// entry: returning fs.SkipDir for a directory skips it, fs.SkipAll ends
// the walk, any other error ends it and is returned. Walk stops when ctx
// is done.
func Walk(ctx context.Context, root string, opts Options, visit func(Entry) error) error {
	fsys, err := safefs.OpenRoot(root)
	if err != nil {
		return fmt.Errorf("open repository root: %w", err)
	}
	defer fsys.Close()
	w := &walker{fsys: fsys, opts: opts, visit: visit, stateRel: insideRel(root, opts.StateDir)}
	if err := w.load(".", ".git/info/exclude"); err != nil {
		return err
	}
	if err := w.load(".", ".gitignore"); err != nil {
		return err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return nil // a link to the root is not followed, as filepath.WalkDir does not
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	err = w.children(ctx, root, "", entries)
	if err == fs.SkipAll || err == fs.SkipDir {
		return nil
	}
	return err
}

// DESIGN: the walk is filepath.WalkDir's (lexical order, a directory
// handed over before what it holds, fs.SkipDir and fs.SkipAll as there),
// except that a directory is listed before it is handed over: its listing
// tells whether it holds a .gitignore or a pyvenv.cfg, which WalkDir's
// order left to a look-up per directory, each an open beneath the root
// through every directory above it (a third of the scan of a deep Java
// tree). A directory that cannot be listed is looked up as before.

// children walks the entries of the directory p (rel beneath the root,
// "" for the root); an fs.SkipDir from a file's visit skips the rest of
// the directory, as in filepath.WalkDir.
func (w *walker) children(ctx context.Context, p, rel string, entries []fs.DirEntry) error {
	for _, d := range entries {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		crel := d.Name()
		if rel != "" {
			crel = rel + "/" + crel
		}
		cp := filepath.Join(p, d.Name())
		var err error
		if d.IsDir() {
			err = w.dir(ctx, cp, crel, d)
		} else {
			err = w.file(crel, d)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// walker is the state of one Walk.
type walker struct {
	fsys     *safefs.Root
	opts     Options
	visit    func(Entry) error
	stateRel string // opts.StateDir relative to the root, "" when outside
	ig       Ignores
}

// load reads one ignore file; one that cannot be read is handed to the
// visitor, unless its path is too long to open: then so is its
// directory's, which the walk hands over.
func (w *walker) load(dir, rel string) error {
	if err := w.ig.Load(w.fsys, dir, rel); err != nil {
		if errors.Is(err, syscall.ENAMETOOLONG) {
			return nil
		}
		return w.visit(Entry{Rel: rel, Err: err})
	}
	return nil
}

// skipName reports whether an entry of this name is never walked.
func (w *walker) skipName(name string) bool {
	return SkipDirs[name] || w.opts.SkipHidden && strings.HasPrefix(name, ".")
}

// dir handles a directory entry: it lists it, hands it over, reads its
// .gitignore and walks what it holds.
func (w *walker) dir(ctx context.Context, p, rel string, d fs.DirEntry) error {
	if w.skipName(d.Name()) || rel == w.stateRel {
		return nil
	}
	ignored := w.ig.Ignored(rel, true)
	if ignored && !w.opts.VisitIgnored {
		return nil
	}
	entries, rerr := os.ReadDir(p)
	if w.holds(p, entries, rerr, "pyvenv.cfg") {
		return nil // a Python virtual environment
	}
	if err := w.visit(Entry{Rel: rel, D: d, ignored: ignored}); err != nil {
		return skipped(err)
	}
	// git never reads inside an excluded directory.
	if !ignored && w.holds(p, entries, rerr, ".gitignore") {
		if err := w.load(rel, rel+"/.gitignore"); err != nil {
			return skipped(err)
		}
	}
	if rerr != nil {
		if err := w.visit(Entry{Rel: rel, D: d, Err: rerr}); err != nil {
			return skipped(err)
		}
	}
	return skipped(w.children(ctx, p, rel, entries))
}

// holds reports whether the directory p, listed as entries (rerr: the
// listing failed, perhaps part way), holds an entry named name.
func (w *walker) holds(p string, entries []fs.DirEntry, rerr error, name string) bool {
	if rerr != nil {
		_, err := os.Lstat(filepath.Join(p, name))
		return err == nil
	}
	_, found := slices.BinarySearchFunc(entries, name, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	return found
}

// skipped turns a directory's fs.SkipDir into nil: it skipped that
// directory, not the rest of its parent.
func skipped(err error) error {
	if err == fs.SkipDir {
		return nil
	}
	return err
}

// file handles an entry that is not a directory.
func (w *walker) file(rel string, d fs.DirEntry) error {
	if !d.Type().IsRegular() && w.skipName(d.Name()) {
		return nil // a link or a FIFO in a skipped directory's place
	}
	if w.opts.VisitIgnored {
		return w.visit(Entry{Rel: rel, D: d, ig: &w.ig})
	}
	if w.ig.Ignored(rel, false) {
		return nil
	}
	return w.visit(Entry{Rel: rel, D: d})
}

// insideRel returns dir relative to root (slash-separated) when dir lies
// strictly inside root, and "" otherwise.
func insideRel(root, dir string) string {
	if dir == "" {
		return ""
	}
	ar, err1 := filepath.Abs(root)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(ar, ad)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}
