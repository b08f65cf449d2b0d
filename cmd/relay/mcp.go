package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/tools/mcpserver"
)

func init() { commands = append(commands, newMCPCmd) }

func newMCPCmd(g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve the grep, glob, read and graph tools to other agents over MCP (stdio)",
		Long: `Mcp runs a Model Context Protocol server on stdin/stdout offering relay's read-only
tools over the repository (--repo, default .): grep, glob, read and graph. Tool failures
come back as isError results. Logs go to stderr. The graph tool reads the index built by
relay index; without one it answers that relay index must be run.

Example client configuration:
  {"mcpServers": {"relay": {"command": "relay", "args": ["--repo", "/path/to/repo", "mcp"]}}}`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			r, closeFn, err := g.graphReader(cmd.Context(), root)
			if err != nil {
				return err
			}
			defer closeFn()
			reg, err := tools.Default(tools.Options{Root: root, Timeout: timeout, Graph: r, Logger: g.log})
			if err != nil {
				return err
			}
			srv := mcpserver.New(reg, mcpserver.Options{Logger: g.log})
			g.log.Info("mcp server ready", "repo", root, "tools", reg.Names(), "index", r != nil)
			if err := mcpserver.Serve(cmd.Context(), srv, g.stdin, g.stdout); err != nil {
				return fmt.Errorf("mcp: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", tools.DefaultTimeout, "per-call timeout of each tool")
	return cmd
}
