package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/workspace"
)

func init() { commands = append(commands, newEvalCmd) }

// evalFlags are relay eval's flags.
type evalFlags struct {
	instances, checkouts string
	asJSON, agentMode    bool
	baseline             bool
	materialize          bool
	llm                  llmFlags
}

func newEvalCmd(g *globals) *cobra.Command {
	var f evalFlags
	cmd := &cobra.Command{
		Use:   "eval --instances FILE --checkouts DIR",
		Short: "Measure localization accuracy (file and function Acc@k, MRR) on a set of instances",
		Long: `Eval reads instances (JSON lines: instance_id, problem_statement, gold_files, gold_functions
as location names "path/file.go:Func" or "path/file.go:Recv.Method") whose repositories are
checked out at DIR/<instance_id>. For each it indexes the checkout (graph + retrieval index,
incremental on re-runs), localizes the problem statement with the offline pipeline and scores
files at 1/5/10 and functions at 5/10 — "all gold in the top k" and "any gold in the top k" —
plus MRR and seconds per instance. --baseline adds plain BM25 over whole files, side by side.
--agent also asks the agent runtime (planner, retrievers, answer writer; needs a model endpoint)
where the fix goes and scores the path:line locations it cites, with tokens per instance.
Instances that carry "repo": "MODULE@VERSION" can be checked out from the Go module cache with
--materialize.

Example:
  relay eval --instances eval/testdata/devset/instances.jsonl --checkouts /tmp/devset --materialize`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return f.run(cmd.Context(), g) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.instances, "instances", "", "instances file (JSON lines)")
	fl.StringVar(&f.checkouts, "checkouts", "", "directory holding one checkout per instance_id")
	fl.BoolVar(&f.asJSON, "json", false, "print per-instance results and summaries as JSON")
	fl.BoolVar(&f.agentMode, "agent", false, "also localize with the agent runtime (needs a model endpoint; see the model flags); reports tokens per instance")
	f.llm.register(fl)
	fl.BoolVar(&f.baseline, "baseline", true, "also run the plain BM25-over-files baseline")
	fl.BoolVar(&f.materialize, "materialize", false, `check out instances that name "repo": "MODULE@VERSION" (Go module cache) or "npm:NAME@VERSION" (npm pack)`)
	cmd.AddCommand(newEvalDeriveCmd(g), newEvalRealCmd(g))
	return cmd
}

// run loads the instances, prepares the checkouts and prints the report.
func (f *evalFlags) run(ctx context.Context, g *globals) error {
	if f.instances == "" || f.checkouts == "" {
		return usageErr(errors.New("eval needs --instances FILE.jsonl and --checkouts DIR"))
	}
	var localize eval.AgentLocalizer
	if f.agentMode {
		if _, _, ok := f.llm.endpoint(g); !ok {
			return usageErr(errors.New("eval --agent needs a model endpoint: set OPENAI_API_KEY and/or OPENAI_BASE_URL (or --base-url); without one, run eval without --agent to measure the offline pipeline"))
		}
		if _, err := f.llm.config(g); err != nil {
			return err
		}
		localize = f.llm.evalLocalizer(g)
	}
	insts, err := eval.ReadInstances(f.instances)
	if err != nil {
		return err
	}
	dir, err := filepath.Abs(f.checkouts)
	if err != nil {
		return err
	}
	if f.materialize {
		n, err := eval.MaterializeCheckouts(ctx, insts, dir)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(g.stderr, "eval: checked out %d instance(s) into %s\n", n, dir)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return usageErr(fmt.Errorf("--checkouts %s is not a directory (create it, or pass --materialize for instances with a repo)", dir))
	}
	rep, err := eval.Run(ctx, insts, eval.Options{Checkouts: dir, Baseline: f.baseline, Agent: localize,
		Prepare: g.evalPrepare(""), Progress: evalProgress(g.stderr)})
	if err != nil {
		return err
	}
	return printEval(g, f.asJSON, rep, rep.Table(), rep)
}

// printEval prints a report as JSON or as its table, then fails the run
// (exit 1) when no instance could be localized at all: its figures are
// all misses and measure nothing.
func printEval(g *globals, asJSON bool, v any, table string, rep eval.Report) error {
	if asJSON {
		if err := printJSON(g.stdout, v); err != nil {
			return err
		}
	} else {
		fmt.Fprint(g.stdout, table)
	}
	if n, first := rep.AllFailed(); n > 0 {
		return fmt.Errorf("every instance failed (%d), so the figures above measure nothing; the first: %s", n, first)
	}
	return nil
}

// evalPrepare indexes one checkout for eval (workspace.EvalCheckout) in
// its own store: the checkouts' stores are eval's own (<checkout>/.relay),
// whatever --store, --state and --trust-store say.
func (g *globals) evalPrepare(goProxy string) func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
	return func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
		r, closer, err := workspace.New(g.wsOptions(root)).EvalCheckout(ctx, goProxy)
		return r, closer, cliErr(err)
	}
}

// evalLocalizer is relay eval --agent's localizer: the agent of the model
// flags on each checkout, asked where the fix goes (workspace's
// Agent.Localize).
func (f *llmFlags) evalLocalizer(g *globals) eval.AgentLocalizer {
	return func(ctx context.Context, root string, graph graphdb.Reader, problem string) (eval.Prediction, int64, error) {
		sess, err := f.newAgentOn(ctx, g, root, graph, nil)
		if err != nil {
			return eval.Prediction{}, 0, err
		}
		defer sess.Close()
		ctx, cancel := f.runContext(ctx)
		defer cancel()
		p, tokens, err := sess.Localize(ctx, root, graph, problem)
		return p, tokens, sess.Explain(err)
	}
}

// evalProgress prints one line per finished instance: its file reciprocal
// rank or its error, and the time indexing and retrieval took.
func evalProgress(w io.Writer) func(done, total int, r eval.InstanceResult) {
	return func(done, total int, r eval.InstanceResult) {
		status := fmt.Sprintf("file rr %.2f", r.FileRR)
		if r.Error != "" {
			status = "error: " + r.Error
		}
		fmt.Fprintf(w, "eval: [%d/%d] %s %s (index %.1fs, retrieve %.3fs)\n", done, total, r.ID, status, r.Index, r.Seconds)
	}
}
