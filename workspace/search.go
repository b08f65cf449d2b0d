package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
)

// Searcher opens the search index from the state directory, building it
// first when there is none yet (a repository indexed before retrieval
// existed) or it is of another format. When the state directory cannot be
// written (a read-only file system), it writes nothing: it builds the
// index in memory for this run and says so. A damaged index is an error.
// graph may be nil (search without graph relations); emb adds dense
// retrieval when the index has vectors of its model.
func (w *Workspace) Searcher(ctx context.Context, graph graphdb.Reader, emb retrieve.Embedder) (*retrieve.Searcher, error) {
	dir, err := w.StateDir()
	if err != nil {
		return nil, err
	}
	opts, err := w.openOptions(dir, emb)
	if err != nil {
		return nil, err
	}
	root := w.o.Root
	s, err := retrieve.Open(root, graph, opts)
	if !errors.Is(err, retrieve.ErrNoIndex) {
		return s, err
	}
	if !Writable(dir) {
		how := "lexical search"
		if a := w.o.Advice.writable(); a != "" {
			how += "; " + a
		}
		w.notify(fmt.Sprintf("relay: %v\nrelay: %s cannot be written, so the search index is built in memory for this run only (%s)", err, dir, how))
		s, _, err := retrieve.OpenInMemory(ctx, root, graph, opts)
		if err != nil {
			return nil, fmt.Errorf("build the search index in memory: %w", err)
		}
		return s, nil
	}
	w.notify("relay: no usable search index yet; building it now" + w.o.Advice.indexer())
	if _, err := w.PrepareStateDir(); err != nil {
		return nil, err
	}
	if _, err := retrieve.Build(ctx, root, graph, retrieve.BuildOptions{Dir: dir, Embedder: emb, Log: w.o.Log, Key: opts.Key, TrustForeign: opts.TrustForeign, SecretFiles: w.o.SecretFiles}); err != nil {
		return nil, fmt.Errorf("build search index: %w", err)
	}
	return retrieve.Open(root, graph, opts)
}

// OpenSearcher opens the search index as it is, building nothing:
// retrieve.ErrNoIndex when there is none, retrieve.ErrIndexDamaged when it
// cannot be trusted (the agents' search tool, which they can do without).
func (w *Workspace) OpenSearcher(graph graphdb.Reader, emb retrieve.Embedder) (*retrieve.Searcher, error) {
	dir, err := w.StateDir()
	if err != nil {
		return nil, err
	}
	opts, err := w.openOptions(dir, emb)
	if err != nil {
		return nil, err
	}
	return retrieve.Open(w.o.Root, graph, opts)
}

// openOptions are the options every search index of the workspace opens
// with.
func (w *Workspace) openOptions(dir string, emb retrieve.Embedder) (retrieve.OpenOptions, error) {
	key, trust, err := w.ownerOptions()
	if err != nil {
		return retrieve.OpenOptions{}, err
	}
	return retrieve.OpenOptions{Dir: dir, Embedder: emb, Log: w.o.Log, Key: key, TrustForeign: trust, SecretFiles: w.o.SecretFiles}, nil
}

// Search answers query from the search index over the workspace's graph
// (graph distance re-ranks the hits, and Expand attaches graph context):
// the graph store is opened, and the search index opened or built first
// (Searcher). emb adds dense retrieval when the index has its vectors.
func (w *Workspace) Search(ctx context.Context, query string, o retrieve.SearchOptions, emb retrieve.Embedder) (retrieve.Results, error) {
	st, err := w.OpenStore(ctx, false)
	if err != nil {
		return retrieve.Results{}, err
	}
	defer st.Close()
	s, err := w.Searcher(ctx, st, emb)
	if err != nil {
		return retrieve.Results{}, err
	}
	return s.Search(ctx, query, o)
}
