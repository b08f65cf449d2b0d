package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
	"github.com/relayhq/relay/workspace"
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
			// The raw stdout: mcpserver passes every answer through the
			// egress filter itself, and JSON-RPC frames must not wait
			// for the line-holding writer.
			return g.ws(root).ServeMCP(cmd.Context(), workspace.MCPServeOptions{
				Tools:       tools.Options{Timeout: timeout, Logger: g.log, Hints: advice.ToolHints(advice.MCP)},
				Unavailable: advice.MCPGraphUnavailable, MaxConcurrent: maxConcurrent,
				MaxPendingCalls: maxPending, MaxPendingBytes: maxPendingMB << 20,
				In: g.stdin, Out: terminal(g.stdout),
			})
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
