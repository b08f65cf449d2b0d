package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/sync/errgroup"
)

// diskFile is one source file found under the root.
type diskFile struct {
	rel  string // repo-relative, slash-separated
	hash string
	size int64
	err  error // read error (the file vanished or is unreadable)
}

// module is one go.mod below the root.
type module struct {
	dir  string // repo-relative, slash-separated; "." for the root
	path string // module path from the go.mod
}

// tree is what a scan of the root found.
type tree struct {
	root    string
	files   map[string]*diskFile // Go files, by rel
	py      map[string]*diskFile // Python files, by rel
	modules []module             // sorted by dir, longest first is computed on demand
	work    []string             // module dirs listed in the root go.work (rel), nil without go.work
	config  string               // hash of every go.mod/go.work: a change forces a full re-index

	rf      *repoFiles   // opens files beneath root; closed by Run
	notes   []Diagnostic // what was not indexed and why (links outside, FIFOs, loops, long paths)
	overlay []string     // .go names go list must not read (not regular, or not inside the root)
	badDirs []string     // directories the walk could not read (go list's ./... would fail there)

	// langs holds the files of each of fileLangs (same index), by rel;
	// langConfigs the configuration files each reads (sorted rels).
	langs       []map[string]*diskFile
	langConfigs [][]string
}

// skipDir reports whether a directory is never entered: hidden directories
// (names starting with "."), vendored code, node_modules, installed Python
// packages, byte-code caches and relay's own store.
func skipDir(name string) bool {
	switch name {
	case "vendor", "node_modules", ".relay", "site-packages", "dist-packages", "__pycache__":
		return true
	}
	return strings.HasPrefix(name, ".")
}

// goIgnored reports whether the go command ignores rel because a directory
// on its path starts with "_" (Python packages often do, so the walk enters
// them for Python).
func goIgnored(rel string) bool {
	return strings.HasPrefix(rel, "_") || strings.Contains(rel, "/_")
}

