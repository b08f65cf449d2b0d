package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/spf13/cobra"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

func init() { commands = append(commands, newServeCmd) }

type serveFlags struct {
	config      string
	queue       string
	listen      string
	worker      bool
	checkConfig bool
}

func newServeCmd(g *globals) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve --config relay.yaml",
		Short: "Run the issue-scoping bot: GitHub and Jira webhooks, a durable job queue, workers",
		Long: `Serve runs the bot. It answers POST /webhooks/github and POST /webhooks/jira (202 once the
job is committed to the queue), GET /healthz, GET /readyz and GET /metrics (Prometheus), and its
workers scope each issue at the default branch head of its repository and post the report as one
comment that later runs edit in place.

The configuration is a YAML file (see examples/bot/relay.yaml and examples/bot/README.md); secrets
come only from the environment variables it names. The queue is embedded (SQLite under state_dir)
unless --queue (or queue / queue_url_env in the file) names a PostgreSQL database, which any number
of relay serve and relay serve --worker processes can share. SIGTERM drains: the listener closes,
running jobs get drain_timeout to finish and go back to the queue after it.`,
		Example: `  RELAY_GITHUB_WEBHOOK_SECRET=… RELAY_GITHUB_TOKEN=… relay serve --config relay.yaml
  relay serve --config relay.yaml --check-config
  relay serve --config relay.yaml --worker --queue postgres://relay@db/relay`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := loadServeConfig(g, f)
			if err != nil {
				return err
			}
			if f.worker && cfg.Queue == "" && cfg.QueueURLEnv == "" {
				// Nothing could ever enqueue: the embedded queue belongs
				// to the one relay serve process that takes the webhooks.
				return usageErr(errors.New("--worker drains a shared PostgreSQL queue: pass --queue postgres://… (or set queue in the file); with the embedded queue, run relay serve without --worker, which has its own workers"))
			}
			if f.checkConfig {
				return checkServeConfig(cmd.Context(), g, cfg, f)
			}
			if err := cfg.Validate(g.getenv); err != nil {
				return fmt.Errorf("%w\nrelay serve --check-config lists every problem", err)
			}
			return runServe(cmd.Context(), g, cfg, f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.config, "config", "", "the bot's configuration file (env RELAY_CONFIG)")
	fs.StringVar(&f.queue, "queue", "", "PostgreSQL queue URL postgres://… shared by several processes (default: the file's queue, else the embedded SQLite queue)")
	fs.StringVar(&f.listen, "listen", "", "HTTP address (default: the file's listen, else :8080)")
	fs.BoolVar(&f.worker, "worker", false, "run workers only, no HTTP listener (for processes draining a shared queue)")
	fs.BoolVar(&f.checkConfig, "check-config", false, "validate the configuration (keys, secrets, model settings, queue, git remotes), print it with secrets redacted, and exit")
	return cmd
}

func loadServeConfig(g *globals, f serveFlags) (*serve.Config, error) {
	path := f.config
	if path == "" {
		path = g.getenv("RELAY_CONFIG")
	}
	if path == "" {
		return nil, usageErr(errors.New("serve needs --config relay.yaml (see examples/bot/relay.yaml)"))
	}
	file, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read configuration: %w", err)
	}
	defer file.Close()
	cfg, err := serve.LoadConfig(path, file)
	if err != nil {
		return nil, err
	}
	if f.queue != "" {
		cfg.Queue, cfg.QueueURLEnv = f.queue, ""
	}
	if f.listen != "" {
		cfg.Listen = f.listen
	}
	return cfg, nil
}

