package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/relayhq/relay/serve"
)

// checkServeConfig checks everything relay serve needs before it starts —
// the file's keys and value ranges, the secrets, the state directory, the
// queue, every git remote, the model endpoint and the trackers'
// credentials (one authenticated call each) — and prints the effective
// configuration with every secret masked. Any problem exits non-zero.
func checkServeConfig(ctx context.Context, g *globals, cfg *serve.Config, f serveFlags) error {
	c := serve.CheckConfig(ctx, cfg, serve.CheckOptions{Getenv: g.getenv, QueueURL: f.queue, Trackers: newServeTrackers, Log: g.log})
	heads := c.Heads
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
	if c.Installations != nil {
		fmt.Fprintln(g.stdout, "# github app installations:")
		for _, l := range c.Installations {
			fmt.Fprintf(g.stdout, "#   %s\n", l)
		}
	}
	if len(c.Problems) == 0 {
		fmt.Fprintln(g.stdout, "# configuration OK")
		return nil
	}
	return &exitError{code: 1, err: fmt.Errorf("the configuration has %d problem(s):\n  %s", len(c.Problems), strings.Join(c.Problems, "\n  "))}
}
