package workspace

import (
	"context"
	"fmt"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/udiff"
)

// EvalCheckout indexes the repository as the localization eval does each
// checkout (eval.Options.Prepare): its secret-file values learned first by
// the egress filter, then the graph and the search index (Index,
// incremental on a second run) in its store; a checkout without source
// relay builds a graph for is searched over its empty graph. Close the
// reader with the function returned.
func (w *Workspace) EvalCheckout(ctx context.Context, goProxy string) (graphdb.Reader, func() error, error) {
	if _, err := w.SecretValues(); err != nil {
		return nil, nil, err
	}
	res, err := w.Index(ctx, IndexOptions{GoProxy: goProxy, SearchWithoutGraph: true})
	if err != nil {
		return nil, nil, err
	}
	if res.NoGraph {
		w.o.Log.Info("no code graph for this checkout; searching without it", "root", w.o.Root)
	}
	// Without a graph the store holds no committed graph a reader could
	// open: the empty store is opened as the indexer left it.
	st, err := w.OpenStore(ctx, res.NoGraph)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
}

// GoldFromDiff derives the gold answer of a fix given as diffs against the
// repository, its pre-fix tree: Go functions from the source
// (eval.GoldFromDiff); when the fix changes source of another language,
// every function from a graph of the repository indexed in memory
// (eval.GoldFromDiffGraph; nothing is written to the repository).
func (w *Workspace) GoldFromDiff(ctx context.Context, diffs []udiff.FileDiff) (eval.Gold, error) {
	if !eval.NeedsGraph(diffs) {
		return eval.GoldFromDiff(w.o.Root, diffs)
	}
	st, err := w.InMemoryGraph(ctx)
	if err != nil {
		return eval.Gold{}, fmt.Errorf("gold functions of %s: %w", w.o.Root, err)
	}
	defer st.Close()
	return eval.GoldFromDiffGraph(ctx, w.o.Root, diffs, st)
}
