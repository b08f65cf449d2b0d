package serve

import (
	"fmt"
	"net/http"
	"time"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
	"github.com/relayhq/relay/tracker/gitlab"
	"github.com/relayhq/relay/tracker/jira"
)

// BuildTrackers connects the GitHub, GitLab and Jira trackers and webhook
// parsers the configuration names (tracker/github, tracker/gitlab,
// tracker/jira). The secrets come
// from the environment variables the configuration names; none is kept
// beyond the clients that need it.
func BuildTrackers(cfg *Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
	trackers, parsers := map[string]tracker.Tracker{}, map[string]tracker.WebhookParser{}
	hc := &http.Client{Timeout: 30 * time.Second}
	if g := cfg.GitHub; g != nil {
		secret := getenv(g.WebhookSecretEnv)
		if secret == "" {
			return nil, nil, fmt.Errorf("github: %s is not set; relay refuses to accept unsigned GitHub deliveries", g.WebhookSecretEnv)
		}
		o := github.Options{BaseURL: g.BaseURL, UploadURL: g.UploadURL, AppID: g.AppID, InstallationID: g.InstallationID, BotLogin: g.BotLogin, HTTPClient: hc}
		if g.TokenEnv != "" {
			o.Token = getenv(g.TokenEnv)
		}
		if g.PrivateKeyEnv != "" {
			o.PrivateKeyPEM = []byte(getenv(g.PrivateKeyEnv))
		}
		t, err := github.New(o)
		if err != nil {
			return nil, nil, fmt.Errorf("github: %w", err)
		}
		wh, err := github.NewWebhook([]byte(secret), cfg.Rules(g.BotLogin))
		if err != nil {
			return nil, nil, err
		}
		trackers[tracker.GitHub], parsers[tracker.GitHub] = t, wh
	}
	if g := cfg.GitLab; g != nil {
		t, wh, err := buildGitLab(cfg, g, getenv, hc)
		if err != nil {
			return nil, nil, err
		}
		trackers[tracker.GitLab], parsers[tracker.GitLab] = t, wh
	}
	if j := cfg.Jira; j != nil {
		o := jira.Options{BaseURL: j.BaseURL, Cloud: j.Cloud, Email: j.Email, BotAccount: j.BotAccount, HTTPClient: hc}
		if j.APITokenEnv != "" {
			o.APIToken = getenv(j.APITokenEnv)
		}
		if j.PATEnv != "" {
			o.PAT = getenv(j.PATEnv)
		}
		t, err := jira.New(o)
		if err != nil {
			return nil, nil, fmt.Errorf("jira: %w", err)
		}
		var secret []byte
		if j.WebhookSecretEnv != "" {
			if secret = []byte(getenv(j.WebhookSecretEnv)); len(secret) == 0 {
				return nil, nil, fmt.Errorf("jira: %s is not set; unset webhook_secret_env to accept unsigned Jira deliveries", j.WebhookSecretEnv)
			}
		}
		wh, err := jira.NewWebhook(secret, cfg.Rules(j.BotAccount))
		if err != nil {
			return nil, nil, err
		}
		trackers[tracker.Jira], parsers[tracker.Jira] = t, wh
	}
	return trackers, parsers, nil
}

// buildGitLab connects the GitLab tracker and its webhook parser.
func buildGitLab(cfg *Config, g *GitLabConfig, getenv func(string) string, hc *http.Client) (*gitlab.Client, *gitlab.Webhook, error) {
	secret := getenv(g.WebhookSecretEnv)
	if secret == "" {
		return nil, nil, fmt.Errorf("gitlab: %s is not set; relay refuses GitLab deliveries without the webhook's secret token", g.WebhookSecretEnv)
	}
	t, err := gitlab.New(gitlab.Options{BaseURL: g.BaseURL, Token: getenv(g.TokenEnv), BotUsername: g.BotUsername, HTTPClient: hc})
	if err != nil {
		return nil, nil, err
	}
	wh, err := gitlab.NewWebhook([]byte(secret), cfg.Rules(g.BotUsername))
	if err != nil {
		return nil, nil, err
	}
	return t, wh, nil
}
