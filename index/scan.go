package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/internal/repofs"
	"golang.org/x/sync/errgroup"
)

// tree is what a scan of the root found.
type tree struct {
	root string

	rf      *repoFiles   // opens files beneath root; closed by Run
	notes   []Diagnostic // what was not indexed and why (links outside, FIFOs, loops, long paths)
	badDirs []string     // directories the walk could not read (go list's ./... would fail there)

	// langs holds the files of each of fileLangs (same index), by rel;
	// langConfigs the configuration files each reads (sorted rels);
	// irregular the names each would claim that are not regular files
	// or lead outside the repository (job.irregular).
	langs       []map[string]*frontend.DiskFile
	langConfigs [][]string
	irregular   [][]string

	// stamps is the stamps table of this scan (MetaStamps), start
	// included; hashed counts the files read to hash them (the others'
	// hashes came from the previous table); settled counts the files
	// the previous table could not vouch for that a table of this scan
	// would (their modification lies racyWindow before it), which can
	// make the table worth writing even when nothing changed
	// (worthWriting).
	stamps  *stamps
	hashed  int
	settled int
}

// checkRoot validates the root directory.
func checkRoot(root string) (string, error) {
	if root == "" {
		return "", fmt.Errorf("no repository root given: set Options.Root to a directory")
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", fmt.Errorf("repository root %q: %w", root, err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("repository root %s does not exist: pass an existing directory", abs)
		}
		return "", fmt.Errorf("repository root %s: %w", abs, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("repository root %s is not a directory: pass the directory that holds go.mod", abs)
	}
	return abs, nil
}

