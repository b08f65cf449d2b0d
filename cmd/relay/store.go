package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
	"github.com/relayhq/relay/graphdb/embedded"
)

// storeDir returns the embedded store directory for root: --store/RELAY_STORE
// when set, <root>/.relay otherwise. An ArangoDB store (arangodb://…) has no
// directory: storeDir checks its URL and returns "".
func (g *globals) storeDir(root string) (string, error) {
	s := g.store
	switch {
	case s == "":
		return embedded.DefaultDir(root), nil
	case arango.IsURL(s):
		return "", g.checkArangoURL()
	case strings.Contains(s, "://"):
		return "", usageErr(fmt.Errorf("--store %q: unknown store scheme (want a directory for the embedded store, or arangodb://host:port/db)", s))
	}
	return filepath.Abs(s)
}

// stateDir returns the directory for everything relay writes besides the
// graph: the search index (retrieve.idx, retrieve.manifest), review
// feedback (feedback.jsonl), transcripts (runs/) and the REPL history.
// It is --state/RELAY_STATE when set; otherwise the embedded store's
// directory, so that --store DIR holds everything and the repository is
// never written; with an ArangoDB store, which has no local directory,
// <root>/.relay. Every writer in this package takes its directory from
// here.
func (g *globals) stateDir(root string) (string, error) {
	dir, err := g.storeDir(root)
	if err != nil {
		return "", err
	}
	switch {
	case g.state != "":
		if strings.Contains(g.state, "://") {
			return "", usageErr(fmt.Errorf("--state %q: want a local directory", g.state))
		}
		return filepath.Abs(g.state)
	case dir == "":
		return embedded.DefaultDir(root), nil
	}
	return dir, nil
}

// prepareStateDir creates the state directory of root for a writer and
// returns it. A directory relay creates gets a .gitignore ("*"), like the
// embedded store's, so that what relay writes is never committed or
// searched; an existing directory (one the user chose) is left as it is.
func (g *globals) prepareStateDir(root string) (string, error) {
	dir, err := g.stateDir(root)
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

// writable reports whether relay could create or change files in dir (or,
// when dir does not exist yet, create it in its nearest existing parent),
// without writing anything: readers use it to leave a read-only directory
// alone instead of failing on it.
func writable(dir string) bool {
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

// openStore opens the graph store for root. Read-only opens fail with a
// message telling to run `relay index` when there is no index yet.
func (g *globals) openStore(ctx context.Context, root string, write bool) (graphdb.Store, error) {
	dir, err := g.storeDir(root)
	if err != nil {
		return nil, err
	}
	if arango.IsURL(g.store) {
		return g.openArango(ctx, root, write)
	}
	st, err := embedded.Open(dir, embedded.Options{ReadOnly: !write, Logger: g.log, Rebuild: write})
	if err != nil {
		return nil, err
	}
	return st, nil
}
