package main

import (
	"context"
	"fmt"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
)

// checkArangoURL validates --store arangodb://… without connecting; a
// malformed URL is a usage error.
func (g *globals) checkArangoURL() error {
	if _, err := arango.ParseURL(g.store); err != nil {
		return usageErr(fmt.Errorf("--store: %w", err))
	}
	return nil
}

// openArango opens the ArangoDB store named by --store. The password comes
// from the URL or, when the URL has none, from RELAY_ARANGO_PASSWORD.
// Read-only opens fail with advice when the database holds no graph yet.
func (g *globals) openArango(ctx context.Context, root string, write bool) (graphdb.Store, error) {
	st, err := arango.Open(ctx, g.store, arango.Options{
		Password: g.getenv("RELAY_ARANGO_PASSWORD"),
		ReadOnly: !write,
		Logger:   g.log,
	})
	if err != nil {
		return nil, err
	}
	if !write {
		files, err := st.Files(ctx)
		if err == nil && len(files) == 0 {
			st.Close()
			return nil, &graphdb.NoIndexError{Where: st.Target().String()}
		}
	}
	return st, nil
}
