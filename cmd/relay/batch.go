package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/redact"
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
			b := &batch{g: g, dir: outDir, concurrency: concurrency, scope: scope}
			results, runErr := b.run(ctx, tickets)
			if errors.Is(runErr, errNoEndpoint) {
				return runErr
			}
			writeBatchSummary(g.stdout, results)
			if runErr != nil {
				return runErr
			}
			failed := 0
			for _, r := range results {
				if r.status == "failed" {
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
	cmd.Flags().StringVar(&queue, "queue", "", "enqueue the tickets on relay serve's PostgreSQL queue (postgres://…) instead of scoping them here; each ticket needs a ref (github:owner/name#42 or jira:KEY-1) and relay serve workers post the reports")
	cmd.Flags().IntVar(&maxAttempts, "max-attempts", 5, "with --queue: attempts of each job before it finally fails")
	return cmd
}

// ticket is one backlog entry.
type ticket struct {
	ID, Title, Body string
	// Ref is the tracker issue (github:owner/name#42, jira:KEY-1) a ticket
	// stands for; batch --queue needs it, plain batch ignores it.
	Ref string
}

func (t ticket) issue() string {
	if t.Title == "" {
		return t.Body
	}
	return "# " + t.Title + "\n\n" + t.Body
}

// scopeOutcome is one ticket's report.
type scopeOutcome struct {
	markdown string
	json     []byte
	tokens   int64
	stopped  string
}

type scopeFunc func(ctx context.Context, issue string) (scopeOutcome, error)

// batchScoper returns the agent pipeline, or the offline fallback when no
// endpoint is configured.
func batchScoper(ctx context.Context, g *globals, f *llmFlags, root string) (scopeFunc, func(), error) {
	sess, err := f.newAgent(ctx, g, root, nil)
	if errors.Is(err, errNoEndpoint) {
		return func(ctx context.Context, issue string) (scopeOutcome, error) {
			res, err := offlineFallback(ctx, g, root, "", "scope", issue)
			if err != nil {
				return scopeOutcome{}, err
			}
			return scopeOutcome{markdown: res.markdown, json: res.json}, nil
		}, func() {}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	return func(ctx context.Context, issue string) (scopeOutcome, error) {
		ctx, cancel := f.runContext(ctx)
		defer cancel()
		s, err := sess.runner.Scope(ctx, issue)
		err = sess.explain(err)
		if err != nil {
			return scopeOutcome{}, err
		}
		if err := gatheredSomething(s); err != nil {
			return scopeOutcome{}, err
		}
		// The files get the report made safe to publish (relay scope's, the
		// bot's): scripts post them.
		if err := g.ws(root).PublishScoping(g.log, "", s); err != nil {
			return scopeOutcome{}, err
		}
		js, err := scopingJSON(s)
		if err != nil {
			return scopeOutcome{}, err
		}
		return scopeOutcome{markdown: s.Markdown, json: js, tokens: s.Usage.Tokens(), stopped: s.Stopped}, nil
	}, func() { sess.Close() }, nil
}

// gatheredSomething refuses a run that stopped early (deadline, budget)
// before the model contributed anything: written out, its report would be
// empty yet count as finished, and resuming would never redo it.
func gatheredSomething(s *agent.Scoping) error {
	if s.Stopped == "" || s.Structured {
		return nil
	}
	for _, r := range s.Retrievals {
		if !r.Incomplete || r.ToolCalls > 0 {
			return nil
		}
	}
	return fmt.Errorf("the run stopped early (%s) before the model answered anything; no report was written (raise --timeout, --request-timeout or the budget, or check the model endpoint, then re-run to redo this ticket)", s.Stopped)
}

type batch struct {
	g           *globals
	dir         string
	concurrency int
	scope       scopeFunc
	mu          sync.Mutex // serialises progress lines
}

// ticketResult is one row of the summary.
type ticketResult struct {
	id      string
	status  string // done, stopped (done, but the budget or a deadline cut it short), skipped, failed, cancelled
	tokens  int64
	elapsed time.Duration
}

func (b *batch) run(ctx context.Context, tickets []ticket) ([]ticketResult, error) {
	results := make([]ticketResult, len(tickets))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(b.concurrency)
	for i, t := range tickets {
		results[i] = ticketResult{id: t.ID, status: "cancelled"}
		if b.finished(t.ID) {
			results[i].status = "skipped"
			continue
		}
		if gctx.Err() != nil {
			continue
		}
		g.Go(func() error {
			if gctx.Err() != nil {
				return nil
			}
			var err error
			results[i], err = b.one(gctx, t)
			return err
		})
	}
	if err := g.Wait(); err != nil {
		return results, err
	}
	if err := ctx.Err(); err != nil {
		return results, fmt.Errorf("batch interrupted; re-run the same command to resume: %w", err)
	}
	return results, nil
}

// finished reports whether a ticket already has both report files.
func (b *batch) finished(id string) bool {
	for _, ext := range []string{".md", ".json"} {
		if _, err := os.Stat(filepath.Join(b.dir, id+ext)); err != nil {
			return false
		}
	}
	return true
}

// one scopes a ticket. Its error is not the ticket's but the batch's: no
// endpoint is configured, so no ticket can be scoped.
func (b *batch) one(ctx context.Context, t ticket) (ticketResult, error) {
	start := time.Now()
	b.logf("%s: scoping", t.ID)
	res := ticketResult{id: t.ID}
	out, err := b.scope(ctx, capIssue(b.g, "ticket "+t.ID, t.issue()))
	if err == nil {
		// JSON last: the pair of files marks the ticket finished.
		err = errors.Join(writeFileAtomic(filepath.Join(b.dir, t.ID+".md"), []byte(out.markdown+"\n")),
			writeFileAtomic(filepath.Join(b.dir, t.ID+".json"), out.json))
	}
	res.elapsed, res.tokens = time.Since(start), out.tokens
	switch {
	case errors.Is(err, errNoEndpoint):
		res.status = "cancelled"
		return res, err
	case err != nil && ctx.Err() != nil:
		res.status = "cancelled"
		b.logf("%s: cancelled", t.ID)
	case err != nil:
		res.status = "failed"
		b.logf("%s: failed: %v", t.ID, err)
		if werr := writeFileAtomic(filepath.Join(b.dir, t.ID+".error"), []byte(redact.Text(err.Error())+"\n")); werr != nil {
			b.logf("%s: %v", t.ID, werr)
		}
	default:
		res.status = "done"
		if out.stopped != "" {
			res.status = "stopped"
		}
		os.Remove(filepath.Join(b.dir, t.ID+".error"))
		b.logf("%s: %s (%d tokens, %s)", t.ID, res.status, res.tokens, res.elapsed.Round(time.Millisecond))
	}
	return res, nil
}

func (b *batch) logf(format string, args ...any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprint(b.g.stderr, redact.Text(fmt.Sprintf("batch: "+format+"\n", args...)))
}

func writeBatchSummary(w io.Writer, results []ticketResult) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "id\tstatus\ttokens\ttime")
	counts := map[string]int{}
	for _, r := range results {
		counts[r.status]++
		tokens, elapsed := "-", "-"
		if r.status != "skipped" && r.status != "cancelled" {
			tokens, elapsed = formatTokens(r.tokens), r.elapsed.Round(time.Millisecond).String()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.id, r.status, tokens, elapsed)
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

var ticketIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// readTickets reads a backlog: .jsonl or .csv by extension.
func readTickets(path string) ([]ticket, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read tickets: %w", err)
	}
	defer f.Close()
	var ts []ticket
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		ts, err = readJSONL(f, path)
	case ".csv":
		ts, err = readCSV(f, path)
	default:
		return nil, usageErr(fmt.Errorf("--in %s: unknown format; name it .jsonl (one {\"id\",\"title\",\"body\"} object per line) or .csv (header id,title,body)", path))
	}
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range ts {
		if seen[t.ID] {
			return nil, fmt.Errorf("%s: ticket id %q appears twice; ids name the report files and must be unique", path, t.ID)
		}
		seen[t.ID] = true
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("%s holds no tickets", path)
	}
	return ts, nil
}

