package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
)

func init() { commands = append(commands, newMCPCmd) }

func newMCPCmd(g *globals) *cobra.Command {
	var (
		timeout       time.Duration
		maxConcurrent int
		maxPending    int
		maxPendingMB  int
	)
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the grep, glob, read and graph tools to other agents over MCP (stdio)",
		Long: `Mcp runs a Model Context Protocol server on stdin/stdout offering relay's read-only
tools over the repository (--repo, default .): grep, glob, read and graph. Tool failures
come back as isError results; malformed messages get JSON-RPC errors and the server goes
on. Each connection has at most --max-pending calls pending and --max-pending-mb of answers
waiting to be written; the excess is refused with JSON-RPC error -32001 (read your answers,
then send the call again). When stdin closes, the calls in flight are answered before it exits;
on SIGTERM or Ctrl-C it stops within 5 s, even with answers a client has not read. Logs go to stderr.

The graph tool reads the index built by relay index. The server starts without a usable
index (none yet, damaged, unreadable, locked): grep, glob and read work, and graph answers
why the graph is unavailable and what to do; it opens the index again on a later call, so
running relay index meanwhile is enough.

Example client configuration:
  {"mcpServers": {"relay": {"command": "relay", "args": ["--repo", "/path/to/repo", "mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, f := range []struct {
				name string
				v    int
			}{{"--max-concurrent", maxConcurrent}, {"--max-pending", maxPending}, {"--max-pending-mb", maxPendingMB}} {
				if f.v < 1 {
					return usageErr(fmt.Errorf("%s must be at least 1 (got %d)", f.name, f.v))
				}
			}
			if err := positiveTimeout(timeout); err != nil {
				return err
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			if _, err := g.storeDir(root); err != nil {
				return err // a malformed --store is a usage error, not a missing index
			}
			opts := tools.Options{Root: root, Timeout: timeout, Logger: g.log, Private: g.privateDirs(root), SecretFiles: g.secrets, Hints: advice.ToolHints(advice.MCP)}
			graph, err := newMCPGraph(cmd.Context(), g, root, opts)
			if err != nil {
				return err
			}
			defer graph.Close()
			reg, err := mcpRegistry(opts, graph)
			if err != nil {
				return err
			}
			srv := mcpserver.New(reg, mcpserver.Options{Logger: g.log, Root: root, MaxConcurrent: maxConcurrent})
			g.log.Info("mcp server ready", "repo", root, "tools", reg.Names(), "graph", graph.status())
			// The raw stdout: mcpserver passes every answer through the
			// egress filter itself, and JSON-RPC frames must not wait
			// for the line-holding writer.
			t := &mcpserver.Transport{In: g.stdin, Out: terminal(g.stdout), Logger: g.log, MaxPendingCalls: maxPending, MaxPendingBytes: maxPendingMB << 20}
			return serveMCP(cmd.Context(), srv, t)
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", tools.DefaultTimeout, "per-call timeout of each tool")
	cmd.Flags().IntVar(&maxConcurrent, "max-concurrent", mcpserver.DefaultMaxConcurrent,
		"tool calls run at once; further calls wait their turn (bounds the rg/fd processes one client can start)")
	cmd.Flags().IntVar(&maxPending, "max-pending", mcpserver.DefaultMaxPendingCalls,
		"calls running, waiting or with an unwritten answer per connection (a batch's calls included); further calls are refused with JSON-RPC error -32001")
	cmd.Flags().IntVar(&maxPendingMB, "max-pending-mb", mcpserver.DefaultMaxPendingBytes>>20,
		"megabytes of answers held before they are written (a batch's, or behind a client that does not read); an answer beyond is replaced by error -32001")
	return cmd
}

// mcpStopGrace is how long relay mcp, told to stop (SIGTERM, Ctrl-C),
// waits for its connection to close. An answer stuck behind a client that
// does not read would otherwise hold the process for as long as the
// client lives: a blocked write to a pipe cannot be interrupted.
const mcpStopGrace = 5 * time.Second

// serveMCP serves t until the client leaves or ctx ends; once ctx has
// ended it waits at most mcpStopGrace.
func serveMCP(ctx context.Context, srv *mcp.Server, t *mcpserver.Transport) error {
	done := make(chan error, 1)
	go func() { done <- mcpserver.Serve(ctx, srv, t) }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		select {
		case err = <-done:
		case <-time.After(mcpStopGrace):
			return fmt.Errorf("mcp: stopped %s after the signal with answers unwritten: the client is not reading relay's output", mcpStopGrace)
		}
	}
	if err != nil {
		return fmt.Errorf("mcp: %w", err)
	}
	return nil
}

// mcpRegistry is tools.Default with graph replaced by the reopening one.
func mcpRegistry(opts tools.Options, graph tools.Tool) (*tools.Registry, error) {
	def, err := tools.Default(opts)
	if err != nil {
		return nil, err
	}
	reg := tools.NewRegistry(graph)
	for _, t := range def.Tools() {
		if t.Name() != tools.GraphName {
			reg.Add(t)
		}
	}
	return reg, nil
}

// mcpGraphRetry is how long a graph store that failed to open for a reason
// other than "no index yet" is left alone before the next call tries again:
// opening a locked store can wait on SQLite's busy timeout.
const mcpGraphRetry = 5 * time.Second

// mcpGraph is the graph tool of `relay mcp`. It opens the store when the
// server starts and, while that fails, again on later calls, so a server
// started before `relay index` (or on a damaged, unreadable or locked index)
// still serves the other tools and picks the graph up once it is usable.
// Until then a call answers, as an isError result, why the graph is
// unavailable and what to do, without paths outside the repository.
type mcpGraph struct {
	base *tools.Graph // description and schema; answers as if no index existed
	open func(ctx context.Context) (graphdb.Store, error)
	root string
	opts tools.Options
	log  *slog.Logger

	mu       sync.Mutex
	store    graphdb.Store
	ready    *tools.Graph // answers once store is open
	reason   string       // why the graph is unavailable
	notFound bool         // no index yet: cheap to look again on every call
	tried    time.Time
}

func newMCPGraph(ctx context.Context, g *globals, root string, opts tools.Options) (*mcpGraph, error) {
	base, err := tools.NewGraph(opts)
	if err != nil {
		return nil, err
	}
	m := &mcpGraph{
		base: base, root: root, opts: opts, log: g.log,
		open: func(ctx context.Context) (graphdb.Store, error) { return g.openStore(ctx, root, false) },
	}
	m.mu.Lock()
	m.tryOpen(ctx)
	m.mu.Unlock()
	return m, nil
}

// tryOpen opens the store; m.mu is held.
func (m *mcpGraph) tryOpen(ctx context.Context) {
	m.tried = time.Now()
	st, err := m.open(ctx)
	if err == nil {
		opts := m.opts
		opts.Graph = st
		ready, gerr := tools.NewGraph(opts)
		if gerr == nil {
			m.store, m.ready, m.reason = st, ready, ""
			return
		}
		st.Close()
		err = gerr
	}
	m.notFound = errors.Is(err, graphdb.ErrNotFound)
	if m.notFound {
		m.reason = tools.NoIndexText(m.opts.Hints)
		m.log.Info("no code graph index yet; graph answers that relay index must be run", "err", err)
		return
	}
	msg := mcpserver.Redact(err.Error(), m.root)
	hint := " Rebuild it with `relay index` in the repository root (or make the index readable, or wait for the process holding its lock), then retry."
	if strings.Contains(msg, "relay index") {
		hint = " Then retry."
	} else if a := advice.For(err, advice.MCP); a != "" {
		hint = " " + advice.Sentence(mcpserver.Redact(a, m.root))
	}
	m.reason = "The code graph is unavailable: " + msg + "." + hint + " The index is opened again on the next call; grep, glob and read work meanwhile."
	m.log.Warn("code graph unavailable; serving the other tools", "err", err)
}

// Name implements tools.Tool.
func (m *mcpGraph) Name() string { return m.base.Name() }

// Description implements tools.Tool.
func (m *mcpGraph) Description() string { return m.base.Description() }

// Schema implements tools.Tool.
func (m *mcpGraph) Schema() json.RawMessage { return m.base.Schema() }

// ReadOnly implements tools.ReadOnlyTool.
func (m *mcpGraph) ReadOnly() bool { return true }

// Call implements tools.Tool.
func (m *mcpGraph) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	m.mu.Lock()
	if m.ready == nil && (m.notFound || time.Since(m.tried) >= mcpGraphRetry) {
		m.tryOpen(ctx)
	}
	ready, reason := m.ready, m.reason
	m.mu.Unlock()
	if ready == nil {
		// Arguments are still checked first, so a malformed call learns that.
		if res, err := m.base.Call(ctx, args); err != nil || res.Content != tools.NoIndexText(m.opts.Hints) {
			return res, err
		}
		return tools.Result{Content: reason, IsError: true}, nil
	}
	return ready.Call(ctx, args)
}

func (m *mcpGraph) status() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.ready != nil:
		return "ready"
	case m.notFound:
		return "no index"
	}
	return "unavailable"
}

// Close closes the store if it was opened.
func (m *mcpGraph) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.store == nil {
		return nil
	}
	return m.store.Close()
}
