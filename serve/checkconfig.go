package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"

	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tracker"
)

// ConfigCheck is what checking a configuration found: every problem (one
// line each, sorted, secrets masked) and, per repository of the file, the
// head of its branch ("" where the remote could not be reached).
type ConfigCheck struct {
	Problems []string
	Heads    []string
	// Installations describe a GitHub App's installations, one line each,
	// with the repositories served and those github.installations leaves
	// out (apps.go); nil without an App at organisation scale.
	Installations []string
}

// CheckOptions are what CheckConfig needs besides the configuration.
type CheckOptions struct {
	// Getenv reads the environment the configuration names secrets in.
	Getenv func(string) string
	// QueueURL overrides the file's queue ("": the file's, if any).
	QueueURL string
	// Trackers builds the trackers of cfg (nil: BuildTrackers; tests give
	// fakes).
	Trackers func(cfg *Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error)
	Log      *slog.Logger
}

// CheckConfig checks cfg as the bot would use it, and goes on past the
// first problem to list them all: the keys and ranges (Validate), the state
// directory, the model section and its endpoint, the trackers' credentials,
// each repository's remote and branch, and the queue.
func CheckConfig(ctx context.Context, cfg *Config, o CheckOptions) ConfigCheck {
	errs := []error{cfg.Validate(o.Getenv)}
	if err := cfg.CheckStateDir(); err != nil {
		errs = append(errs, err)
	}
	if _, err := AgentConfig(cfg.Model, o.Getenv); err != nil {
		errs = append(errs, fmt.Errorf("model: %w", err))
	} else if cfg.Model.Configured() {
		errs = append(errs, CheckModel(ctx, cfg.Model, o.Getenv))
	}
	var trackers map[string]tracker.Tracker
	if errors.Join(errs...) == nil {
		var err error
		build := o.Trackers
		if build == nil {
			build = BuildTrackers
		}
		if trackers, _, err = build(cfg, o.Getenv); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, CheckTrackers(ctx, cfg, trackers)...)
	heads, remoteErrs := CheckRemotes(ctx, cfg, trackers, o.Getenv, o.Log)
	errs = append(errs, remoteErrs...)
	insts, err := CheckInstallations(ctx, cfg, trackers)
	errs = append(errs, err)
	qurl := o.QueueURL
	if qurl == "" {
		qurl = cfg.QueueURL(o.Getenv)
	}
	if qurl != "" {
		if err := PingQueue(ctx, qurl); err != nil {
			errs = append(errs, fmt.Errorf("queue %s: %w; check the URL, that PostgreSQL is up and that the role may connect", Redact(qurl), err))
		}
	}
	c := ConfigCheck{Heads: heads, Installations: insts}
	if err := errors.Join(errs...); err != nil {
		for _, l := range strings.Split(redact.Text(err.Error()), "\n") {
			if l = strings.TrimSpace(l); l != "" {
				c.Problems = append(c.Problems, l)
			}
		}
		sort.Strings(c.Problems)
	}
	return c
}
