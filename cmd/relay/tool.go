package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/tools"
)

func init() { commands = append(commands, newToolCmd) }

func newToolCmd(g *globals) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "tool <grep|glob|read|graph> ['<json args>' | -]",
		Short: "Run one agent tool and print exactly what a model would receive",
		Long: `Tool runs one of the agent tools against the repository (--repo, default .) and prints
its answer exactly as a model receives it. The arguments are one JSON object (default {});
"-" reads it from stdin. Exit status: 0 answered, 1 the tool answered with an error (the
answer is still printed), 2 usage error. The graph tool reads the index built by relay index.`,
		Example: `  relay tool grep '{"pattern": "func \\(s \\*Server\\) Serve\\(", "include": "*.go"}'
  relay tool glob '{"pattern": "**/*_test.go"}'
  relay tool read '{"file": "cmd/relay/main.go", "start_line": 1, "num_lines": 40}'
  relay tool graph '{"operation": "callers", "target": "Server.Serve", "depth": 2}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) < 1 || len(args) > 2 {
				return usageErr(fmt.Errorf("tool takes a tool name and one JSON argument object, e.g. relay tool glob '{\"pattern\": \"*.go\"}' (tools: %s)", strings.Join(tools.Names(), ", ")))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !tools.IsName(name) {
				return usageErr(fmt.Errorf("unknown tool %q; valid tools: %s", name, strings.Join(tools.Names(), ", ")))
			}
			raw := "{}"
			if len(args) == 2 {
				raw = args[1]
			}
			if raw == "-" {
				b, err := io.ReadAll(g.stdin)
				if err != nil {
					return fmt.Errorf("read arguments from stdin: %w", err)
				}
				raw = string(b)
			}
			if err := positiveTimeout(timeout); err != nil {
				return err
			}
			if !json.Valid([]byte(raw)) {
				return usageErr(fmt.Errorf("arguments for %s are not valid JSON: %s\npass one JSON object, e.g. relay tool %s '%s'", name, raw, name, tools.Example(name)))
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			tool, closeFn, err := g.ws(root).Tool(cmd.Context(), name, tools.Options{Timeout: timeout, Logger: g.log})
			if err != nil {
				return cliErr(err)
			}
			defer closeFn()
			res, err := tool.Call(cmd.Context(), json.RawMessage(raw))
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			g.log.Debug("tool result", "tool", name, "is_error", res.IsError, "meta", res.Meta)
			fmt.Fprintln(g.stdout, res.Content)
			if res.IsError {
				return &exitError{code: 1, err: fmt.Errorf("the %s tool answered with an error (printed above)", name)}
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", tools.DefaultTimeout, "per-call timeout; the rg/fd process is killed when it expires")
	return cmd
}

// positiveTimeout refuses a per-call --timeout of zero or less, which the
// tools would otherwise have replaced by their default without a word (a
// user asking for "no timeout" got 30s).
func positiveTimeout(d time.Duration) error {
	if d <= 0 {
		return usageErr(fmt.Errorf("--timeout %s: want a positive duration, e.g. 30s or 2m (every call has a deadline)", d))
	}
	return nil
}