func checkTicket(t ticket, where string) error {
	if !ticketIDRE.MatchString(t.ID) {
		return fmt.Errorf("%s: ticket id %q must be 1-128 letters, digits, '.', '_' or '-' (it names the report files)", where, t.ID)
	}
	if strings.TrimSpace(t.Title+t.Body) == "" && t.Ref == "" {
		return fmt.Errorf("%s: ticket %q has neither title nor body", where, t.ID)
	}
	return nil
}

func readJSONL(r io.Reader, path string) ([]ticket, error) {
	var out []ticket
	// A bufio.Reader rather than a Scanner: a ticket may be one line of any
	// length (a pasted log); the whole file is held in memory anyway.
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		text, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("read %s:%d: %w", path, n, err)
		}
		if text == "" && err != nil {
			break
		}
		line := strings.TrimSpace(text)
		if line == "" {
			continue
		}
		var raw struct {
			ID    json.RawMessage `json:"id"`
			Title string          `json:"title"`
			Body  string          `json:"body"`
			Ref   string          `json:"ref"`
		}
		where := fmt.Sprintf("%s:%d", path, n)
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			return nil, fmt.Errorf("%s: not a JSON object with id, title and body: %v", where, err)
		}
		id := strings.Trim(string(raw.ID), `"`) // ids may be strings or numbers
		t := ticket{ID: id, Title: strings.TrimSpace(raw.Title), Body: strings.TrimSpace(raw.Body), Ref: strings.TrimSpace(raw.Ref)}
		if err := checkTicket(t, where); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func readCSV(r io.Reader, path string) ([]ticket, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: read CSV header: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	if _, ok := col["id"]; !ok {
		return nil, fmt.Errorf("%s: the CSV header %q has no id column; want id,title,body", path, strings.Join(header, ","))
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	var out []ticket
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		line, _ := cr.FieldPos(0)
		t := ticket{ID: get(rec, "id"), Title: get(rec, "title"), Body: get(rec, "body"), Ref: get(rec, "ref")}
		if err := checkTicket(t, fmt.Sprintf("%s:%d", path, line)); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
