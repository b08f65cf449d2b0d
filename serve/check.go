package serve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/redact"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab"
	"github.com/relayhq/relay/tracker/jira"
)

// CheckTimeout bounds each network check of relay serve --check-config.
const CheckTimeout = 30 * time.Second

// CheckRemotes asks every remote for its branch, in parallel, with the
// credentials the workers use (secret reads the environment); it returns
// the heads found, "" for a remote that did not answer.
func CheckRemotes(ctx context.Context, cfg *Config, trackers map[string]tracker.Tracker, secret func(string) string, log *slog.Logger) ([]string, []error) {
	m := NewMirrors(os.TempDir(), CheckTimeout, secret, log)
	UseGitCredentials(m, trackers)
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

// CheckTrackers makes one authenticated call per tracker: GitHub reads
// each configured repository, GitLab the token's user, each configured
// project and the user's role in it, Jira the account it posts as.
func CheckTrackers(ctx context.Context, cfg *Config, trackers map[string]tracker.Tracker) []error {
	var errs []error
	if rc, ok := trackers[tracker.GitHub].(repoChecker); ok {
		for _, r := range cfg.Repositories {
			if r.GitHub == "" {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
			if err := rc.CheckRepo(cctx, tracker.Ref{Source: tracker.GitHub, Repo: r.GitHub}); err != nil {
				errs = append(errs, fmt.Errorf("github credentials (%s): %w", ghCredentialKeys(cfg.GitHub), err))
			}
			cancel()
		}
	}
	if gc, ok := trackers[tracker.GitLab].(*gitlab.Client); ok {
		for _, r := range cfg.Repositories {
			if r.GitLab == "" {
				continue
			}
			cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
			if err := gc.CheckProject(cctx, r.GitLab); err != nil {
				errs = append(errs, fmt.Errorf("gitlab credentials (the token in %s, gitlab.base_url): %w", cfg.GitLab.TokenEnv, err))
			}
			cancel()
		}
	}
	if jc, ok := trackers[tracker.Jira].(*jira.Client); ok {
		cctx, cancel := context.WithTimeout(ctx, CheckTimeout)
		if _, err := jc.Myself(cctx); err != nil {
			errs = append(errs, fmt.Errorf("jira credentials (jira.email with api_token_env, or pat_env): %w", err))
		}
		cancel()
	}
	return errs
}

func ghCredentialKeys(g *GitHubConfig) string {
	if g != nil && g.TokenEnv != "" {
		return "the token in " + g.TokenEnv
	}
	return "the app's app_id, private_key_env and installation_id"
}

// PingQueue opens the PostgreSQL queue database at url and closes it
// again.
func PingQueue(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return redact.Error(err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	return conn.Ping(ctx)
}

// Permissions checks a comment command's author: on Jira against the
// configured project roles and groups, on GitLab against
// gitlab.command_min_access, asking the tracker.
func Permissions(cfg *Config, trackers map[string]tracker.Tracker) map[string]PermissionCheck {
	checks := map[string]PermissionCheck{}
	if jc, ok := trackers[tracker.Jira].(*jira.Client); ok && cfg.Jira != nil {
		access := jira.Access{Roles: cfg.Jira.CommandRoles, Groups: cfg.Jira.CommandGroups}
		checks[tracker.Jira] = func(ctx context.Context, t tracker.Trigger) (bool, error) {
			return jc.MayCommand(ctx, t.ActorID, t.Ref.Repo, access)
		}
	}
	if gc, ok := trackers[tracker.GitLab].(*gitlab.Client); ok && cfg.GitLab != nil {
		min := cfg.GitLab.MinAccess()
		checks[tracker.GitLab] = func(ctx context.Context, t tracker.Trigger) (bool, error) {
			return gc.MayCommand(ctx, t.Ref.Repo, t.ActorID, min)
		}
	}
	if len(checks) == 0 {
		return nil
	}
	return checks
}

// CheckModel asks the model endpoint for its models list, or where it has
// none (404) for a one-token completion, with the configured key (read by
// secret from the variable api_key_env names).
func CheckModel(ctx context.Context, m ModelConfig, secret func(string) string) error {
	key := ""
	if m.APIKeyEnv != "" {
		key = secret(m.APIKeyEnv)
	}
	c := agent.NewOpenAIClient(m.BaseURL, key, &http.Client{Timeout: CheckTimeout})
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
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
