package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"

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
			if f.queue != "" {
				// The URL may carry a password: it comes from the command
				// line (or a secret store through it), never the file.
				if err := serve.CheckQueueURL(f.queue); err != nil {
					return usageErr(fmt.Errorf("--queue %q: %w, the queue relay batch --queue takes", serve.Redact(f.queue), err))
				}
			}
			if f.worker && f.queue == "" && cfg.Queue == "" && cfg.QueueURLEnv == "" {
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
	fs.StringVar(&f.queue, "queue", "", "PostgreSQL queue URL postgres://… shared by several processes, password allowed (never printed), as relay batch --queue takes it (default: the file's queue, else the embedded SQLite queue)")
	fs.StringVar(&f.listen, "listen", "", "HTTP address (default: the file's listen, else :8080)")
	fs.BoolVar(&f.worker, "worker", false, "run workers only, no HTTP listener (for processes draining a shared queue)")
	fs.BoolVar(&f.checkConfig, "check-config", false, "check the configuration (keys, value ranges, secrets, the state directory, the queue, git remotes, the model endpoint, the GitHub and Jira credentials), print it with secrets masked, and exit non-zero on any problem")
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
	// The bot indexes and scopes each job through workspace, with the
	// model of relay.yaml (serve.AgentConfig) or the offline report.
	pipe, err := serve.NewPipeline(cfg, g.getenv, g.keyFile(), g.secrets, g.log)
	if err != nil {
		return err
	}
	svc, err := serve.New(ctx, serve.Options{
		Config: cfg, QueueURL: f.queue, Secret: g.getenv, Trackers: trackers, Parsers: parsers, Log: g.log,
		Permissions: serve.Permissions(cfg, trackers),
		Scoper:      pipe,
		Indexer:     pipe,
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

// newServeTrackers builds the trackers and webhook parsers the
// configuration names. It is a variable so that tests can substitute
// fakes; serve_trackers.go sets it.
var newServeTrackers = func(cfg *serve.Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
	return serve.BuildTrackers(cfg, getenv)
}
