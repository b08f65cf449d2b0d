package main

import (
	"fmt"

	"github.com/relayhq/relay/workspace"
)

// offlineOptions are the options of the workspace's offline report
// (workspace.OfflineReport), where ask, scope and batch go when no model
// endpoint is configured: a repository with no index yet is indexed
// first, its summary on stderr as relay index would print it. done clears
// the progress line.
func (g *globals) offlineOptions(root string) (o workspace.OfflineOptions, done func()) {
	first, done := g.indexOptions(root, indexRun{maxErrors: 5, out: g.stderr})
	return workspace.OfflineOptions{IndexFirst: &first}, done
}

// offlineErr is an error of the offline report of relay kind ("ask",
// "scope").
func offlineErr(kind string, err error) error {
	return cliErr(fmt.Errorf("relay %s without a model: %w", kind, err))
}

// noModelHint ends every offline report the CLI prints or writes as
// markdown (what --post posts goes without it).
const noModelHint = "_To have a planner and retriever agents read this code and write a scoping report, configure a model: " +
	"OPENAI_API_KEY (api.openai.com) or OPENAI_BASE_URL for any OpenAI-compatible server, with --model or RELAY_MODEL " +
	"(e.g. OPENAI_BASE_URL=http://localhost:11434/v1 RELAY_MODEL=qwen2.5-coder:14b for Ollama)._"

// withHint is an offline report's markdown as the CLI shows it.
func withHint(markdown string) string { return markdown + "\n\n" + noModelHint }
