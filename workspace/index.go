package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
)

// IndexOptions configure one Index call.
type IndexOptions struct {
	Full        bool          // re-index everything, ignoring content hashes
	ListTimeout time.Duration // index.Options.ListTimeout (0: its default)
	GoProxy     string        // index.Options.GoProxy
	// The per-file budgets of index.Options (0: the default).
	MaxFileBytes int64
	MaxDepth     int
	ParseTimeout time.Duration
	// Embedder, when set, adds vectors to the search index.
	Embedder retrieve.Embedder
	// Progress receives the indexer's progress (index.Options.Progress).
	Progress func(index.Progress)
	// Indexed, when set, is called once the code graph is committed and
	// before the search index is built (relay index prints its summary).
	Indexed func(index.Summary)
	// Built, when set, is called once the search index is written.
	Built func(retrieve.BuildStats)
	// SearchWithoutGraph builds the search index of a repository that has
	// no source file of a language relay indexes, over no graph, instead
	// of failing (the bot: search alone then ranks its files).
	SearchWithoutGraph bool
}

// IndexResult says what an Index call did.
type IndexResult struct {
	Graph index.Summary
	// NoGraph is set when the repository has no source relay builds a
	// graph for (with IndexOptions.SearchWithoutGraph).
	NoGraph bool
	Search  retrieve.BuildStats
}

// InterruptedError is what an Index call stopped by its context returns:
// Left says what state it left behind.
type InterruptedError struct{ Left string }

func (e *InterruptedError) Error() string { return "interrupted; " + e.Left }

// noSource reports whether index.Run found nothing it builds a graph of.
func noSource(err error) bool { return errors.Is(err, index.ErrNoSource) }

// IsNoSource reports whether err says the repository holds no source file
// of a language relay builds a code graph for.
func IsNoSource(err error) bool { return noSource(err) }

// Index indexes the repository into the store (one transaction: an
// interrupted run leaves the previous graph), then builds the search index
// from it while the store warms its traversal index. A store found damaged
// mid-run (a writer died before sealing it) is moved aside and the
// repository indexed from scratch once. A run into a new store that fails
// leaves no store behind.
func (w *Workspace) Index(ctx context.Context, o IndexOptions) (IndexResult, error) {
	root := w.o.Root
	dir, err := w.StoreDir()
	if err != nil {
		return IndexResult{}, err
	}
	_, statErr := os.Stat(dir)
	fresh := dir != "" && errors.Is(statErr, os.ErrNotExist)
	st, err := w.OpenStore(ctx, true)
	if err != nil {
		return IndexResult{}, err
	}
	defer func() { st.Close() }()
	if r, ok := st.(interface{ Rebuilt() string }); ok && r.Rebuilt() != "" {
		w.notify(fmt.Sprintf("index: %s; indexing from scratch.", r.Rebuilt()))
	}
	// Into a new store, every node is written by this run: the search index
	// takes them as they are written instead of reading them back.
	var syms *retrieve.Symbols
	var written func(graphdb.FileRecord, []graphdb.Node)
	if fresh {
		syms = retrieve.NewSymbols()
		written = syms.Written
	}
	sum, err := w.runIndex(ctx, st, o, written, true)
	if err != nil && dir != "" && errors.Is(err, graphdb.ErrCorrupt) {
		// Damage the open did not catch (the store was not sealed: a
		// writer died) surfaced mid-run: keep the damaged file aside and
		// index from scratch once.
		st.Close()
		rebuilt, rerr := w.rebuildDamaged(ctx, dir, err)
		if rerr != nil {
			return IndexResult{}, rerr
		}
		st, syms = rebuilt, nil
		again := o
		again.Full = true
		sum, err = w.runIndex(ctx, st, again, nil, true)
	}
	var res IndexResult
	var graph graphdb.Reader = st
	switch {
	case err != nil && noSource(err) && o.SearchWithoutGraph:
		// No code graph for this repository: search alone ranks files.
		graph, res.NoGraph, sum = nil, true, index.Summary{Unchanged: true}
	case err != nil:
		if fresh {
			// Nothing was ever committed: leave no empty store behind.
			st.Close()
			os.RemoveAll(dir)
		}
		if ctx.Err() != nil {
			if fresh {
				return IndexResult{}, &InterruptedError{"nothing was indexed"}
			}
			return IndexResult{}, &InterruptedError{"the previous index is intact"}
		}
		return IndexResult{}, fmt.Errorf("index %s: %w", root, err)
	}
	res.Graph = sum
	if o.Indexed != nil && !res.NoGraph {
		o.Indexed(sum)
	}
	// The traversal index is built now, so that the next command's first
	// query does not pay for it, while the search index is built: both
	// only read the committed graph.
	warm := warmAsync(ctx, st, !sum.Unchanged && !res.NoGraph)
	res.Search, err = w.buildSearch(ctx, graph, o, syms, !sum.Unchanged)
	if werr := warm(); werr != nil {
		if ctx.Err() != nil {
			return res, &InterruptedError{"the code graph is indexed; the search index was not updated"}
		}
		return res, fmt.Errorf("the code graph is indexed, but preparing its traversal index failed: %w", werr)
	}
	if err == nil && o.Built != nil {
		o.Built(res.Search)
	}
	return res, err
}

