package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

func init() { commands = append(commands, newBatchCmd) }

func newBatchCmd(g *globals) *cobra.Command {
	var (
		f           llmFlags
		in, outDir  string
		concurrency int
		queue       string
		maxAttempts int
	)
	cmd := &cobra.Command{
		Use:   "batch --in tickets.jsonl|tickets.csv --out DIR",
		Short: "Scope a backlog: one scoping report per ticket, resumable",
		Long: `Scope every ticket of a backlog file. Tickets have the fields id, title and body: one JSON
object per line (.jsonl) or a CSV file with a header row (.csv). Each ticket gets DIR/<id>.md and
DIR/<id>.json; a ticket whose two files exist is skipped, so re-running resumes an interrupted batch
(delete a ticket's files to redo it). A failing ticket does not stop the others: its error goes to
DIR/<id>.error. A summary table (id, status, tokens, time) ends the run. Budgets (--max-tokens,
--max-cost) apply to each ticket's run. The reports are made safe to post, as relay scope's are
(every text of the JSON included): scripts post them.

With --queue postgres://… the tickets are not scoped here: each is enqueued as a job on the queue
that relay serve and relay serve --worker processes share, and they post the report on the ticket's
issue. Each ticket then needs a ref field (column) naming its issue, e.g. github:acme/shop#42 or
jira:SHOP-7; a ticket whose issue already has a job queued or running joins it.`,
		Example: `  relay batch --in examples/tickets.jsonl --out reports/ --concurrency 2
  relay batch --in backlog.jsonl --queue postgres://relay@db/relay`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if queue != "" {
				return enqueueBatch(cmd.Context(), g, in, queue, outDir, maxAttempts)
			}
			if in == "" || outDir == "" {
				return usageErr(errors.New("batch needs --in FILE (.jsonl or .csv) and --out DIR"))
			}
			if concurrency < 1 {
				return usageErr(fmt.Errorf("--concurrency %d: want at least 1", concurrency))
			}
			tickets, err := readTickets(in)
			if err != nil {
				return err
			}
			for _, t := range tickets {
				if strings.TrimSpace(t.Title+t.Body) == "" {
					return fmt.Errorf("%s: ticket %q has neither title nor body (a ref alone is for batch --queue)", in, t.ID)
				}
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return fmt.Errorf("create --out directory: %w", err)
			}
			ctx := cmd.Context()
			scope, closeFn, err := batchScoper(ctx, g, &f, root)
			if err != nil {
				return err
			}
			defer closeFn()
			b := &workspace.Batch{Dir: outDir, Concurrency: concurrency, WriteFile: writeFileAtomic,
				Scope: func(ctx context.Context, t workspace.Ticket) (workspace.Outcome, error) {
					return scope(ctx, capIssue(g, "ticket "+t.ID, t.Issue()))
				},
				Fatal: func(err error) bool { return errors.Is(err, errNoEndpoint) },
				Logf: func(format string, args ...any) {
					fmt.Fprint(g.stderr, redact.Text(fmt.Sprintf("batch: "+format+"\n", args...)))
				},
			}
			results, runErr := b.Run(ctx, tickets)
			if errors.Is(runErr, errNoEndpoint) {
				return runErr
			}
			writeBatchSummary(g.stdout, results)
			if runErr != nil {
				return runErr
			}
			failed := 0
			for _, r := range results {
				if r.Status == "failed" {
					failed++
				}
			}
			if failed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d of %d tickets failed; their errors are in %s/<id>.error", failed, len(results), outDir)}
			}
			return nil
		},
	}
	f.register(cmd.Flags())
	cmd.Flags().StringVar(&in, "in", "", "backlog file: .jsonl (one {id, title, body} per line) or .csv (header id,title,body)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for the reports")
	cmd.Flags().IntVar(&concurrency, "concurrency", 2, "tickets scoped at once")
	cmd.Flags().StringVar(&queue, "queue", "", "enqueue the tickets on relay serve's PostgreSQL queue (postgres://…) instead of scoping them here; each ticket needs a ref (github:owner/name#42, gitlab:group/name#42 or jira:KEY-1) and relay serve workers post the reports")
	cmd.Flags().IntVar(&maxAttempts, "max-attempts", 5, "with --queue: attempts of each job before it finally fails")
	return cmd
}

type scopeFunc func(ctx context.Context, issue tracker.Text) (workspace.Outcome, error)

// batchScoper scopes one ticket (scopeIssue): with the agent, each run
// under --timeout, or else the offline report when no endpoint is configured.
func batchScoper(ctx context.Context, g *globals, f *llmFlags, root string) (scopeFunc, func(), error) {
	sess, err := f.newAgent(ctx, g, root, nil)
	offline := errors.Is(err, errNoEndpoint)
	if err != nil && !offline {
		return nil, nil, err
	}
	closeFn := func() {}
	if sess != nil {
		closeFn = func() { sess.Close() }
	}
	return func(ctx context.Context, issue tracker.Text) (workspace.Outcome, error) {
		if !offline {
			var cancel context.CancelFunc
			ctx, cancel = f.runContext(ctx)
			defer cancel()
		}
		sc, err := g.scopeIssue(ctx, root, sess, "", issue)
		switch {
		case err != nil:
			return workspace.Outcome{}, err
		case offline:
			return workspace.Outcome{Markdown: withHint(sc.Markdown), JSON: sc.JSON}, nil
		case sc.Empty():
			// Written out, the report would count as finished, and
			// resuming would never redo it.
			return workspace.Outcome{}, fmt.Errorf("the run stopped early (%s) before the model answered anything; no report was written (raise --timeout, --request-timeout or the budget, or check the model endpoint, then re-run to redo this ticket)", sc.Scoping.Stopped)
		}
		// The files get the report made safe to publish (relay scope's, the
		// bot's): scripts post them.
		return workspace.Outcome{Markdown: sc.Markdown, JSON: sc.JSON, Tokens: sc.Scoping.Usage.Tokens(), Stopped: sc.Scoping.Stopped}, nil
	}, closeFn, nil
}

func writeBatchSummary(w io.Writer, results []workspace.TicketResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tstatus\ttokens\ttime")
	counts := map[string]int{}
	for _, r := range results {
		counts[r.Status]++
		tokens, elapsed := "-", "-"
		if r.Status != "skipped" && r.Status != "cancelled" {
			tokens, elapsed = strconv.FormatInt(r.Tokens, 10), r.Elapsed.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Status, tokens, elapsed)
	}
	tw.Flush()
	var parts []string
	for _, s := range []string{"done", "stopped", "skipped", "failed", "cancelled"} {
		if counts[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", counts[s], s))
		}
	}
	fmt.Fprintf(w, "%d tickets: %s\n", len(results), strings.Join(parts, ", "))
}

// readTickets reads the backlog --in names (workspace.ReadTickets); a file
// of an unknown format is a usage error naming the flag.
func readTickets(in string) ([]workspace.Ticket, error) {
	ts, err := workspace.ReadTickets(in)
	if workspace.IsConfig(err) {
		return nil, usageErr(fmt.Errorf("--in %w", err))
	}
	return ts, err
}
