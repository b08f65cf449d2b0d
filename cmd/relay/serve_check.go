package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/jira"
)

// checkTimeout bounds each network check of --check-config.
const checkTimeout = 30 * time.Second

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
	if _, err := botAgentConfig(cfg.Model, g.getenv); err != nil {
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
	errs = append(errs, checkTrackers(ctx, cfg, trackers)...)
	heads, remoteErrs := checkRemotes(ctx, g, cfg, trackers)
	errs = append(errs, remoteErrs...)
	qurl := f.queue
	if qurl == "" {
		qurl = cfg.QueueURL(g.getenv)
	}
	if qurl != "" {
		if err := pingPostgres(ctx, qurl); err != nil {
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

// checkRemotes asks every remote for its branch, in parallel, with the
// credentials the workers use; it returns the heads found.
func checkRemotes(ctx context.Context, g *globals, cfg *serve.Config, trackers map[string]tracker.Tracker) ([]string, []error) {
	m := serve.NewMirrors(os.TempDir(), checkTimeout, g.getenv, g.log)
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
	var errs []error
	for range cfg.Repositories {
		r := <-ch
		if r.err != nil {
			errs = append(errs, r.err)
		}
		heads[r.i] = r.sha
	}
	return heads, errs
}

// repoChecker is a tracker that can prove its credentials on a repository
// (tracker/github: GET /repos/{owner}/{repo}).
type repoChecker interface {
	CheckRepo(ctx context.Context, ref tracker.Ref) error
}

// checkTrackers makes one authenticated call per tracker: GitHub reads
// each configured repository, Jira reads the account it posts as.
func checkTrackers(ctx context.Context, cfg *serve.Config, trackers map[string]tracker.Tracker) []error {
	var errs []error
	if rc, ok := trackers[tracker.GitHub].(repoChecker); ok {
		for _, r := range cfg.Repositories {
			if r.GitHub == "" {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, checkTimeout)
			if err := rc.CheckRepo(cctx, tracker.Ref{Source: tracker.GitHub, Repo: r.GitHub}); err != nil {
				errs = append(errs, fmt.Errorf("github credentials (%s): %w", ghCredentialKeys(cfg.GitHub), err))
			}
			cancel()
		}
	}
	if jc, ok := trackers[tracker.Jira].(*jira.Client); ok {
		cctx, cancel := context.WithTimeout(ctx, checkTimeout)
		if _, err := jc.Myself(cctx); err != nil {
			errs = append(errs, fmt.Errorf("jira credentials (jira.email with api_token_env, or pat_env): %w", err))
		}
		cancel()
	}
	return errs
}

func ghCredentialKeys(g *serve.GitHubConfig) string {
	if g != nil && g.TokenEnv != "" {
		return "the token in " + g.TokenEnv
	}
	return "the app's app_id, private_key_env and installation_id"
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

// pingPostgres opens the queue database and closes it again.
func pingPostgres(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return redact.Error(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.Ping(ctx)
}

// servePermissions checks a Jira comment command's author against the
// configured project roles and groups, asking Jira.
func servePermissions(cfg *serve.Config, trackers map[string]tracker.Tracker) map[string]serve.PermissionCheck {
	jc, ok := trackers[tracker.Jira].(*jira.Client)
	if !ok || cfg.Jira == nil {
		return nil
	}
	access := jira.Access{Roles: cfg.Jira.CommandRoles, Groups: cfg.Jira.CommandGroups}
	return map[string]serve.PermissionCheck{
		tracker.Jira: func(ctx context.Context, t tracker.Trigger) (bool, error) {
			return jc.MayCommand(ctx, t.ActorID, t.Ref.Repo, access)
		},
	}
}
