package golang

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"golang.org/x/mod/modfile"
)

// module is one go.mod below the root.
type module struct {
	dir  string // repo-relative, slash-separated; "." for the root
	path string // module path from the go.mod
}

// moduleTree is what Go's configuration says about the scanned tree: its
// modules and workspace, read by prepare from the go.mod and go.work files
// the scan handed to Go (Lang.config).
type moduleTree struct {
	root    string
	files   map[string]*frontend.DiskFile // Go files, by rel
	modules []module                      // one per go.mod
	work    []string                      // module dirs listed in the root go.work (rel), nil without go.work
	config  string                        // hash of every go.mod/go.work: a change forces a full re-index
	badDirs []string                      // directories the walk could not read (go list's ./... would fail there)
}

// prepare reads every go.mod and the root go.work, compares their hash
// with the stored one (MetaConfig: a change runs Go in full) and counts
// the Go files outside every module.
func (g *indexer) Prepare(ctx context.Context, j *frontend.Job) (frontend.Prepared, error) {
	t := &moduleTree{root: j.Root, files: j.Files, badDirs: j.BadDirs}
	if err := t.readConfigs(j.Read, j.Configs); err != nil {
		return frontend.Prepared{}, err
	}
	g.tree = t
	stored, err := j.Reader.Meta(ctx, MetaConfig)
	if err != nil {
		return frontend.Prepared{}, fmt.Errorf("read index config: %w", err)
	}
	p := frontend.Prepared{Full: stored != t.config, Meta: map[string]string{MetaConfig: t.config}}
	if p.Full && stored != "" {
		g.log.Info("go configuration changed: full re-index")
	}
	for rel := range t.files {
		if _, ok := t.moduleOf(dirOf(rel)); !ok && !frontend.IsTestdata(rel) {
			p.SyntaxOnly++
		}
	}
	return p, nil
}

// readConfigs reads and hashes every go.mod and the root go.work.
func (t *moduleTree) readConfigs(read func(rel string) ([]byte, error), configs []string) error {
	cfgHash := sha256.New()
	for _, rel := range configs {
		data, err := read(rel)
		if err != nil {
			return fmt.Errorf("read %s: %s: replace it with a regular file inside the repository", rel, frontend.Reason(err))
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
func (t *moduleTree) walkFailedIn(m module) bool {
	for _, d := range t.badDirs {
		if mm, ok := t.moduleOf(d); ok && mm.dir == m.dir {
			return true
		}
	}
	return false
}

// goDirs returns the directories holding Go files go list would load:
// outside testdata.
func (t *moduleTree) goDirs() map[string]bool {
	out := map[string]bool{}
	for rel := range t.files {
		if !frontend.IsTestdata(rel) {
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
func (t *moduleTree) testdataDirs() map[string]bool {
	out := map[string]bool{}
	checked := map[string]bool{}
	for rel := range t.files {
		dir := path.Dir(rel)
		if !frontend.IsTestdata(rel) || goIgnored(rel) || checked[dir] {
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
func (t *moduleTree) nestedModule(modDir, dir string) bool {
	for d := dir; d != modDir && d != "." && d != "/"; d = path.Dir(d) {
		if _, err := os.Lstat(filepath.Join(t.root, filepath.FromSlash(d), "go.mod")); err == nil {
			return true
		}
	}
	return false
}

// moduleOf returns the module whose directory holds rel (the deepest one),
// and false when rel lies outside every module.
func (t *moduleTree) moduleOf(relDir string) (module, bool) {
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
func (t *moduleTree) importPathGuess(relDir string) string {
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
