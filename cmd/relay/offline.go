package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/workspace"
)

// offlineResult is what the deterministic pipeline produced for one
// question or issue: the report as markdown and as JSON.
type offlineResult struct {
	markdown string
	json     []byte
	report   string // the context report alone, without the CLI's hint (what --post builds on)
}

// offlineFallback is where ask, scope and batch go when no model endpoint is
// configured: the workspace's offline report (workspace.OfflineReport),
// which says no model was used, indexing the repository first when it has
// no index yet. kind is "ask" or "scope".
//
// repo is the GitHub repository the report may be posted on (its
// cross-references stay live), or "". The JSON holds the published report
// (markdown) and the question or issue published alike (input, question);
// its ranked files and symbols are the repository's own code (from an
// index without secret-bearing files), not published markdown: post
// markdown.
func offlineFallback(ctx context.Context, g *globals, root, repo, kind, text string) (offlineResult, error) {
	// Indexing first prints its summary on stderr, as relay index would.
	first, done := g.indexOptions(root, indexRun{maxErrors: 5, out: g.stderr})
	res, err := g.ws(root).OfflineReport(ctx, text, workspace.OfflineOptions{Repo: repo, IndexFirst: &first})
	done()
	if err != nil {
		return offlineResult{}, cliErr(fmt.Errorf("relay %s without a model: %w", kind, err))
	}
	md := res.Markdown + "\n\n" + noModelHint
	js, err := json.MarshalIndent(struct {
		Kind     string `json:"kind"`
		Input    string `json:"input"`
		Offline  bool   `json:"offline"`
		Markdown string `json:"markdown"`
		retrieve.Report
	}{kind, res.Input, true, res.Markdown, res.Report}, "", "  ")
	if err != nil {
		return offlineResult{}, err
	}
	return offlineResult{markdown: md, json: append(js, '\n'), report: res.Markdown}, nil
}

// noModelHint ends every offline report.
const noModelHint = "_To have a planner and retriever agents read this code and write a scoping report, configure a model: " +
	"OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL for any OpenAI-compatible server, with --model or RELAY_MODEL " +
	"(e.g. OPENAI_BASE_URL=http://localhost:11434/v1 RELAY_MODEL=qwen2.5-coder:14b for Ollama)._"
