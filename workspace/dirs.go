package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
	"github.com/relayhq/relay/graphdb/embedded"
)

// StoreDir returns the embedded store directory: Options.Store when set,
// <root>/.relay otherwise. An ArangoDB store (arangodb://…) has no
// directory: StoreDir checks its URL and returns "".
func (w *Workspace) StoreDir() (string, error) {
	root, s := w.o.Root, w.o.Store
	switch {
	case s == "":
		dir := embedded.DefaultDir(root)
		return dir, w.checkNoLinks(dir)
	case arango.IsURL(s):
		return "", w.checkArangoURL()
	case strings.Contains(s, "://"):
		return "", configErr(fmt.Errorf("%s %q: unknown store scheme (want a directory for the embedded store, or arangodb://host:port/db)", w.o.Advice.store(), s))
	}
	dir, err := filepath.Abs(s)
	if err != nil {
		return "", err
	}
	if err := w.checkNoLinks(dir); err != nil {
		return "", err
	}
	return dir, checkOwnDir(w.o.Advice.store(), s, root, dir)
}

// relayNames are files and folders relay writes into its store and state
// directories; a directory holding one of them is relay's.
var relayNames = []string{
	"graph.db", "graph.seal", "write.lock", "adjacency.bin", "retrieve.idx", "retrieve.manifest", "retrieve.mac", "retrieve.stale",
	"feedback.jsonl", "runs", "history",
}

// checkOwnDir refuses a --store or --state directory (given as arg, dir
// absolute) that would mix relay's files with the repository's: the
// repository root itself, or an existing folder inside it that holds files
// of its own. The embedded store writes a .gitignore ("*") into its
// directory so that its files are never committed or searched, and the
// search index leaves the state directory out, so either would hide the
// sources there from git (new files never added), grep, glob and search.
// A directory outside the repository, a new or empty one, and one relay
// already writes are accepted.
func checkOwnDir(flag, arg, root, dir string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil // not there yet: relay creates it, and it is its own
	}
	rel, err := filepath.Rel(realRoot, realDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil
	}
	advice := "pass a directory of relay's own: a new or empty one, or one outside the repository (the default is <repo>/.relay)"
	if rel == "." {
		return configErr(fmt.Errorf("%s %s is the repository itself: relay would write its index among the sources and hide them from git, grep, glob and search; %s", flag, arg, advice))
	}
	entries, err := os.ReadDir(realDir)
	if err != nil {
		return nil // the open that follows says what is wrong with it
	}
	for _, e := range entries {
		if slices.Contains(relayNames, e.Name()) {
			return nil
		}
	}
	for _, e := range entries {
		if e.Name() != ".gitignore" {
			return configErr(fmt.Errorf("%s %s is a folder of the repository holding files of its own (%s): relay would hide them from git, grep, glob and search; %s", flag, arg, e.Name(), advice))
		}
	}
	return nil
}

// StateDir returns the directory for everything relay writes besides the
// graph: the search index (retrieve.idx, retrieve.manifest), review
// feedback (feedback.jsonl), transcripts (runs/), the REPL history and the
// indexer's caches (cache/: Go's type cache).
// It is Options.State when set; otherwise the embedded store's directory,
// so that a store directory of its own holds everything and the
// repository is never written; with an ArangoDB store, which has no local
// directory, <root>/.relay. Every writer of relay takes its directory from
// here.
func (w *Workspace) StateDir() (string, error) {
	root := w.o.Root
	dir, err := w.StoreDir()
	if err != nil {
		return "", err
	}
	switch {
	case w.o.State != "":
		if strings.Contains(w.o.State, "://") {
			return "", configErr(fmt.Errorf("%s %q: want a local directory", w.o.Advice.state(), w.o.State))
		}
		state, err := filepath.Abs(w.o.State)
		if err != nil {
			return "", err
		}
		if err := w.checkNoLinks(state); err != nil {
			return "", err
		}
		return state, checkOwnDir(w.o.Advice.state(), w.o.State, root, state)
	case dir == "":
		dir = embedded.DefaultDir(root)
		return dir, w.checkNoLinks(dir)
	}
	return dir, nil
}

// PrepareStateDir creates the state directory for a writer and returns
// it. A directory relay creates gets a .gitignore ("*"), like the embedded
// store's, so that what relay writes is never committed or searched; an
// existing directory (one the user chose) is left as it is.
func (w *Workspace) PrepareStateDir() (string, error) {
	dir, err := w.StateDir()
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return dir, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create relay's state directory: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("*\n"), 0o644); err != nil {
		return "", fmt.Errorf("create relay's state directory: %w", err)
	}
	return dir, nil
}

// Writable reports whether relay could create or change files in dir (or,
// when dir does not exist yet, create it in its nearest existing parent),
// without writing anything: readers use it to leave a read-only directory
// alone instead of failing on it.
func Writable(dir string) bool {
	for {
		err := accessWrite(dir)
		if !errors.Is(err, fs.ErrNotExist) {
			return err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

// OpenStore opens the graph store, for writing (an unusable graph is then
// rebuilt) or for reading. Read-only opens fail with graphdb.ErrNotFound
// when there is no index yet.
func (w *Workspace) OpenStore(ctx context.Context, write bool) (graphdb.Store, error) {
	dir, err := w.StoreDir()
	if err != nil {
		return nil, err
	}
	if arango.IsURL(w.o.Store) {
		return w.openArango(ctx, write)
	}
	key, trust, err := w.ownerOptions()
	if err != nil {
		return nil, err
	}
	st, err := embedded.Open(dir, embedded.Options{ReadOnly: !write, Logger: w.o.Log, Rebuild: write, Key: key, TrustForeign: trust})
	if errors.Is(err, embedded.ErrForeign) {
		if a := w.o.Advice.Trust; a != "" {
			return nil, fmt.Errorf("%w (to use a store shared on purpose, %s)", err, a)
		}
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// checkNoLinks refuses a store or state directory inside the repository
// at root that is a symbolic link or lies below one (a committed `.relay
// -> ..` would make relay write its graph and a .gitignore of "*" into
// the parent, hiding its files from git): relay writes only into
// directories of its own. Links above the repository, and in a directory
// outside it, are the user's choice and are followed.
func (w *Workspace) checkNoLinks(dir string) error {
	root := w.o.Root
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return nil
	}
	p := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		p = filepath.Join(p, part)
		fi, err := os.Lstat(p)
		if err != nil {
			return nil // not there yet: relay creates it as a directory
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			a := w.o.Advice
			fix := "remove the link (indexing recreates the store), or keep the store and state directories outside the repository"
			if a.Index != "" && a.Store != "" && a.State != "" {
				fix = fmt.Sprintf("remove the link (if it came with the repository, %s recreates the store), or pass %s/%s DIR outside the repository", a.Index, a.Store, a.State)
			}
			return fmt.Errorf("%s is a symbolic link (to %s) inside the repository: relay keeps its index only in a directory of its own, never behind a link, so nothing is written through it; %s: %w", p, target, fix, embedded.ErrLink)
		}
	}
	return nil
}

// PrivateDirs returns relay's store and state directories that lie inside
// the repository, repository-relative, for tools.Options.Private: a model
// must not read relay's own files there (transcripts of past runs among
// them), as it cannot under the default .relay.
func (w *Workspace) PrivateDirs() []string {
	root := w.o.Root
	var out []string
	for _, get := range []func() (string, error){w.StoreDir, w.StateDir} {
		dir, err := get()
		if err != nil || dir == "" {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}
