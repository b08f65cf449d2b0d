package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tracker"
)

// OfflineOptions configure OfflineReport.
type OfflineOptions struct {
	// ReportOptions are the report's filter, sizes and embedder; its Dir
	// is the workspace's state directory, whatever it says.
	retrieve.ReportOptions
	// Repo is the GitHub repository (owner/name) the report may be posted
	// on: its cross-references stay live. "" neutralises them all.
	Repo string
	// IndexFirst, when not nil, indexes the repository with these options
	// when it has no index yet and its store can be written, as relay
	// index would, instead of searching without a graph.
	IndexFirst *IndexOptions
}

// Offline is a context report written without a model, made safe to post.
type Offline struct {
	// Report is the report as retrieve wrote it, its Question replaced by
	// the published Input and the cut note of a long text added.
	retrieve.Report
	// Markdown is the report's markdown made safe to post.
	Markdown string
	// Input is the question or issue made safe to post.
	Input string
}

// OfflineReport writes the context report of text (a question or an
// issue) without a model: the retrieval pipeline (BM25 over code, docs and
// config, symbol lookup, graph-aware re-ranking and expansion) ranks files
// and symbols, and the report says no model was used. Its markdown and the
// text are published (Publisher): the ranked files and symbols are the
// repository's own code, from an index without secret-bearing files.
//
// The store and searcher it opens stay open for the next call (a REPL, a
// batch) until Close.
func (w *Workspace) OfflineReport(ctx context.Context, issue tracker.Text, o OfflineOptions) (Offline, error) {
	s, err := w.offlineSearcher(ctx, o)
	if err != nil {
		return Offline{}, err
	}
	text := issue.Body
	o.Dir, _ = w.StateDir()
	rep, err := s.Report(ctx, text, o.ReportOptions)
	if err != nil {
		return Offline{}, err
	}
	if issue.Cut {
		rep.Notes = append(rep.Notes, issue.Note())
	}
	p, err := w.Publisher(o.Repo)
	if err != nil {
		return Offline{}, err
	}
	res := p.Report(rep.Markdown())
	logPublished(w.o.Log, res)
	input := p.Text(text)
	rep.Question = input
	return Offline{Report: rep, Markdown: res.Markdown, Input: input}, nil
}

// offlineSearcher opens the store and the searcher once; a failure is
// remembered too.
func (w *Workspace) offlineSearcher(ctx context.Context, o OfflineOptions) (*retrieve.Searcher, error) {
	w.offMu.Lock()
	defer w.offMu.Unlock()
	if w.offS != nil || w.offErr != nil {
		return w.offS, w.offErr
	}
	st, s, err := w.openOffline(ctx, o)
	w.offSt, w.offS, w.offErr = st, s, err
	return s, err
}

// openOffline opens the graph (indexing it first with o.IndexFirst) and
// the searcher over it, or over no graph where there is none.
func (w *Workspace) openOffline(ctx context.Context, o OfflineOptions) (graphdb.Store, *retrieve.Searcher, error) {
	st, err := w.OpenStore(ctx, false)
	if errors.Is(err, graphdb.ErrNotFound) {
		graphless := o.IndexFirst == nil
		if dir, derr := w.StoreDir(); o.IndexFirst != nil && derr == nil && dir != "" && !Writable(dir) {
			// A reader writes nothing where it cannot: rank by search
			// alone (Searcher keeps the search index in memory).
			w.notify(fmt.Sprintf("relay: no index for %s, and %s cannot be written to build one; ranking files by search alone, without the code graph", w.o.Root, dir))
			graphless = true
		} else if o.IndexFirst != nil {
			// No index yet: build it now, as relay index would.
			w.notify(fmt.Sprintf("relay: no index for %s yet; indexing it first%s", w.o.Root, w.o.Advice.indexer()))
			_, err = w.Index(ctx, *o.IndexFirst)
			if noSource(err) {
				// No code graph for this repository (no source file of
				// a language relay indexes): search code, docs and
				// config without graph relations.
				w.notify("relay: no source file of a language relay indexes here, so no code graph; ranking files by search alone")
				graphless = true
			}
		}
		if graphless {
			s, err := w.Searcher(ctx, nil, o.Embedder)
			return nil, s, err
		}
		if err == nil {
			st, err = w.OpenStore(ctx, false)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	s, err := w.Searcher(ctx, st, o.Embedder)
	if err != nil {
		st.Close()
		return nil, nil, err
	}
	return st, s, nil
}
