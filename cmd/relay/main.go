// Command relay answers questions about a codebase and scopes issues: it
// indexes a repository into a code graph, exposes grep/glob/read/graph tools
// to people (relay tool, relay graph), to other agents (relay mcp) and to its
// own planner/retriever agents (relay ask, scope, batch).
//
// This package owns the CLI: flags → config → wiring. It is the only place
// that reads environment variables. Each sub-command lives in its own file and
// registers itself in the commands list.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sort"

	"strconv"
	"syscall"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/egress"
)

// globals are the flags every sub-command shares.
type globals struct {
	repo     string // repository root (flag --repo, env RELAY_REPO, default ".")
	store    string // store location (flag --store, env RELAY_STORE, default <repo>/.relay)
	state    string // where relay's own files go (flag --state, env RELAY_STATE); see stateDir
	logLevel string
	stdout   io.Writer
	stderr   io.Writer
	stdin    io.Reader
	log      *slog.Logger
	getenv   func(string) string

	// secretFiles / allowSecretFiles extend and exempt the list of
	// secret-bearing files (flags --secret-files and --allow-secret-files,
	// env RELAY_SECRET_FILES and RELAY_ALLOW_SECRET_FILES); secrets is
	// the policy setup builds from them (internal/egress).
	secretFiles, allowSecretFiles []string
	secrets                       *egress.FilePolicy

	// trustStore believes an embedded store relay did not write for this
	// user (flag --trust-store, env RELAY_TRUST_STORE); see
	// workspace/storekey.go.
	trustStore bool

	// surface is who reads what relay says: the command line's user, or
	// the bot's (advice.go).
	surface advice.Surface

	wss workspaces // the workspace of each root, made on first use (workspace.go)
}

// commands are the sub-command constructors; each file appends its own in init.
var commands []func(g *globals) *cobra.Command

// exitError carries a process exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	// Started by the indexer as its go command shim, the binary supervises
	// go list and exits here (index.RunGoShim).
	index.RunGoShim()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run executes one relay invocation and returns the exit status: 0 success,
// 1 failure, 2 usage error.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	// Everything relay prints on stdout passes the egress filter.
	red := egress.NewWriter(stdout, nil)
	out := &outWriter{Writer: red, raw: stdout}
	g := &globals{stdout: out, stderr: stderr, stdin: stdin, getenv: getenv}
	root := newRoot(g)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(out)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	g.closeOffline()
	red.Flush() // an error sticks: out.failed reports it
	if err == nil {
		err = out.failed()
	}
	if err == nil {
		return 0
	}
	printError(stderr, err) // redacted, with the CLI's advice (advice.go)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if isUsage(err) {
		return 2
	}
	return 1
}

func newRoot(g *globals) *cobra.Command {
	root := &cobra.Command{
		Use:           "relay",
		Short:         "Answer questions about a codebase and scope issues",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			return g.setup()
		},
	}
	pf := root.PersistentFlags()
	pf.StringVar(&g.repo, "repo", "", "repository root (env RELAY_REPO; default .)")
	pf.StringVar(&g.store, "store", "", "graph store: a directory for the embedded store, or arangodb://… (env RELAY_STORE; default <repo>/.relay); relay's other files (search index, review feedback, transcripts, REPL history) go there too")
	pf.StringVar(&g.state, "state", "", "directory for the search index, review feedback, transcripts and REPL history (env RELAY_STATE; default the embedded store's directory, or <repo>/.relay with an arangodb:// store)")
	pf.BoolVar(&g.trustStore, "trust-store", false, "believe an embedded store relay did not write for this user (one shared on purpose; env RELAY_TRUST_STORE=1); relay index then seals it with this user's key")
	pf.StringVar(&g.logLevel, "log-level", "", "log level: debug, info, warn, error (env RELAY_LOG; default warn)")
	pf.StringSliceVar(&g.secretFiles, "secret-files", nil, "more secret-bearing files, .gitignore patterns, comma-separated: not indexed, refused by the tools (env RELAY_SECRET_FILES; added to the default list, see README)")
	pf.StringSliceVar(&g.allowSecretFiles, "allow-secret-files", nil, "secret-bearing files to index and read anyway, .gitignore patterns, comma-separated (env RELAY_ALLOW_SECRET_FILES)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return usageErr(fmt.Errorf("%w\nRun '%s --help' for usage", err, cmd.CommandPath()))
	})
	var cmds []*cobra.Command
	for _, c := range commands {
		cmds = append(cmds, c(g))
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	usageArgs(root)
	return root
}

