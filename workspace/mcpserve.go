package workspace

import (
	"context"
	"io"

	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
)

// MCPServeOptions configure ServeMCP.
type MCPServeOptions struct {
	// Tools are the tools' options (MCPTools sets the workspace's).
	Tools tools.Options
	// Unavailable is the advice on an index that cannot be opened (see
	// MCPTools).
	Unavailable func(error) string
	// MaxConcurrent, MaxPendingCalls and MaxPendingBytes bound the calls
	// run at once and what one connection may hold (mcpserver.Options,
	// mcpserver.Transport).
	MaxConcurrent, MaxPendingCalls, MaxPendingBytes int
	// In and Out are the client's end: every answer passes through the
	// egress filter in mcpserver, so Out is written as it is.
	In  io.Reader
	Out io.Writer
}

// ServeMCP serves relay's MCP server over the workspace (MCPTools) on one
// connection until the client leaves, or ctx ends and the answers in
// flight are written (at most mcpserver.StopGrace later).
func (w *Workspace) ServeMCP(ctx context.Context, o MCPServeOptions) error {
	reg, graph, err := w.MCPTools(ctx, o.Tools, o.Unavailable)
	if err != nil {
		return err
	}
	defer graph.Close()
	log := o.Tools.Logger
	if log == nil {
		log = w.o.Log
	}
	srv := mcpserver.New(reg, mcpserver.Options{Logger: log, Root: w.o.Root, MaxConcurrent: o.MaxConcurrent})
	log.Info("mcp server ready", "repo", w.o.Root, "tools", reg.Names(), "graph", graph.Status())
	t := &mcpserver.Transport{In: o.In, Out: o.Out, Logger: log, MaxPendingCalls: o.MaxPendingCalls, MaxPendingBytes: o.MaxPendingBytes}
	return mcpserver.ServeWithGrace(ctx, srv, t, mcpserver.StopGrace)
}
