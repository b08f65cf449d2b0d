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
	fl.BoolVar(&f.materialize, "materialize", false, `check out instances that name "repo": "MODULE@VERSION" from the Go module cache`)
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
		_, _, ok := f.llm.endpoint(g)
		if !ok {
			return usageErr(errors.New("eval --agent needs a model endpoint: set OPENAI_API_KEY and/or OPENAI_BASE_URL (or --base-url); without one, run eval without --agent to measure the offline pipeline"))
		}
		if _, err := f.llm.config(g); err != nil {
			return err
		}
		localize = f.llm.evalLocalizer(g)
	}
	in, err := os.Open(f.instances)
	if err != nil {
		return fmt.Errorf("open instances: %w", err)
	}
	insts, err := eval.LoadInstances(in)
	in.Close()
	if err != nil {
		return fmt.Errorf("%s: %w", f.instances, err)
	}
	dir, err := f.checkoutDir(ctx, g, insts)
	if err != nil {
		return err
	}
	rep, err := eval.Run(ctx, insts, eval.Options{
		Checkouts: dir,
		Baseline:  f.baseline,
		Agent:     localize,
		Prepare: func(ctx context.Context, root string) (graphdb.Reader, func() error, error) {
			return prepareCheckout(ctx, g, root, "")
		},
		Progress: evalProgress(g.stderr),
	})
	if err != nil {
		return err
	}
	if f.asJSON {
		if err := printJSON(g.stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprint(g.stdout, rep.Table())
	}
	return allFailed(rep)
}

// allFailed is the error of a run in which no instance could be localized
// at all (every checkout missing, every index failing): its figures are all
// misses and measure nothing, so the run fails (exit 1) after printing
// them, naming the first failure. Some failures among successes only count
// as misses.
func allFailed(rep eval.Report) error {
	failed, first := map[string]bool{}, ""
	for _, r := range rep.Results {
		if r.Error == "" {
			return nil
		}
		if len(failed) == 0 {
			first = r.ID + ": " + r.Error
		}
		failed[r.ID] = true
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("every instance failed (%d), so the figures above measure nothing; the first: %s", len(failed), first)
}

// checkoutDir returns the absolute checkouts directory, filled from the
// module cache first under --materialize.
func (f *evalFlags) checkoutDir(ctx context.Context, g *globals, insts []eval.Instance) (string, error) {
	dir, err := filepath.Abs(f.checkouts)
	if err != nil {
		return "", err
	}
	if f.materialize {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return "", err
		}
		n, err := eval.MaterializeCheckouts(ctx, insts, dir)
		if err != nil {
			return "", err
		}
		if n > 0 {
			fmt.Fprintf(g.stderr, "eval: checked out %d instance(s) into %s\n", n, dir)
		}
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return "", usageErr(fmt.Errorf("--checkouts %s is not a directory (create it, or pass --materialize for instances with a repo)", dir))
	}
	return dir, nil
}

// prepareCheckout indexes one checkout into its own embedded store and
// builds its retrieval index (workspace.Index, incremental on a second
// run); a checkout without source relay builds a graph for is searched
// over its empty graph.
func prepareCheckout(ctx context.Context, g *globals, root, goProxy string) (graphdb.Reader, func() error, error) {
	// The checkouts' stores are eval's own (<checkout>/.relay), whatever
	// --store, --state and --trust-store say.
	ws := workspace.New(g.wsOptions(root))
	// The agent's requests on this checkout pass the process-wide filter,
	// which learns its secret-file values first.
	if _, err := ws.SecretValues(); err != nil {
		return nil, nil, err
	}
	res, err := ws.Index(ctx, workspace.IndexOptions{GoProxy: goProxy, SearchWithoutGraph: true})
	if err != nil {
		return nil, nil, cliErr(err)
	}
	if res.NoGraph {
		g.log.Info("no code graph for this checkout; searching without it", "root", root)
	}
	// Without a graph the store holds no committed graph a reader could
	// open: the empty store is opened as the indexer left it.
	st, err := ws.OpenStore(ctx, res.NoGraph)
	if err != nil {
		return nil, nil, err
	}
	return st, st.Close, nil
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
