package main

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// checkServeConfig checks everything relay serve needs before it starts —
// the file's keys and value ranges, the secrets, the state directory, the
// queue, every git remote, the model endpoint and the trackers'
// credentials (one authenticated call each) — and prints the effective
// configuration with every secret masked. Any problem exits non-zero.
func checkServeConfig(ctx context.Context, g *globals, cfg *serve.Config, f serveFlags) error {
	errs := []error{cfg.Validate(g.getenv)}
	if err := cfg.CheckStateDir(); err != nil {
		errs = append(errs, err)
	}
	if _, err := serve.AgentConfig(cfg.Model, g.getenv); err != nil {
		errs = append(errs, fmt.Errorf("model: %w", err))
	} else if cfg.Model.Configured() {
		errs = append(errs, serve.CheckModel(ctx, cfg.Model, g.getenv))
	}
	var trackers map[string]tracker.Tracker
	if errors.Join(errs...) == nil {
		var err error
		if trackers, _, err = newServeTrackers(cfg, g.getenv); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, serve.CheckTrackers(ctx, cfg, trackers)...)
	heads, remoteErrs := serve.CheckRemotes(ctx, cfg, trackers, g.getenv, g.log)
	errs = append(errs, remoteErrs...)
	qurl := f.queue
	if qurl == "" {
		qurl = cfg.QueueURL(g.getenv)
	}
	if qurl != "" {
		if err := serve.PingQueue(ctx, qurl); err != nil {
			errs = append(errs, fmt.Errorf("queue %s: %w; check the URL, that PostgreSQL is up and that the role may connect", serve.Redact(qurl), err))
		}
	}
	fmt.Fprintf(g.stdout, "# effective configuration of %s (secrets are environment variable names; values are never printed)\n", f.config)
	fmt.Fprint(g.stdout, cfg.Effective())
	if f.queue != "" {
		// The flag overrides the file's queue, which Effective prints.
		fmt.Fprintf(g.stdout, "# queue (--queue): %s\n", serve.Redact(f.queue))
	}
	fmt.Fprintln(g.stdout, "# remotes:")
	for i, r := range cfg.Repositories {
		state := "unreachable"
		if heads[i] != "" {
			state = r.Branch + " at " + heads[i]
		}
		fmt.Fprintf(g.stdout, "#   %s -> %s: %s\n", r.Key(), serve.Redact(r.Remote), state)
	}
	err := errors.Join(errs...)
	if err == nil {
		fmt.Fprintln(g.stdout, "# configuration OK")
		return nil
	}
	var lines []string
	for _, l := range strings.Split(redact.Text(err.Error()), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	sort.Strings(lines)
	return &exitError{code: 1, err: fmt.Errorf("the configuration has %d problem(s):\n  %s", len(lines), strings.Join(lines, "\n  "))}
}
