package workspace

import (
	"context"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/review"
	"github.com/relayhq/relay/udiff"
)

// ReviewOptions say how deep Review looks.
type ReviewOptions struct {
	Depth review.Depth
	// Embedder gives the embedder of the search index at
	// review.DepthDeep (nil: lexical search only); it is asked only then,
	// once the graph store is open.
	Embedder func() (retrieve.Embedder, error)
}

// Reviewed is a review's context and what the feedback store could not
// give it.
type Reviewed struct {
	review.Context
	// FeedbackPath is the feedback store's file; Skipped its damaged
	// lines, left out of the review.
	FeedbackPath string
	Skipped      []string
}

// Review gathers the review context of diffs from the workspace's graph
// (review.Build): the symbols they touch, their neighbours in the graph,
// at review.DepthDeep their semantic neighbours in the search index (built
// first when there is none, see Searcher), and the past feedback recorded
// in the state directory.
func (w *Workspace) Review(ctx context.Context, diffs []udiff.FileDiff, o ReviewOptions) (Reviewed, error) {
	st, err := w.OpenStore(ctx, false)
	if err != nil {
		return Reviewed{}, err
	}
	defer st.Close()
	opts := review.Options{Depth: o.Depth}
	if o.Depth == review.DepthDeep {
		var emb retrieve.Embedder
		if o.Embedder != nil {
			if emb, err = o.Embedder(); err != nil {
				return Reviewed{}, err
			}
		}
		if opts.Searcher, err = w.Searcher(ctx, st, emb); err != nil {
			return Reviewed{}, err
		}
	}
	state, err := w.StateDir()
	if err != nil {
		return Reviewed{}, err
	}
	fbs := review.OpenFeedback(state)
	fb, skipped, err := fbs.All()
	if err != nil {
		return Reviewed{}, err
	}
	opts.Feedback = fb
	rc, err := review.Build(ctx, st, diffs, opts)
	if err != nil {
		return Reviewed{}, err
	}
	return Reviewed{Context: rc, FeedbackPath: fbs.Path(), Skipped: skipped}, nil
}

// FeedbackStore opens the review feedback store of the repository, in the
// state directory (created if need be).
func (w *Workspace) FeedbackStore() (*review.FeedbackStore, error) {
	dir, err := w.PrepareStateDir()
	if err != nil {
		return nil, err
	}
	return review.OpenFeedback(dir), nil
}
