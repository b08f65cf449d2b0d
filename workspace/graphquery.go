package workspace

import (
	"context"
	"errors"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/tools"
)

// GraphReader opens the graph store read-only for the graph tool. No index
// yet is not an error here: the reader is nil, and the graph tool tells
// the model so (with Options.Hints). The returned func closes the store.
func (w *Workspace) GraphReader(ctx context.Context) (graphdb.Reader, func(), error) {
	st, err := w.OpenStore(ctx, false)
	switch {
	case errors.Is(err, graphdb.ErrNotFound):
		w.o.Log.Info("no code graph index; the graph tool will say to run relay index", "err", err)
		return nil, func() {}, nil
	case err != nil:
		return nil, nil, err
	}
	return st, func() { st.Close() }, nil
}

// AnswerGraph answers one traversal of the workspace's code graph
// (tools.AnswerGraphTargets: several targets for blast_radius only), as the
// graph tool does; bad input gives a *tools.GraphInputError.
func (w *Workspace) AnswerGraph(ctx context.Context, operation string, targets []string, depth int) (tools.GraphAnswer, error) {
	st, err := w.OpenStore(ctx, false)
	if err != nil {
		return tools.GraphAnswer{}, err
	}
	defer st.Close()
	return tools.AnswerGraphTargets(ctx, st, operation, targets, depth)
}

// Tool builds just the named tool over the workspace (tools.ByName), with
// opts's Root, Private, SecretFiles and Hints set from the workspace and,
// for the graph tool, the graph store opened (GraphReader). The returned
// func closes what it opened.
func (w *Workspace) Tool(ctx context.Context, name string, opts tools.Options) (tools.Tool, func(), error) {
	opts.Root, opts.Private, opts.SecretFiles, opts.Hints = w.o.Root, w.PrivateDirs(), w.o.SecretFiles, w.o.Hints
	if opts.Logger == nil {
		opts.Logger = w.o.Log
	}
	closeFn := func() {}
	if name == tools.GraphName {
		r, c, err := w.GraphReader(ctx)
		if err != nil {
			return nil, nil, err
		}
		opts.Graph, closeFn = r, c
	}
	tool, err := tools.ByName(name, opts)
	if err != nil {
		closeFn()
		return nil, nil, err
	}
	return tool, closeFn, nil
}
