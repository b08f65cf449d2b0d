package workspace

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
)

// MCPTools are the tools of relay's MCP server over the workspace:
// tools.Default over opts (its Root, Private and SecretFiles set from the
// workspace), with the graph tool replaced by one that opens the index
// when it becomes usable (MCPGraph). Close the MCPGraph when done.
//
// unavailable, when set, is the advice the graph tool adds when the index
// cannot be opened for another reason than its absence (damaged,
// unreadable, locked); the hint for a missing index is opts.Hints.NoIndex.
func (w *Workspace) MCPTools(ctx context.Context, opts tools.Options, unavailable func(error) string) (*tools.Registry, *MCPGraph, error) {
	opts.Root, opts.Private, opts.SecretFiles = w.o.Root, w.PrivateDirs(), w.o.SecretFiles
	if opts.Logger == nil {
		opts.Logger = w.o.Log
	}
	graph, err := w.newMCPGraph(ctx, opts, unavailable)
	if err != nil {
		return nil, nil, err
	}
	reg, err := mcpRegistry(opts, graph)
	if err != nil {
		graph.Close()
		return nil, nil, err
	}
	return reg, graph, nil
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

// MCPGraph is the graph tool of relay's MCP server. It opens the store when the
// server starts and, while that fails, again on later calls, so a server
// started before `relay index` (or on a damaged, unreadable or locked index)
// still serves the other tools and picks the graph up once it is usable.
// Until then a call answers, as an isError result, why the graph is
// unavailable and what to do, without paths outside the repository.
type MCPGraph struct {
	base *tools.Graph // description and schema; answers as if no index existed
	open func(ctx context.Context) (graphdb.Store, error)
	root string
	opts tools.Options
	log  *slog.Logger
	// unavailable is the advice on an index that cannot be opened.
	unavailable func(error) string

	mu       sync.Mutex
	store    graphdb.Store
	ready    *tools.Graph // answers once store is open
	reason   string       // why the graph is unavailable
	notFound bool         // no index yet: cheap to look again on every call
	tried    time.Time
}

func (w *Workspace) newMCPGraph(ctx context.Context, opts tools.Options, unavailable func(error) string) (*MCPGraph, error) {
	base, err := tools.NewGraph(opts)
	if err != nil {
		return nil, err
	}
	m := &MCPGraph{
		base: base, root: w.o.Root, opts: opts, log: opts.Logger, unavailable: unavailable,
		open: func(ctx context.Context) (graphdb.Store, error) { return w.OpenStore(ctx, false) },
	}
	m.mu.Lock()
	m.tryOpen(ctx)
	m.mu.Unlock()
	return m, nil
}

// tryOpen opens the store; m.mu is held.
func (m *MCPGraph) tryOpen(ctx context.Context) {
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
		m.log.Info("no code graph index yet; the graph tool says so", "err", err)
		return
	}
	msg := mcpserver.Redact(err.Error(), m.root)
	hint := ""
	if m.unavailable != nil {
		if h := m.unavailable(err); h != "" {
			hint = " " + mcpserver.Redact(h, m.root)
		}
	}
	m.reason = "The code graph is unavailable: " + msg + "." + hint + " The index is opened again on the next call; grep, glob and read work meanwhile."
	m.log.Warn("code graph unavailable; serving the other tools", "err", err)
}

// Name implements tools.Tool.
func (m *MCPGraph) Name() string { return m.base.Name() }

// Description implements tools.Tool.
func (m *MCPGraph) Description() string { return m.base.Description() }

// Schema implements tools.Tool.
func (m *MCPGraph) Schema() json.RawMessage { return m.base.Schema() }

// ReadOnly implements tools.ReadOnlyTool.
func (m *MCPGraph) ReadOnly() bool { return true }

// Call implements tools.Tool.
func (m *MCPGraph) Call(ctx context.Context, args json.RawMessage) (tools.Result, error) {
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

// Status is "ready", "no index" or "unavailable".
func (m *MCPGraph) Status() string {
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
func (m *MCPGraph) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.store == nil {
		return nil
	}
	return m.store.Close()
}