// isTestdata reports whether rel lies under a testdata directory.
func isTestdata(rel string) bool {
	return rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
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

// scan walks root, hashing every .go and .py file (in parallel) and reading
// every go.mod and the root go.work. Files are opened only beneath the
// root and only when regular (internal/safefs); what cannot be indexed is noted
// in t.notes with its repository-relative path and the scan goes on.
// Files of the tree-sitter languages that the repository's .gitignore
// files (and .git/info/exclude) ignore are left out (gitignore.go).
func scan(ctx context.Context, root string, workers int) (*tree, error) {
	rf, err := openRepoFiles(root)
	if err != nil {
		return nil, err
	}
	t := &tree{root: root, rf: rf, files: map[string]*diskFile{}, py: map[string]*diskFile{},
		langs: make([]map[string]*diskFile, len(fileLangs)), langConfigs: make([][]string, len(fileLangs))}
	w := &walker{t: t, langFiles: make([][]string, len(fileLangs))}
	w.loadIgnores(".", ".git/info/exclude")
	w.loadIgnores(".", ".gitignore")
	if err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		return w.visit(ctx, p, d, err)
	}); err != nil {
		rf.close()
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	if err := t.readConfigs(w.configs); err != nil {
		rf.close()
		return nil, err
	}
	all := append(w.goFiles, w.pyFiles...)
	langOf := make([]int, len(all)) // index in fileLangs of each extra file
	for i, fs := range w.langFiles {
		for range fs {
			langOf = append(langOf, i)
		}
		all = append(all, fs...)
		sort.Strings(t.langConfigs[i])
	}
	if len(t.modules) == 0 && t.work == nil && len(all) == 0 {
		rf.close()
		return nil, fmt.Errorf("%w: no source file of a language relay indexes under %s (%s)", ErrNotGo, root, languageList())
	}
	// Hash the files in parallel; the order of t.files does not matter.
	dfs := make([]*diskFile, len(all))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, rel := range all {
		g.Go(func() error {
			if gctx.Err() != nil {
				return gctx.Err()
			}
			dfs[i] = t.hashFile(rel)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		rf.close()
		return nil, err
	}
	for i := range t.langs {
		t.langs[i] = map[string]*diskFile{}
	}
	for i, df := range dfs {
		switch {
		case i < len(w.goFiles):
			t.files[df.rel] = df
		case i < len(w.goFiles)+len(w.pyFiles):
			t.py[df.rel] = df
		default:
			t.langs[langOf[i]][df.rel] = df
		}
	}
	return t, nil
}

// walker collects what scan's walk finds.
type walker struct {
	t                         *tree
	goFiles, pyFiles, configs []string
	langFiles                 [][]string // per fileLangs
	ig                        ignores    // .gitignore patterns (tree-sitter languages only)
}

// loadIgnores reads the ignore file rel whose patterns apply beneath dir;
// one that cannot be read is noted and the scan goes on without it.
func (w *walker) loadIgnores(dir, rel string) {
	if err := w.ig.load(w.t.rf, dir, rel); err != nil {
		w.t.note(rel, err)
	}
}

// visit is the filepath.WalkDir callback of scan.
func (w *walker) visit(ctx context.Context, p string, d fs.DirEntry, err error) error {
	t := w.t
	if p == t.root {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	rel, rerr := filepath.Rel(t.root, p)
	if rerr != nil {
		return rerr
	}
	rel = filepath.ToSlash(rel)
	if err != nil {
		// An unreadable directory or entry (permissions, a path too long
		// to open): note it and walk on.
		t.note(rel, err)
		if d == nil || d.IsDir() {
			t.badDirs = append(t.badDirs, rel)
		}
		return nil
	}
	name := d.Name()
	if d.IsDir() {
		if skipDir(name) {
			return filepath.SkipDir
		}
		if _, err := os.Lstat(filepath.Join(p, "pyvenv.cfg")); err == nil {
			return filepath.SkipDir // a Python virtual environment
		}
		// An ignored directory is still walked for go list's files.
		if !w.ig.ignored(rel, true) {
			w.loadIgnores(rel, rel+"/.gitignore")
		}
		return nil
	}
	isGo := strings.HasSuffix(name, ".go") && !goIgnored(path.Dir(rel))
	isPy := strings.HasSuffix(name, ".py")
	goConfig := name == "go.mod" || name == "go.work"
	if !isGo && !goConfig && w.ig.ignored(rel, false) {
		return nil // .gitignore'd: not indexed, and not worth a note
	}
	if !d.Type().IsRegular() && !goConfig {
		w.irregular(rel, d, isGo, isPy)
		return nil
	}
	if i := fileLangOf(rel, name); i >= 0 {
		w.langFiles[i] = append(w.langFiles[i], rel)
		return nil
	}
	for i, l := range fileLangs {
		if l.config(rel, name) {
			t.langConfigs[i] = append(t.langConfigs[i], rel)
		}
	}
	switch {
	case isPy:
		w.pyFiles = append(w.pyFiles, rel)
	case goIgnored(path.Dir(rel)):
	case name == "go.mod" && !isTestdata(rel):
		w.configs = append(w.configs, rel)
	case rel == "go.work":
		w.configs = append(w.configs, rel)
	case isGo:
		w.goFiles = append(w.goFiles, rel)
	}
	return nil
}

// irregular handles an entry that is not a regular file: a symbolic link,
// a FIFO, a device or a socket. A link to a regular .go file inside the
// repository is left to go list, which reads it (the Go frontend opens it
// beneath the root); .py links and links to directories are not followed
// (as filepath.WalkDir does not). Everything else that would be source is
// noted, and a .go name is hidden from go list (tree.overlay), which would
// otherwise block on a FIFO or read a file outside the repository.
func (w *walker) irregular(rel string, d fs.DirEntry, isGo, isPy bool) {
	t := w.t
	if skipDir(d.Name()) {
		return // never walked, whatever it is
	}
	if d.Type()&fs.ModeSymlink == 0 {
		if isGo || isPy {
			t.note(rel, fmt.Errorf("%w (%s)", errNotRegular, fileType(d.Type())))
			if isGo {
				t.overlay = append(t.overlay, rel)
			}
		}
		return
	}
	fi, err := t.rf.stat(rel)
	switch {
	case err != nil:
		// Outside the repository, a loop, or broken: note it when it
		// could hold source (a .go or .py name, or a directory).
		if isGo || isPy || errors.Is(err, errOutside) && isDirOutside(filepath.Join(t.root, filepath.FromSlash(rel))) || !errors.Is(err, errOutside) && !errors.Is(err, fs.ErrNotExist) {
			t.note(rel, err)
		}
		if isGo {
			t.overlay = append(t.overlay, rel)
		}
	case isGo && !fi.Mode().IsRegular():
		t.note(rel, fmt.Errorf("%w (links to %s)", errNotRegular, fileType(fi.Mode())))
		t.overlay = append(t.overlay, rel)
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
	t.notes = append(t.notes, Diagnostic{Pos: shortRel(rel), Msg: reason(err)})
}

// readConfigs reads and hashes every go.mod and the root go.work.
func (t *tree) readConfigs(configs []string) error {
	sort.Strings(configs)
	cfgHash := sha256.New()
	for _, rel := range configs {
		data, err := t.rf.read(rel)
		if err != nil {
			return fmt.Errorf("read %s: %s: replace it with a regular file inside the repository", rel, reason(err))
		}
		fmt.Fprintf(cfgHash, "%s\x00%x\x00", rel, sha256.Sum256(data))
		if rel == "go.work" {
			wf, err := modfile.ParseWork(rel, data, nil)
			if err != nil {
				return fmt.Errorf("parse go.work: %w (fix the file or remove it)", err)
			}
			t.work = []string{}
			for _, u := range wf.Use {
				t.work = append(t.work, path.Clean(filepath.ToSlash(u.Path)))
			}
			continue
		}
		mp := modfile.ModulePath(data)
		if mp == "" && rel == "go.mod" {
			return fmt.Errorf("%s has no module line: add `module <path>`", rel)
		}
		if mp == "" {
			// A nested module without a module line: go list refuses it,
			// which is its error (goList); its files are named by their
			// directory.
			mp = path.Dir(rel)
		}
		t.modules = append(t.modules, module{dir: path.Dir(rel), path: mp})
	}
	t.config = hex.EncodeToString(cfgHash.Sum(nil))
	return nil
}

// walkFailedIn reports whether the scan could not read a directory of
// module m (one that no nested module claims).
func (t *tree) walkFailedIn(m module) bool {
	for _, d := range t.badDirs {
		if mm, ok := t.moduleOf(d); ok && mm.dir == m.dir {
			return true
		}
	}
	return false
}

// goDirs returns the directories holding Go files go list would load:
// outside testdata.
func (t *tree) goDirs() map[string]bool {
	out := map[string]bool{}
	for rel := range t.files {
		if !isTestdata(rel) {
			out[path.Dir(rel)] = true
		}
	}
	return out
}

// testdataDirs returns the directories under testdata holding Go files
// that belong to a listed module: go list loads them when named (only
// its wildcards skip testdata), and those that type-check are indexed as
// packages. A directory inside a nested module of its own (a go.mod
// under testdata) or ignored by the go command ("_x") is left out.
func (t *tree) testdataDirs() map[string]bool {
	out := map[string]bool{}
	checked := map[string]bool{}
	for rel := range t.files {
		dir := path.Dir(rel)
		if !isTestdata(rel) || goIgnored(rel) || checked[dir] {
			continue
		}
		checked[dir] = true
		m, ok := t.moduleOf(dir)
		if !ok || t.nestedModule(m.dir, dir) {
			continue
		}
		out[dir] = true
	}
	return out
}

// nestedModule reports whether a go.mod lies in dir or a parent of it
// below modDir: the directory belongs to a module the scan does not list.
func (t *tree) nestedModule(modDir, dir string) bool {
	for d := dir; d != modDir && d != "." && d != "/"; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(d), "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// hasGo reports whether the tree holds Go code for the Go frontend.
func (t *tree) hasGo() bool {
	return len(t.files) > 0 || len(t.modules) > 0 || t.work != nil
}

func (t *tree) hashFile(rel string) *diskFile {
	data, err := t.rf.read(rel)
	if err != nil {
		return &diskFile{rel: rel, err: err}
	}
	return &diskFile{rel: rel, hash: contentHash(data), size: int64(len(data))}
}

// contentHash is the FileRecord.Hash of a file's bytes.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// moduleOf returns the module whose directory holds rel (the deepest one),
// and false when rel lies outside every module.
func (t *tree) moduleOf(relDir string) (module, bool) {
	best, found := module{}, false
	for _, m := range t.modules {
		if m.dir == "." || relDir == m.dir || strings.HasPrefix(relDir, m.dir+"/") {
			if !found || len(m.dir) > len(best.dir) || best.dir == "." {
				best, found = m, true
			}
		}
	}
	return best, found
}

// importPathGuess names a directory that go/packages does not load (testdata,
// directories outside any module): the module path joined with the relative
// directory, or the directory itself.
func (t *tree) importPathGuess(relDir string) string {
	m, ok := t.moduleOf(relDir)
	if !ok {
		return relDir
	}
	if m.dir == "." {
		if relDir == "." {
			return m.path
		}
		return m.path + "/" + relDir
	}
	if relDir == m.dir {
		return m.path
	}
	return m.path + strings.TrimPrefix(relDir, m.dir)
}

// defaultWorkers is GOMAXPROCS.
func defaultWorkers(n int) int {
	if n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// firstLine returns the first line of s, trimmed.
func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// countLines counts the lines of data (a last line without newline counts).
func countLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// languageList names the languages relay indexes, for messages.
func languageList() string {
	names := []string{"Go: go.mod, go.work or .go files", "Python: .py files"}
	for _, l := range fileLangs {
		names = append(names, l.title+": "+l.files)
	}
	return strings.Join(names, "; ")
}
