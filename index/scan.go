package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
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

// scan walks root, hashing every .go file (in parallel) and reading every
// go.mod and the root go.work.
func scan(ctx context.Context, root string, workers int) (*tree, error) {
	t := &tree{root: root, files: map[string]*diskFile{}, py: map[string]*diskFile{}}
	var goFiles, pyFiles []string
	var configs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable subdirectory: skip it
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			if p != root {
				if _, err := os.Lstat(filepath.Join(p, "pyvenv.cfg")); err == nil {
					return filepath.SkipDir // a Python virtual environment
				}
			}
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		switch {
		case strings.HasSuffix(d.Name(), ".py") && d.Type().IsRegular():
			pyFiles = append(pyFiles, rel)
			return nil
		case goIgnored(path.Dir(rel)):
			return nil
		case d.Name() == "go.mod" && !isTestdata(rel):
			configs = append(configs, rel)
		case rel == "go.work":
			configs = append(configs, rel)
		case strings.HasSuffix(d.Name(), ".go") && d.Type().IsRegular():
			goFiles = append(goFiles, rel)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", root, err)
	}
	sort.Strings(configs)
	cfgHash := sha256.New()
	for _, rel := range configs {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", rel, err)
		}
		fmt.Fprintf(cfgHash, "%s\x00%x\x00", rel, sha256.Sum256(data))
		if rel == "go.work" {
			wf, err := modfile.ParseWork(rel, data, nil)
			if err != nil {
				return nil, fmt.Errorf("parse go.work: %w (fix the file or remove it)", err)
			}
			t.work = []string{}
			for _, u := range wf.Use {
				t.work = append(t.work, path.Clean(filepath.ToSlash(u.Path)))
			}
			continue
		}
		mp := modfile.ModulePath(data)
		if mp == "" {
			return nil, fmt.Errorf("%s has no module line: add `module <path>`", rel)
		}
		t.modules = append(t.modules, module{dir: path.Dir(rel), path: mp})
	}
	t.config = hex.EncodeToString(cfgHash.Sum(nil))
	if len(t.modules) == 0 && t.work == nil && len(goFiles) == 0 && len(pyFiles) == 0 {
		return nil, fmt.Errorf("%w: no go.mod, go.work, .go or .py files under %s", ErrNotGo, root)
	}
	// Hash the files in parallel; the order of t.files does not matter.
	all := append(goFiles, pyFiles...)
	dfs := make([]*diskFile, len(all))
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(workers)
	for i, rel := range all {
		g.Go(func() error {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dfs[i] = hashFile(root, rel)
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	for i, df := range dfs {
		if i < len(goFiles) {
			t.files[df.rel] = df
		} else {
			t.py[df.rel] = df
		}
	}
	return t, nil
}

// hasGo reports whether the tree holds Go code for the Go frontend.
func (t *tree) hasGo() bool {
	return len(t.files) > 0 || len(t.modules) > 0 || t.work != nil
}

func hashFile(root, rel string) *diskFile {
	data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
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
