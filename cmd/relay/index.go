package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/graphdb"
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
	o = workspace.IndexOptions{
		Full: r.full, ListTimeout: r.listTimeout, GoProxy: r.goProxy, Embedder: r.embedder,
		MaxFileBytes: r.budgets.maxFileBytes, MaxDepth: r.budgets.maxDepth, ParseTimeout: r.budgets.parseTimeout,
		Progress: prog.update,
		Indexed: func(s index.Summary) {
			prog.done()
			sum = s
			printSummary(r.out, root, s, r.maxErrors)
		},
		Built: func(bs retrieve.BuildStats) {
			printBuildStats(r.out, bs)
			printSearchSkipped(r.out, bs.Skipped, sum.Notes, r.maxErrors)
		},
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

func printSummary(w io.Writer, root string, s index.Summary, maxErrors int) {
	if s.Unchanged {
		fmt.Fprintf(w, "Index of %s is up to date (%d files checked in %s).\n", root, s.Files, s.Duration.Round(time.Millisecond))
	} else {
		fmt.Fprintf(w, "Indexed %s in %s: %d files (%d changed, %d deleted).\n",
			root, s.Duration.Round(time.Millisecond), s.Files, s.Changed, s.Deleted)
	}
	for _, l := range sortedLangs(s.Languages) {
		fmt.Fprintf(w, "%s: %d files, %d %s re-extracted.\n", l, s.Languages[l].Files, s.Languages[l].Units, s.Languages[l].Unit)
	}
	fmt.Fprintf(w, "Languages: %s\n", languagesLine(s))
	if n := s.Languages["Go"].SyntaxOnly; n > 0 {
		fmt.Fprintf(w, "Go: %d files outside every module (no go.mod above them) are indexed by syntax alone: no calls, types or implementations; add a go.mod (go mod init) to type-check them.\n", n)
	}
	fmt.Fprintf(w, "Nodes: %d (%s)\n", s.Stats.TotalNodes(), kindCounts(s.Stats.Nodes, graphdb.NodeKinds))
	fmt.Fprintf(w, "Edges: %d (%s)\n", s.Stats.TotalEdges(), kindCounts(s.Stats.Edges, graphdb.EdgeKinds))
	if len(s.Phases) > 0 {
		names := make([]string, 0, len(s.Phases))
		for n := range s.Phases {
			names = append(names, n)
		}
		sort.Strings(names)
		parts := make([]string, 0, len(names))
		for _, n := range names {
			parts = append(parts, fmt.Sprintf("%s %s", n, s.Phases[n].Round(time.Millisecond)))
		}
		fmt.Fprintf(w, "Time: %s\n", strings.Join(parts, ", "))
	}
	printNotes(w, s.Notes, maxErrors)
	if len(s.Errors) == 0 {
		fmt.Fprintln(w, "Errors: none")
		return
	}
	fmt.Fprintf(w, "Errors: %d (packages that failed to type-check are indexed as far as possible; modules go list refused and packages not type-checked, from syntax)\n", len(s.Errors))
	for i, d := range s.Errors {
		if i == maxErrors {
			fmt.Fprintf(w, "  … %d more (--max-errors N to list more)\n", len(s.Errors)-maxErrors)
			break
		}
		fmt.Fprintf(w, "  %s\n", errorLine(d))
	}
}

// errorLine renders one error: "pos: msg (package)", leaving out what
// is not known (a module go list refused has no package, a package not
// type-checked no position).
func errorLine(d index.Diagnostic) string {
	s := withFlag(d)
	if d.Pos != "" {
		s = d.Pos + ": " + s
	}
	if d.Package != "" {
		s += " (" + d.Package + ")"
	}
	return s
}

// printNotes lists the files and directories that were not indexed.
func printNotes(w io.Writer, notes []index.Diagnostic, max int) {
	if len(notes) == 0 {
		return
	}
	fmt.Fprintf(w, "Not indexed: %d (not regular files, links leading outside the repository, link loops, paths too long, languages this build cannot parse, files over the size limit or minified)\n", len(notes))
	for i, d := range notes {
		if i == max {
			fmt.Fprintf(w, "  … %d more (--max-errors N to list more)\n", len(notes)-max)
			break
		}
		if d.Pos == "" {
			fmt.Fprintf(w, "  %s\n", d.Msg) // a whole language this build cannot parse
			continue
		}
		fmt.Fprintf(w, "  %s: %s\n", d.Pos, withFlag(d))
	}
}

// budgetFlags are the flags of index.Options' per-file budgets, by the
// field name index.Diagnostic.Limit gives.
var budgetFlags = map[string]string{"MaxFileBytes": "--max-file-size", "MaxDepth": "--max-depth", "ParseTimeout": "--parse-timeout"}

// withFlag is d's message naming the flag that sets the budget it met,
// where the index names the Options field.
func withFlag(d index.Diagnostic) string {
	if f, ok := budgetFlags[d.Limit]; ok {
		return strings.ReplaceAll(d.Msg, "Options."+d.Limit, f)
	}
	return d.Msg
}

// kindCounts renders "function 12, type 3" in the order of kinds, skipping zeros.
func kindCounts[K ~string](m map[K]int, kinds []K) string {
	var parts []string
	for _, k := range kinds {
		if m[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// printSearchSkipped lists what the search index did not read, leaving out
// the paths the graph summary already listed.
func printSearchSkipped(w io.Writer, skipped []string, graphNotes []index.Diagnostic, max int) {
	seen := map[string]bool{}
	for _, n := range graphNotes {
		seen[n.Pos] = true
	}
	var rest []string
	for _, s := range skipped {
		if p, _, _ := strings.Cut(s, ": "); !seen[p] {
			rest = append(rest, s)
		}
	}
	if len(rest) == 0 {
		return
	}
	fmt.Fprintf(w, "Not in the search index: %d\n", len(rest))
	for i, s := range rest {
		if i == max {
			fmt.Fprintf(w, "  … %d more (--max-errors N to list more)\n", len(rest)-max)
			break
		}
		fmt.Fprintf(w, "  %s\n", s)
	}
}

func printBuildStats(w io.Writer, bs retrieve.BuildStats) {
	fmt.Fprintf(w, "Search index: %d chunks from %d files (%d changed, %d reused, %d removed) in %s",
		bs.Chunks, bs.Files, bs.Changed, bs.Reused, bs.Removed, bs.Duration.Round(time.Millisecond))
	if bs.Embedded+bs.EmbedCached > 0 {
		fmt.Fprintf(w, "; %d embeddings computed, %d cached", bs.Embedded, bs.EmbedCached)
	}
	fmt.Fprintln(w, ".")
}

func sortedLangs(m map[string]index.LanguageSummary) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// languagesLine lists the languages indexed, with their file counts.
func languagesLine(s index.Summary) string {
	var parts []string
	for _, l := range sortedLangs(s.Languages) {
		parts = append(parts, fmt.Sprintf("%s (%d files)", l, s.Languages[l].Files))
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
