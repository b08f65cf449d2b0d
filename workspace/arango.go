package workspace

import (
	"context"
	"fmt"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
)

// checkArangoURL validates Options.Store arangodb://… without connecting;
// a malformed URL is a *ConfigError.
func (w *Workspace) checkArangoURL() error {
	if _, err := arango.ParseURL(w.o.Store); err != nil {
		return configErr(fmt.Errorf("%s: %w", w.o.Advice.store(), err))
	}
	return nil
}

// openArango opens the ArangoDB store named by Options.Store. The password
// comes from the URL or, when the URL has none, Options.ArangoPassword.
// Read-only opens fail with graphdb.ErrNotFound when the database holds no
// graph yet.
func (w *Workspace) openArango(ctx context.Context, write bool) (graphdb.Store, error) {
	st, err := arango.Open(ctx, w.o.Store, arango.Options{
		Password: w.o.ArangoPassword,
		ReadOnly: !write,
		Logger:   w.o.Log,
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
