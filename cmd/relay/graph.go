package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/tools"
)

func init() { commands = append(commands, newGraphCmd) }

func newGraphCmd(g *globals) *cobra.Command {
	var depth, limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "graph <callers|callees|implementations|methods|usages|inheritors> <target> | graph blast-radius <target>...",
		Short: "Traverse the code graph: callers, callees, implementations, methods, usages, inheritors, blast radius",
		Long: `Graph answers one traversal of the code graph and prints the same prose the graph tool gives a model:
results grouped by depth, sorted by path and line, each with qname, path:line, kind and relation.

A target is a qualified name (net/http.Server.Serve), a location name (net/http/server.go:Server.Serve),
a dotted suffix (Server.Serve, http.Server.Serve) or a short name (Serve). An ambiguous or unknown
target lists the closest candidates.

blast-radius takes one or more targets and lists direct callers, transitive callers (up to --depth,
default 4), tests that reach them, affected files and a risk score 0–100 (formula: go doc
github.com/relayhq/relay/graphdb RiskScore).

relay graph export writes the whole graph as JSON lines, GraphML or ArangoDB import files
(relay graph export --help).

--json prints {operation, target, depth, results[], total, truncated, risk, affected_files, tests};
each result has qname, loc, file, line, kind, relation, depth, via, site_file, site_line.`,
		Example: `  relay graph callers Service.Send --depth 2
  relay graph implementations store.Reader --json
  relay graph blast-radius notify.SMSSender.Send retry.Do`,
		Args: graphArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			op, err := tools.ParseGraphOp(args[0])
			if err != nil {
				return usageErr(err)
			}
			if op != tools.OpBlastRadius && len(args) != 2 {
				return usageErr(fmt.Errorf("graph %s takes exactly one target (got %d: %s)", op, len(args)-1, strings.Join(args[1:], " ")))
			}
			for _, t := range args[1:] {
				if strings.TrimSpace(t) == "" {
					// An empty shell variable: say so as for a missing
					// target, not "No symbol \"\" in the code graph".
					return usageErr(fmt.Errorf("graph %s: a target is empty; give a symbol name, qualified name or path.go:Func, e.g. relay graph %s Service.Send", args[0], args[0]))
				}
			}
			if depth < 0 || depth > tools.MaxGraphDepth {
				return usageErr(fmt.Errorf("--depth %d out of range (1–%d)", depth, tools.MaxGraphDepth))
			}
			if limit < 0 {
				return usageErr(fmt.Errorf("--limit %d must be zero (no cap) or positive", limit))
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			ans, err := g.ws(root).AnswerGraph(cmd.Context(), op, args[1:], depth)
			if err != nil {
				var ie *tools.GraphInputError
				if errors.As(err, &ie) {
					return &exitError{code: 1, err: ie} // its Msg, and advice.go's advice
				}
				return cliErr(err)
			}
			if asJSON {
				return printJSON(g.stdout, ans.JSON(limit))
			}
			fmt.Fprintln(g.stdout, ans.Text(limit))
			return nil
		},
	}
	cmd.Flags().IntVar(&depth, "depth", 0, "hops to follow (default 1; blast-radius 4; at most 5)")
	cmd.Flags().IntVar(&limit, "limit", 0, "list at most N results (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of prose")
	cmd.AddCommand(newGraphExportCmd(g))
	return cmd
}

// graphArgs checks that an operation and a target were given, and says
// which is missing with an example.
func graphArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("graph needs an operation and a target, e.g. relay graph callers Service.Send (operations: callers, callees, implementations, methods, usages, inheritors, blast-radius)")
	}
	if len(args) > 1 {
		return nil
	}
	op, err := tools.ParseGraphOp(args[0])
	if err != nil {
		return err
	}
	if op == tools.OpBlastRadius {
		return errors.New("graph blast-radius needs at least one target: the symbol(s) a change touches, e.g. relay graph blast-radius notify.SMSSender.Send retry.Do")
	}
	return fmt.Errorf("graph %s needs a target: a symbol name, qualified name or path.go:Func, e.g. relay graph %s Service.Send", args[0], args[0])
}
