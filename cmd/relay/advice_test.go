package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tools"
)

// TestPrintErrorAdvice: a command's error is printed with the command
// line's advice after it, once, and redacted like the message.
func TestPrintErrorAdvice(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"no index", fmt.Errorf("open graph: %w", &graphdb.NoIndexError{Where: "/r/.relay"}),
			"relay: open graph: no index at /r/.relay; run `relay index` first\n"},
		{"damaged", &embedded.DamageError{Dir: "/r/.relay", Detail: "graph.db: bad record"},
			"relay: the index at /r/.relay is damaged (graph.db: bad record); run `relay index` to rebuild it\n"},
		// A message that already says what to run (in either quoting) does
		// not get it twice.
		{"already said", fmt.Errorf("%w at /r/.relay/search; run 'relay index' in the repository first", errors.Join(errors.New("no retrieval index"), graphdb.ErrCorrupt)),
			"relay: no retrieval index\nstore is damaged at /r/.relay/search; run 'relay index' in the repository first\n"},
		{"no advice", errors.New("connection refused"), "relay: connection refused\n"},
		{"redacted", &graphdb.NoIndexError{Where: "arangodb://root:hunter2@db:8529/relay"},
			"relay: no index at arangodb://root:***@db:8529/relay; run `relay index --store arangodb://root:***@db:8529/relay` first\n"},
		{"symbol missing", &tools.GraphInputError{Msg: "No symbol x in the code graph.", Missing: true},
			"relay: No symbol x in the code graph. Run `relay index` to update it.\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var b strings.Builder
			printError(&b, tc.err)
			if got := b.String(); got != tc.want {
				t.Errorf("printError(%v) =\n%q\nwant\n%q", tc.err, got, tc.want)
			}
		})
	}
}

// TestToolHintsBySurface: the command line's tools, those of its
// workspaces included, offer to run relay (the bot's do not: serve's
// TestPipelineToolHints).
func TestToolHintsBySurface(t *testing.T) {
	t.Parallel()
	g := &globals{getenv: func(string) string { return "" }}
	for _, h := range []tools.Hints{g.toolHints(), g.wsOptions(t.TempDir()).Hints} {
		if !strings.Contains(h.NoIndex, "relay index") || h != advice.ToolHints(advice.CLI) {
			t.Errorf("the command line's no-index hint %q does not say to run relay index", h.NoIndex)
		}
	}
}