// warmAsync starts building the store's traversal index (when the store
// has one and do is set) and returns the wait for it.
func warmAsync(ctx context.Context, st graphdb.Store, do bool) (wait func() error) {
	w, ok := st.(interface{ Warm(context.Context) error })
	if !ok || !do {
		return func() error { return nil }
	}
	done := make(chan error, 1)
	go func() { done <- w.Warm(ctx) }()
	return func() error { return <-done }
}

// buildSearch builds the search index, derived from the committed graph
// and the files; it is written atomically, so a failure leaves the
// previous one (and the new graph) usable.
func (w *Workspace) buildSearch(ctx context.Context, graph graphdb.Reader, o IndexOptions, symbols *retrieve.Symbols, graphChanged bool) (retrieve.BuildStats, error) {
	state, err := w.PrepareStateDir()
	if err != nil {
		return retrieve.BuildStats{}, fmt.Errorf("the code graph is indexed, but the search index cannot be written: %w", err)
	}
	if graphChanged {
		// The search index is behind the graph until Build finishes: an
		// interruption must leave it refused, not served (retrieve.MarkStale).
		if err := retrieve.MarkStale(state); err != nil {
			return retrieve.BuildStats{}, fmt.Errorf("the code graph is indexed, but the search index cannot be marked stale: %w", err)
		}
	}
	key, trust, err := w.ownerOptions()
	if err != nil {
		return retrieve.BuildStats{}, err
	}
	bs, err := retrieve.Build(ctx, w.o.Root, graph, retrieve.BuildOptions{Dir: state, Embedder: o.Embedder, Force: o.Full, Log: w.o.Log, Symbols: symbols, Key: key, TrustForeign: trust, SecretFiles: w.o.SecretFiles})
	if err != nil {
		if ctx.Err() != nil {
			left := "the code graph is indexed; the search index may be behind it (marked stale when the graph changed)"
			if w.o.Advice.Index != "" {
				left += ": run " + w.o.Advice.Index + " again"
			}
			return retrieve.BuildStats{}, &InterruptedError{left}
		}
		return retrieve.BuildStats{}, fmt.Errorf("the code graph is indexed, but building the search index failed: %w", err)
	}
	return bs, nil
}

// runIndex is one index.Run; written, when set, receives the owners
// written (index.Options.Written). keep lets the run keep the frontends'
// caches (Go's type cache) in the state directory's cache/, when it can be
// written.
func (w *Workspace) runIndex(ctx context.Context, st graphdb.Store, o IndexOptions, written func(graphdb.FileRecord, []graphdb.Node), keep bool) (index.Summary, error) {
	cache := ""
	if keep {
		if state, err := w.PrepareStateDir(); err == nil {
			cache = filepath.Join(state, "cache")
		}
	}
	return index.Run(ctx, st, index.Options{Root: w.o.Root, Logger: w.o.Log, Progress: o.Progress, Full: o.Full, ListTimeout: o.ListTimeout, GoProxy: o.GoProxy, Written: written,
		MaxFileBytes: o.MaxFileBytes, MaxDepth: o.MaxDepth, ParseTimeout: o.ParseTimeout, CacheDir: cache})
}

// rebuildDamaged moves the damaged graph in dir aside (embedded.SetAside),
// says so, and opens a new store.
func (w *Workspace) rebuildDamaged(ctx context.Context, dir string, cause error) (graphdb.Store, error) {
	moved, err := embedded.SetAside(dir)
	if err != nil {
		return nil, fmt.Errorf("index %s: %w (and moving the damaged graph aside failed: %v)", w.o.Root, cause, err)
	}
	w.notify(fmt.Sprintf("index: the graph is damaged; moved %s aside to %s and indexing from scratch (%v).", filepath.Join(dir, "graph.db"), moved, cause))
	return w.OpenStore(ctx, true)
}

// InMemoryGraph indexes the repository into a graph held in memory
// (graphdb/memstore), writing nothing, for one question of the graph (the
// functions a fix changes). A repository without source relay builds a
// graph for has an empty one. Close the store when done.
func (w *Workspace) InMemoryGraph(ctx context.Context) (graphdb.Store, error) {
	st := memstore.New()
	if _, err := w.runIndex(ctx, st, IndexOptions{}, nil, false); err != nil && !noSource(err) {
		st.Close()
		return nil, fmt.Errorf("index %s: %w", w.o.Root, err)
	}
	return st, nil
}