// usageArgs makes every positional-argument check of cmd and its children
// fail as a usage error (exit status 2), like a bad flag.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return usageErr(fmt.Errorf("%w\nRun '%s --help' for usage", err, c.CommandPath()))
			}
			return nil
		}
	}
	for _, c := range cmd.Commands() {
		usageArgs(c)
	}
}

// setup applies environment defaults and installs the logger. Flags win over
// environment, environment over built-in defaults.
func (g *globals) setup() error {
	if g.repo == "" {
		g.repo = g.getenv("RELAY_REPO")
	}
	if g.repo == "" {
		g.repo = "."
	}
	if g.store == "" {
		g.store = g.getenv("RELAY_STORE")
	}
	if g.state == "" {
		g.state = g.getenv("RELAY_STATE")
	}
	if g.logLevel == "" {
		g.logLevel = g.getenv("RELAY_LOG")
	}
	if v := g.getenv("RELAY_TRUST_STORE"); v != "" && !g.trustStore {
		trust, err := strconv.ParseBool(v)
		if err != nil {
			return usageErr(fmt.Errorf("RELAY_TRUST_STORE=%q: want 1 or 0", v))
		}
		g.trustStore = trust
	}
	var level slog.Level
	switch g.logLevel {
	case "", "warn":
		level = slog.LevelWarn
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "error":
		level = slog.LevelError
	default:
		return usageErr(fmt.Errorf("unknown --log-level %q (want debug, info, warn or error)", g.logLevel))
	}
	if err := g.setupSecretFiles(); err != nil {
		return err
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(g.stderr, opts)
	if f, ok := g.stderr.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
		h = slog.NewTextHandler(g.stderr, opts)
	}
	// Log lines pass the egress filter (URL credentials included).
	g.log = slog.New(egress.Handler(h, nil))
	return nil
}

// setupSecretFiles builds the secret-bearing file policy from the flags,
// or the environment when a flag is not given.
func (g *globals) setupSecretFiles() error {
	list := func(flag []string, env string) []string {
		if len(flag) > 0 {
			return flag
		}
		return splitFlag(g.getenv(env))
	}
	g.secretFiles = list(g.secretFiles, "RELAY_SECRET_FILES")
	g.allowSecretFiles = list(g.allowSecretFiles, "RELAY_ALLOW_SECRET_FILES")
	p, err := egress.NewFilePolicy(nil, g.secretFiles, g.allowSecretFiles)
	if err != nil {
		return usageErr(fmt.Errorf("--secret-files / --allow-secret-files: %w", err))
	}
	g.secrets = p
	return nil
}

// repoRoot returns the absolute repository root, checking that it exists and
// is a directory.
func (g *globals) repoRoot() (string, error) {
	abs, err := filepath.Abs(g.repo)
	if err != nil {
		return "", fmt.Errorf("resolve --repo %q: %w", g.repo, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("repository %s does not exist; pass --repo DIR (or set RELAY_REPO) to point at a checkout", abs)
		}
		return "", fmt.Errorf("repository %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("repository %s is not a directory; pass --repo DIR", abs)
	}
	// The process-wide filter learns the checkout's secret-file values
	// before anything of it is read (workspace.SecretValues).
	if _, err := g.ws(abs).SecretValues(); err != nil {
		return "", err
	}
	return abs, nil
}

// outWriter is relay's standard output: everything written passes the
// egress filter (egress.Writer), whose first write error sticks, so that a
// command whose answer could not be written (a full disk, a closed file)
// fails with exit status 1 instead of 0 with the answer lost. (A closed
// pipe still ends relay with SIGPIPE, as for any Unix filter.) raw is the
// process's stdout.
type outWriter struct {
	*egress.Writer
	raw io.Writer
}

// flushOut writes out what the egress filter holds back of w (a line not
// yet ended, a private-key block not yet closed): at the end of each
// answer of the REPL.
func flushOut(w io.Writer) error {
	if o, ok := w.(*outWriter); ok {
		return o.Flush()
	}
	return nil
}

// terminal returns w's underlying stdout for a line editor, which draws
// its prompt and echo itself (what a person types is not relay's output).
func terminal(w io.Writer) io.Writer {
	if o, ok := w.(*outWriter); ok {
		return o.raw
	}
	return w
}

// failed returns the first write error, for the exit status.
func (o *outWriter) failed() error {
	if err := o.Err(); err != nil {
		return fmt.Errorf("write the output: %w", err)
	}
	return nil
}

// printJSON writes v to w as indented JSON, the form of every --json.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// isTerminal reports whether w is an interactive terminal.
func isTerminal(w io.Writer) bool {
	f, ok := terminal(w).(*os.File)
	return ok && isatty.IsTerminal(f.Fd())
}

type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// usageErr marks err as a usage error (exit status 2).
func usageErr(err error) error { return usageError{err} }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
