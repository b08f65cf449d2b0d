package main

import (
	"context"
	"fmt"
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
