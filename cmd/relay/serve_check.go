package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// checkTimeout bounds each network check of --check-config.
const checkTimeout = serve.CheckTimeout

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
	if _, err := serveLLMFlags(g, cfg.Model); err != nil {
		errs = append(errs, fmt.Errorf("model: %w", err))
	} else if cfg.Model.Configured() {
		errs = append(errs, checkModel(ctx, g, cfg.Model))
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

// checkModel asks the model endpoint for its models list, or where it has
// none (404) for a one-token completion, with the configured key.
func checkModel(ctx context.Context, g *globals, m serve.ModelConfig) error {
	key := ""
	if m.APIKeyEnv != "" {
		key = g.getenv(m.APIKeyEnv)
	}
	c := agent.NewOpenAIClient(m.BaseURL, key, &http.Client{Timeout: checkTimeout})
	ctx, cancel := context.WithTimeout(ctx, checkTimeout)
	defer cancel()
	_, err := c.ListModels(ctx)
	if err != nil && status(err) == http.StatusNotFound && m.Model != "" {
		_, err = c.CreateChatCompletion(ctx, openai.ChatCompletionRequest{
			Model: m.Model, MaxCompletionTokens: 1, Messages: []openai.ChatCompletionMessage{{Role: openai.ChatMessageRoleUser, Content: "ping"}},
		})
	}
	if err == nil {
		return nil
	}
	endpoint := m.BaseURL
	if endpoint == "" {
		endpoint = "https://api.openai.com/v1"
	}
	hint := "check model.base_url and that the endpoint is up"
	if s := status(err); s == http.StatusUnauthorized || s == http.StatusForbidden {
		hint = fmt.Sprintf("the key was refused: check the key in %s", m.APIKeyEnv)
	}
	return fmt.Errorf("model endpoint %s does not answer: %w; %s", redact.URL(endpoint), redact.Error(err), hint)
}

// status is the HTTP status of a go-openai error, or 0.
func status(err error) int {
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &apiErr):
		return apiErr.HTTPStatusCode
	case errors.As(err, &reqErr):
		return reqErr.HTTPStatusCode
	}
	return 0
}
