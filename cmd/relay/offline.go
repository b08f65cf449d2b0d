package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/publish"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tracker"
)

// offlineResult is what the deterministic pipeline produced for one
// question or issue: the report as markdown and as JSON.
type offlineResult struct {
	markdown string
	json     []byte
	report   string // the context report alone, without the CLI's hint (what --post builds on)
}

// offlineState keeps the store and searcher of one invocation open across
// questions (the REPL) and tickets (batch).
type offlineState struct {
	mu  sync.Mutex
	st  graphdb.Store
	s   *retrieve.Searcher
	err error
}

// offlineFallback is where ask, scope and batch go when no model endpoint is
// configured: the retrieval pipeline (BM25 over code, docs and config,
// symbol lookup, graph-aware re-ranking and expansion) writes a context
// report that says no model was used. kind is "ask" or "scope".
//
// repo is the GitHub repository the report may be posted on (its
// cross-references stay live), or "". The JSON holds the published report
// (markdown) and the question or issue published alike (input, question);
// its ranked files and symbols are the repository's own code (from an
// index without secret-bearing files), not published markdown: post
// markdown.
func offlineFallback(ctx context.Context, g *globals, root, repo, kind, text string) (offlineResult, error) {
	s, err := g.offlineSearcher(ctx, root)
	if err != nil {
		return offlineResult{}, fmt.Errorf("relay %s without a model: %w", kind, err)
	}
	text, note := tracker.SplitCut(text)
	rep, err := s.Report(ctx, text, retrieve.ReportOptions{})
	if err != nil {
		return offlineResult{}, fmt.Errorf("relay %s without a model: %w", kind, err)
	}
	if note != "" {
		rep.Notes = append(rep.Notes, note)
	}
	p, err := publish.NewPublisher(publish.Options{Root: root, Files: g.secrets, Repo: repo})
	if err != nil {
		return offlineResult{}, fmt.Errorf("relay %s without a model: check the report before publishing it: %w", kind, err)
	}
	res := p.Report(rep.Markdown())
	if res.N() > 0 || res.CutAt != "" {
		g.log.Warn("report filtered before publishing", "redacted", res.N(), "cut_before", res.CutAt)
	}
	report := res.Markdown
	md := report + "\n\n" + noModelHint
	input := p.Text(text)
	rep.Question = input
	js, err := json.MarshalIndent(struct {
		Kind     string `json:"kind"`
		Input    string `json:"input"`
		Offline  bool   `json:"offline"`
		Markdown string `json:"markdown"`
		retrieve.Report
	}{kind, input, true, report, rep}, "", "  ")
	if err != nil {
		return offlineResult{}, err
	}
	return offlineResult{markdown: md, json: append(js, '\n'), report: report}, nil
}

// noModelHint ends every offline report.
const noModelHint = "_To have a planner and retriever agents read this code and write a scoping report, configure a model: " +
	"OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL for any OpenAI-compatible server, with --model or RELAY_MODEL " +
	"(e.g. OPENAI_BASE_URL=http://localhost:11434/v1 RELAY_MODEL=qwen2.5-coder:14b for Ollama)._"

func (g *globals) offlineSearcher(ctx context.Context, root string) (*retrieve.Searcher, error) {
	g.offlineOnce.Do(func() { g.offline = &offlineState{} })
	o := g.offline
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.s != nil || o.err != nil {
		return o.s, o.err
	}
	st, err := g.openStore(ctx, root, false)
	if errors.Is(err, graphdb.ErrNotFound) {
		graphless := false
		if dir, derr := g.storeDir(root); derr == nil && dir != "" && !writable(dir) {
			// A reader writes nothing where it cannot: rank by search
			// alone (openSearcher keeps the search index in memory).
			fmt.Fprintf(g.stderr, "relay: no index for %s, and %s cannot be written to build one; ranking files by search alone, without the code graph\n", root, dir)
			graphless = true
		} else {
			// No index yet: build it now, as `relay index` would.
			fmt.Fprintf(g.stderr, "relay: no index for %s yet; indexing it first (relay index keeps it up to date)\n", root)
			err = g.indexRepo(ctx, root, indexRun{maxErrors: 5, out: g.stderr})
			if errors.Is(err, index.ErrNoSource) {
				// No code graph for this repository (relay indexes Go
				// and Python code): search code, docs and config
				// without graph relations.
				fmt.Fprintln(g.stderr, "relay: no Go or Python code here, so no code graph; ranking files by search alone")
				graphless = true
			}
		}
		if graphless {
			s, err := g.openSearcher(ctx, root, nil, nil)
			if err != nil {
				o.err = err
				return nil, err
			}
			o.s = s
			return s, nil
		}
		if err == nil {
			st, err = g.openStore(ctx, root, false)
		}
	}
	if err != nil {
		o.err = err
		return nil, err
	}
	s, err := g.openSearcher(ctx, root, st, nil)
	if err != nil {
		st.Close()
		o.err = err
		return nil, err
	}
	o.st, o.s = st, s
	return s, nil
}

// closeOffline releases what offlineSearcher opened.
func (g *globals) closeOffline() {
	if g.offline != nil && g.offline.st != nil {
		g.offline.st.Close()
	}
}