// runServe wires the trackers, the pipeline and the queue, and runs until
// ctx ends (SIGTERM, interrupt).
func runServe(ctx context.Context, g *globals, cfg *serve.Config, f serveFlags) error {
	// relay.yaml's secret_files, with the command line's patterns added.
	secrets, err := cfg.SecretFiles.Policy(g.secretFiles, g.allowSecretFiles)
	if err != nil {
		return fmt.Errorf("secret_files: %w", err)
	}
	g.secrets = secrets
	trackers, parsers, err := newServeTrackers(cfg, g.getenv)
	if err != nil {
		return err
	}
	lf, err := serveLLMFlags(g, cfg.Model)
	if err != nil {
		return err
	}
	svc, err := serve.New(ctx, serve.Options{
		Config: cfg, Secret: g.getenv, Trackers: trackers, Parsers: parsers, Log: g.log,
		Scoper:  &serveScoper{g: g, f: lf, m: cfg.Model},
		Indexer: &serveIndexer{g: g},
	})
	if err != nil {
		return err
	}
	var l net.Listener
	if !f.worker {
		l, err = net.Listen("tcp", cfg.Listen)
		if err != nil {
			svc.Close()
			return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
		}
		fmt.Fprintf(g.stderr, "relay serve: listening on %s (queue: %s, %d workers)\n", l.Addr(), svc.Queue().Backend, cfg.Workers)
	} else {
		fmt.Fprintf(g.stderr, "relay serve: worker only (queue: %s, %d workers)\n", svc.Queue().Backend, cfg.Workers)
	}
	return svc.Run(ctx, l)
}

// checkServeConfig validates everything relay serve needs before it
// starts and prints the effective configuration.
func checkServeConfig(ctx context.Context, g *globals, cfg *serve.Config, f serveFlags) error {
	errs := []error{cfg.Validate(g.getenv)}
	if _, err := serveLLMFlags(g, cfg.Model); err != nil {
		errs = append(errs, fmt.Errorf("model: %w", err))
	}
	var trackers map[string]tracker.Tracker
	if errors.Join(errs...) == nil {
		var err error
		if trackers, _, err = newServeTrackers(cfg, g.getenv); err != nil {
			errs = append(errs, err)
		}
	}
	// Every remote must answer with its branch; the checks run in parallel
	// with a short deadline each, with the credentials the workers use.
	m := serve.NewMirrors(os.TempDir(), 30*time.Second, g.getenv, g.log)
	serve.UseGitCredentials(m, trackers)
	type res struct {
		i   int
		sha string
		err error
	}
	ch := make(chan res, len(cfg.Repositories))
	for i, r := range cfg.Repositories {
		go func() {
			sha, err := m.LsRemote(ctx, r)
			ch <- res{i, sha, err}
		}()
	}
	heads := make([]string, len(cfg.Repositories))
	for range cfg.Repositories {
		r := <-ch
		if r.err != nil {
			errs = append(errs, r.err)
		}
		heads[r.i] = r.sha
	}
	if u := cfg.QueueURL(g.getenv); u != "" {
		if err := pingPostgres(ctx, u); err != nil {
			errs = append(errs, fmt.Errorf("queue %s: %w", serve.Redact(u), err))
		}
	}
	fmt.Fprintf(g.stdout, "# effective configuration of %s (secrets are environment variable names; values are never printed)\n", f.config)
	fmt.Fprint(g.stdout, cfg.Effective())
	fmt.Fprintln(g.stdout, "# remotes:")
	for i, r := range cfg.Repositories {
		state := "unreachable"
		if heads[i] != "" {
			state = r.Branch + " at " + heads[i]
		}
		fmt.Fprintf(g.stdout, "#   %s -> %s: %s\n", r.Key(), r.Remote, state)
	}
	err := errors.Join(errs...)
	if err == nil {
		fmt.Fprintln(g.stdout, "# configuration OK")
		return nil
	}
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return &exitError{code: 1, err: fmt.Errorf("the configuration has %d problem(s):\n  %s", len(lines), strings.Join(lines, "\n  "))}
}

// pingPostgres opens the queue database and closes it again.
func pingPostgres(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.Ping(ctx)
}

// newServeTrackers builds the trackers and webhook parsers the
// configuration names. It is a variable so that tests can substitute
// fakes; serve_trackers.go sets it.
var newServeTrackers = func(cfg *serve.Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
	return buildTrackers(cfg, getenv)
}