// scan walks root (internal/repofs: the walk, ignore rules and skipped
// directories the search index shares, with hidden directories skipped
// too) and hands each file to the language that claims it
// (fileLang.source, fileLang.config), hashing the source files in
// parallel. Files are opened only beneath the root and only when regular
// (internal/safefs); what cannot be indexed is noted in t.notes with its
// repository-relative path and the scan goes on. Files that the
// repository's .gitignore files (and .git/info/exclude) ignore are left
// out, except those of a language whose own tool reads them
// (fileLang.unfiltered: Go), which is why ignored directories are still
// walked. A file whose stat matches its stamp in prev (nil: none) is not
// read: its hash is the stamp's (stamps.go).
func scan(ctx context.Context, root string, workers int, prev *stamps) (*tree, error) {
	rf, err := openRepoFiles(root)
	if err != nil {
		return nil, err
	}
	n := len(fileLangs)
	t := &tree{root: root, rf: rf, langs: make([]map[string]*frontend.DiskFile, n), langConfigs: make([][]string, n), irregular: make([][]string, n)}
	t.stamps = &stamps{start: time.Now().UnixNano()}
	w := &walker{t: t, langFiles: make([][]fileEntry, n)}
	if err := repofs.Walk(ctx, root, repofs.Options{SkipHidden: true, VisitIgnored: true}, w.visit); err != nil {
		rf.close()
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	yieldFiles(fileLangs, w.langFiles)
	var all []fileEntry
	var langOf []int // index in fileLangs of each file of all
	present := false
	for i, fs := range w.langFiles {
		for range fs {
			langOf = append(langOf, i)
		}
		all = append(all, fs...)
		sort.Strings(t.langConfigs[i])
		present = present || len(fs) > 0 || fileLangs[i].ConfigPresent && len(t.langConfigs[i]) > 0
	}
	if !present {
		rf.close()
		return nil, fmt.Errorf("%w under %s (%s)", ErrNoSource, root, languageList())
	}
	dfs, err := t.hashAll(ctx, all, workers, prev)
	if err != nil {
		rf.close()
		return nil, err
	}
	for i := range t.langs {
		t.langs[i] = map[string]*frontend.DiskFile{}
	}
	for i, df := range dfs {
		t.langs[langOf[i]][df.Rel] = df
	}
	return t, nil
}

// hashAll stats the files in parallel and hashes those whose stamp in
// prev does not vouch for them; it fills t.stamps, t.hashed and
// t.settled.
func (t *tree) hashAll(ctx context.Context, all []fileEntry, workers int, prev *stamps) ([]*frontend.DiskFile, error) {
	dfs := make([]*frontend.DiskFile, len(all))
	sts := make([]stamp, len(all))
	read := make([]bool, len(all))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, fe := range all {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			st, ok := stampOf(fe.d) // before the read: a later write shows in the next stat
			if h, trusted := prev.trusted(fe.rel, st); ok && trusted {
				st.hash = h
				dfs[i], sts[i] = &frontend.DiskFile{Rel: fe.rel, Hash: h, Size: st.size}, st
				return nil
			}
			dfs[i], read[i] = t.hashFile(fe.rel), true
			if ok && dfs[i].Err == nil {
				st.hash = dfs[i].Hash
				sts[i] = st
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	t.stamps.files = make(map[string]stamp, len(all))
	cutoff := t.stamps.start - int64(racyWindow)
	for i, fe := range all {
		if read[i] {
			t.hashed++
		}
		if sts[i].hash == "" {
			continue // not stat'ed or not read: no stamp
		}
		t.stamps.files[fe.rel] = sts[i]
		if read[i] && sts[i].mod < cutoff {
			t.settled++
		}
	}
	return dfs, nil
}

// fileEntry is a source file the walk found.
type fileEntry struct {
	rel string
	d   fs.DirEntry
}

// walker collects what scan's walk finds.
type walker struct {
	t         *tree
	langFiles [][]fileEntry // per fileLangs
}

// visit is the repofs.Walk visitor of scan.
func (w *walker) visit(e repofs.Entry) error {
	t := w.t
	if e.Err != nil {
		// An unreadable directory (permissions, a path too long to open)
		// or ignore file: note it and walk on (without the file's rules).
		t.note(e.Rel, e.Err)
		if e.D != nil && e.D.IsDir() {
			t.badDirs = append(t.badDirs, e.Rel)
		}
		return nil
	}
	if e.D.IsDir() {
		return nil // an ignored directory too: go list reads what it holds
	}
	rel, name := e.Rel, e.D.Name()
	src := fileLangOf(rel, name)
	var configOf []int // the languages that read rel as configuration
	cfgUnfiltered := false
	if src < 0 {
		for i, l := range fileLangs {
			if l.Config(rel, name) {
				configOf = append(configOf, i)
				cfgUnfiltered = cfgUnfiltered || l.Unfiltered
			}
		}
	}
	if !(src >= 0 && fileLangs[src].Unfiltered) && !cfgUnfiltered && e.Ignored() {
		return nil // .gitignore'd: not indexed, and not worth a note
	}
	if !e.D.Type().IsRegular() && !cfgUnfiltered {
		w.irregular(rel, e.D, src)
		return nil
	}
	if src >= 0 {
		w.langFiles[src] = append(w.langFiles[src], fileEntry{rel, e.D})
		return nil
	}
	for _, i := range configOf {
		t.langConfigs[i] = append(t.langConfigs[i], rel)
	}
	return nil
}

// irregular handles an entry that is not a regular file: a symbolic link,
// a FIFO, a device or a socket; src is the language that claims its name
// (-1: none). A link to a regular file inside the repository is not
// followed (as filepath.WalkDir does not), but left to tools that read it
// (go list; the Go frontend opens it beneath the root). Everything else
// that would be source is noted and listed for its language
// (tree.irregular: Go hides it from go list, which would otherwise block
// on a FIFO or read a file outside the repository).
func (w *walker) irregular(rel string, d fs.DirEntry, src int) {
	t := w.t
	isSrc := src >= 0
	if d.Type()&fs.ModeSymlink == 0 {
		if isSrc {
			t.note(rel, fmt.Errorf("%w (%s)", errNotRegular, fileType(d.Type())))
			t.irregular[src] = append(t.irregular[src], rel)
		}
		return
	}
	fi, err := t.rf.stat(rel)
	switch {
	case err != nil:
		// Outside the repository, a loop, or broken: note it when it
		// could hold source (a source name, or a directory).
		if isSrc || errors.Is(err, errOutside) && isDirOutside(filepath.Join(t.root, filepath.FromSlash(rel))) || !errors.Is(err, errOutside) && !errors.Is(err, fs.ErrNotExist) {
			t.note(rel, err)
		}
		if isSrc {
			t.irregular[src] = append(t.irregular[src], rel)
		}
	case isSrc && !fi.Mode().IsRegular():
		t.note(rel, fmt.Errorf("%w (links to %s)", errNotRegular, fileType(fi.Mode())))
		t.irregular[src] = append(t.irregular[src], rel)
	}
}

// isDirOutside reports whether a link that leads outside the repository
// leads to a directory (only a stat: nothing there is read).
func isDirOutside(abs string) bool {
	fi, err := os.Stat(abs)
	return err == nil && fi.IsDir()
}

// note records that rel was not indexed and why.
func (t *tree) note(rel string, err error) {
	t.notes = append(t.notes, Diagnostic{Pos: frontend.ShortRel(rel), Msg: frontend.Reason(err)})
}

func (t *tree) hashFile(rel string) *frontend.DiskFile {
	data, err := t.rf.read(rel)
	if err != nil {
		return &frontend.DiskFile{Rel: rel, Err: err}
	}
	return &frontend.DiskFile{Rel: rel, Hash: frontend.ContentHash(data), Size: int64(len(data))}
}

// defaultWorkers is GOMAXPROCS.
func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// languageList names the languages relay indexes, for messages.
func languageList() string {
	var names []string
	for _, l := range fileLangs {
		names = append(names, l.Title+": "+l.Files)
	}
	return strings.Join(names, "; ")
}

// yieldFiles moves the files a language yields (frontend.Lang.Yields) to
// the language it yields them to, when that one has files of its own.
func yieldFiles(langs []frontend.Lang, langFiles [][]fileEntry) {
	for i, l := range langs {
		if l.Yields == nil {
			continue
		}
		for k, to := range langs {
			if to.Name != l.YieldsTo || len(langFiles[k]) == 0 {
				continue
			}
			var keep []fileEntry
			for _, fe := range langFiles[i] {
				if l.Yields(fe.rel) {
					langFiles[k] = append(langFiles[k], fe)
				} else {
					keep = append(keep, fe)
				}
			}
			langFiles[i] = keep
		}
	}
}
