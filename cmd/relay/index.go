package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/workspace"
)

func init() { commands = append(commands, newIndexCmd) }

func newIndexCmd(g *globals) *cobra.Command {
	var full bool
	var maxErrors int
	var listTimeout time.Duration
	var goProxy string
	var b indexBudgets
	var ef embedFlags
	cmd := &cobra.Command{
		Use:   "index",
		Short: "Build or update the code graph of the repository",
		Long: `Index builds the code graph of the repository (--repo, default .) into the store
(--store, default <repo>/.relay) and the search index into the same directory (--state to put
it elsewhere). A second run re-indexes only the packages whose files changed. An interrupted
run (Ctrl-C) stops at once and leaves the previous graph intact; a second Ctrl-C exits without
waiting for the go command to stop. A search index that is damaged or from another relay
version is rebuilt. Files that are not regular (FIFOs, devices), symbolic links leading outside
the repository, link loops and paths too long to open are not indexed and are listed under
"Not indexed". The go command that lists Go packages never downloads a toolchain, never
fetches from version control and, unless --go-proxy allows a module proxy, never downloads a
module: imports resolve from the module cache. A module, package or file that cannot be loaded
(a go.mod the installed go refuses, a missing module, a package the type checker cannot
survive) is listed under "Errors" and indexed from syntax as far as it can be; everything else
is indexed and the exit status is 0. Each Python, TypeScript/JavaScript and Java file is held to budgets: a file over
--max-file-size or one that looks minified is not parsed (listed under "Not indexed"), and a
parse past --parse-timeout or a syntax tree nested deeper than --max-depth leaves the file
unextracted with an error naming the limit (Java files are held to the Java frontend's own
nesting limits instead of --max-depth); 0 takes a default, a negative value turns a limit off.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			// A --store or --state relay must not use is refused before
			// the graph is written, not after.
			if _, err := g.stateDir(root); err != nil {
				return err
			}
			emb, err := g.embedder(ef)
			if err != nil {
				return err
			}
			if goProxy == "" {
				goProxy = g.getenv("RELAY_GO_PROXY")
			}
			ctx, stop := g.interruptible(cmd.Context())
			defer stop()
			return g.indexRepo(ctx, root, indexRun{full: full, maxErrors: maxErrors, listTimeout: listTimeout, budgets: b, goProxy: goProxy, embedder: emb, out: g.stdout})
		},
	}
	ef.register(cmd.Flags())
	cmd.Flags().BoolVar(&full, "full", false, "re-index everything, ignoring content hashes")
	cmd.Flags().IntVar(&maxErrors, "max-errors", 20, "how many type-check errors and files not indexed to list (all are counted)")
	cmd.Flags().StringVar(&goProxy, "go-proxy", "", "GOPROXY the go command may download modules from while listing packages, such as https://proxy.golang.org (env RELAY_GO_PROXY); default off: the module cache only")
	cmd.Flags().DurationVar(&listTimeout, "list-timeout", index.DefaultListTimeout, "stop go list and fail when one runs longer than this (a blocking file it reads, a stuck download)")
	cmd.Flags().Int64Var(&b.maxFileBytes, "max-file-size", index.DefaultMaxFileBytes, "bytes: a larger Python, TypeScript/JavaScript or Java file, or a minified one, is not parsed, only listed (negative: parse every file)")
	cmd.Flags().IntVar(&b.maxDepth, "max-depth", index.DefaultMaxDepth, "syntax levels: a file nested deeper is not extracted, with an error (negative: no limit)")
	cmd.Flags().DurationVar(&b.parseTimeout, "parse-timeout", index.DefaultParseTimeout, "stop one file's parse after this long, with an error (negative: no limit)")
	return cmd
}

// indexBudgets are the per-file budgets of index.Options (0: the default).
type indexBudgets struct {
	maxFileBytes int64
	maxDepth     int
	parseTimeout time.Duration
}

// indexRun configures one indexRepo call.
type indexRun struct {
	full        bool
	maxErrors   int
	listTimeout time.Duration // 0: index.DefaultListTimeout
	goProxy     string        // index.Options.GoProxy
	budgets     indexBudgets
	embedder    retrieve.Embedder
	out         io.Writer // where the summary goes
}

// interruptible returns a context cancelled by the first SIGINT or
// SIGTERM. A second signal exits at once: the store's transaction was
// never committed (SQLite rolls it back), the search index is replaced
// only by rename, and the go command, which runs through index's shim,
// dies with relay.
func (g *globals) interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(g.stderr, "relay: interrupted again; exiting now (the previous index is intact)")
			os.Exit(130)
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel()
	}
}

// indexRepo indexes root (workspace.Index: the graph, then the search
// index) and prints a summary to r.out.
func (g *globals) indexRepo(ctx context.Context, root string, r indexRun) error {
	o, done := g.indexOptions(root, r)
	_, err := g.ws(root).Index(ctx, o)
	done()
	return cliErr(err)
}

// indexOptions are r as workspace.IndexOptions, with progress on stderr
// and the summaries on r.out; done clears the progress line where
// indexing failed before its summary.
func (g *globals) indexOptions(root string, r indexRun) (o workspace.IndexOptions, done func()) {
	prog := newProgress(g.stderr, isTerminal(g.stderr))
	var sum index.Summary
	text := summaryText(r.maxErrors)
	o = workspace.IndexOptions{
		Full: r.full, ListTimeout: r.listTimeout, GoProxy: r.goProxy, Embedder: r.embedder,
		MaxFileBytes: r.budgets.maxFileBytes, MaxDepth: r.budgets.maxDepth, ParseTimeout: r.budgets.parseTimeout,
		Progress: prog.update,
		Indexed: func(s index.Summary) {
			prog.done()
			sum = s
			text.Graph(r.out, root, s)
		},
		Built: func(bs retrieve.BuildStats) { text.Search(r.out, bs, sum.Notes) },
	}
	return o, prog.done
}

// progress renders index progress: one rewritten line on a terminal, one
// line per phase otherwise.
type progress struct {
	w     io.Writer
	tty   bool
	phase string
	start time.Time
	last  time.Time
	width int
}

func newProgress(w io.Writer, tty bool) *progress {
	return &progress{w: w, tty: tty, start: time.Now()}
}

func (p *progress) update(ev index.Progress) {
	if !p.tty {
		if ev.Phase != p.phase {
			p.phase = ev.Phase
			fmt.Fprintf(p.w, "index: %s (%.1fs)\n", ev.Phase, time.Since(p.start).Seconds())
		}
		return
	}
	now := time.Now()
	if ev.Phase == p.phase && now.Sub(p.last) < 50*time.Millisecond && ev.Done != ev.Total {
		return
	}
	p.phase, p.last = ev.Phase, now
	line := fmt.Sprintf("%s %d/%d %s", ev.Phase, ev.Done, ev.Total, ev.Item)
	if ev.Total == 0 {
		line = fmt.Sprintf("%s %s", ev.Phase, ev.Item)
	}
	if len(line) > 100 {
		line = line[:100]
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	p.width = len(line)
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
}

func (p *progress) done() {
	if p.tty && p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// summaryText writes the summaries of relay index, naming its flags.
func summaryText(maxErrors int) workspace.SummaryText {
	return workspace.SummaryText{MaxErrors: maxErrors, More: "--max-errors N to list more",
		Budgets: map[string]string{"MaxFileBytes": "--max-file-size", "MaxDepth": "--max-depth", "ParseTimeout": "--parse-timeout"}}
}
