package serve

import (
	"net/url"
	"strings"

	"github.com/relayhq/relay/tracker/gitlab"
)

// GitLabConfig connects to gitlab.com or a self-managed GitLab with a
// project access token or a bot user's personal access token.
type GitLabConfig struct {
	// BaseURL is the instance, e.g. https://gitlab.example.com; empty
	// means https://gitlab.com.
	BaseURL          string `yaml:"base_url"`
	TokenEnv         string `yaml:"token_env"`          // the token (scopes api, read_repository); required
	WebhookSecretEnv string `yaml:"webhook_secret_env"` // the webhook's secret token; required
	// BotUsername is the account the bot posts as: the project access
	// token's bot user (project_<id>_bot_…) or the bot user. Required: its
	// notes never trigger and the report note is found by it.
	BotUsername string `yaml:"bot_username"`
	// CommandMinAccess is the lowest role allowed to use a command word
	// (guest, planner, reporter, developer, maintainer, owner); default
	// developer. GitLab's note payload does not say, so the bot asks the
	// members API.
	CommandMinAccess string `yaml:"command_min_access"`
}

// DefaultCommandMinAccess is gitlab.command_min_access when it is not set.
const DefaultCommandMinAccess = "developer"

// MinAccess is the parsed command_min_access (Validate reports a bad one).
func (g *GitLabConfig) MinAccess() gitlab.AccessLevel {
	l, err := gitlab.ParseAccessLevel(g.CommandMinAccess)
	if err != nil {
		l, _ = gitlab.ParseAccessLevel(DefaultCommandMinAccess)
	}
	return l
}

func (g *GitLabConfig) setDefaults() {
	if g.CommandMinAccess == "" {
		g.CommandMinAccess = DefaultCommandMinAccess
	}
}

func (g *GitLabConfig) validate(v *validator) {
	v.secret("gitlab.webhook_secret_env", g.WebhookSecretEnv, true)
	v.secret("gitlab.token_env", g.TokenEnv, true)
	if g.BaseURL != "" {
		u, err := url.Parse(g.BaseURL)
		switch {
		case err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			v.bad("gitlab.base_url %q: want the instance's URL such as https://gitlab.example.com (or leave it out for gitlab.com)", Redact(g.BaseURL))
		case u.User != nil:
			v.bad("gitlab.base_url holds credentials; leave them out and put the token in the variable token_env names")
		}
	}
	if g.BotUsername == "" {
		v.bad("gitlab.bot_username is required: the account the bot posts as (a project access token's bot user, project_<id>_bot_…, or the bot user)")
	}
	if _, err := gitlab.ParseAccessLevel(g.CommandMinAccess); err != nil {
		v.bad("gitlab.command_min_access: %v", err)
	}
}

// gitlabPath reports whether p is a GitLab project path: a namespace
// (groups and subgroups) and a name, no empty segment.
func gitlabPath(p string) bool {
	segs := strings.Split(p, "/")
	if len(segs) < 2 {
		return false
	}
	for _, s := range segs {
		if s == "" || strings.ContainsAny(s, " \t#") {
			return false
		}
	}
	return true
}
