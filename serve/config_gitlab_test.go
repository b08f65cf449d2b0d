package serve

import (
	"strings"
	"testing"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

func TestServeConfigGitLab(t *testing.T) {
	base := "state_dir: /tmp/relay\ngitlab:\n  base_url: https://gitlab.example.com\n  token_env: GT\n  webhook_secret_env: GS\n  bot_username: project_7_bot_x\nrepositories:\n  - gitlab: acme/platform/shop\n    remote: https://gitlab.example.com/acme/platform/shop.git\n"
	env := map[string]string{"GT": "glpat-x", "GS": "s"}
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string // substrings of the error; none: valid
	}{
		{"valid", base, env, nil},
		{"gitlab.com", strings.Replace(base, "  base_url: https://gitlab.example.com\n", "", 1), env, nil},
		{"no token", strings.Replace(base, "  token_env: GT\n", "", 1), env, []string{"gitlab.token_env is required"}},
		{"token not set", base, map[string]string{"GS": "s"}, []string{"gitlab.token_env: environment variable GT is not set"}},
		{"no secret", strings.Replace(base, "  webhook_secret_env: GS\n", "", 1), env, []string{"gitlab.webhook_secret_env is required"}},
		{"no bot", strings.Replace(base, "  bot_username: project_7_bot_x\n", "", 1), env, []string{"gitlab.bot_username is required"}},
		{"bad base_url", strings.Replace(base, "https://gitlab.example.com\n", "gitlab.example.com\n", 1), env, []string{`gitlab.base_url "gitlab.example.com": want the instance's URL`}},
		{"credentials in base_url", strings.Replace(base, "https://gitlab.example.com\n", "https://bot:glpat-secret@gitlab.example.com\n", 1), env, []string{"gitlab.base_url holds credentials"}},
		{"bad role", base[:strings.Index(base, "repositories:")] + "  command_min_access: admin\n" + base[strings.Index(base, "repositories:"):], env,
			[]string{`gitlab.command_min_access: "admin" is not a GitLab role; give one of guest, planner, reporter, developer, maintainer, owner`}},
		{"not a path", strings.Replace(base, "gitlab: acme/platform/shop", "gitlab: shop", 1), env, []string{`gitlab "shop" is not a project path`}},
		{"two trackers", strings.Replace(base, "  - gitlab: acme/platform/shop\n", "  - gitlab: acme/platform/shop\n    jira: SHOP\n", 1), env, []string{"set exactly one of github (owner/name), gitlab (group/name) and jira"}},
		{"no gitlab section", "state_dir: /tmp/relay\ngithub:\n  webhook_secret_env: GS\n  token_env: GT\n  bot_login: b\nrepositories:\n  - gitlab: acme/shop\n    remote: /tmp/a\n", env, []string{"gitlab project acme/shop but no gitlab section"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := LoadConfig("relay.yaml", strings.NewReader(tc.yaml))
			if err == nil {
				err = c.Validate(func(k string) string { return tc.env[k] })
			}
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if c.GitLab.CommandMinAccess != "developer" {
					t.Errorf("command_min_access defaults to %q, want developer", c.GitLab.CommandMinAccess)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestServeCheckConfigGitLab: --check-config proves the GitLab token on
// each project and reaches the remote with it, and says what is wrong
// when the token is refused, the bot is not a member, or bot_username is
// another account than the token's.
func TestServeCheckConfigGitLab(t *testing.T) {
	needGit(t)
	dir, head := gitRepo(t, nil)
	remote, _ := gitHTTPRemote(t, dir, glToken)
	tests := []struct {
		name  string
		level int // the bot's role on the project; 0: no member
		edit  func(c *Config)
		want  []string // problems; none: the check passes
	}{
		{"ok", 30, nil, nil},
		{"bad token", 30, func(c *Config) { c.GitLab.TokenEnv = "GL_WRONG" }, []string{"the token in GL_WRONG", "token was refused (401)"}},
		{"not a member", 0, nil, []string{"project_1_bot_relay is not a member of acme/shop"}},
		{"guest", 10, nil, []string{"has the guest role on acme/shop; it needs Reporter"}},
		{"other bot", 30, func(c *Config) { c.GitLab.BotUsername = "relay-bot" }, []string{"set bot_username to project_1_bot_relay"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			api := gitlabtest.New(t, glToken, glBot)
			api.AddProject("acme/shop", tc.level)
			cfg := glConfig(t, api.URL(), Repository{GitLab: "acme/shop", Remote: remote})
			if tc.edit != nil {
				tc.edit(cfg)
			}
			env := func(k string) string {
				if k == "GL_WRONG" {
					return "glpat-wrong"
				}
				return glEnv(k)
			}
			got := CheckConfig(t.Context(), cfg, CheckOptions{Getenv: env})
			joined := strings.Join(got.Problems, "\n")
			if len(tc.want) == 0 && len(got.Problems) > 0 {
				t.Fatalf("problems:\n%s", joined)
			}
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("problems lack %q:\n%s", w, joined)
				}
			}
			if strings.Contains(joined, glToken) || strings.Contains(joined, "glpat-wrong") {
				t.Errorf("a token appears in the problems:\n%s", joined)
			}
			if tc.name != "bad token" && (len(got.Heads) != 1 || got.Heads[0] != head) {
				t.Errorf("remote heads %v, want [%s]: the remote is read with the GitLab token", got.Heads, head)
			}
		})
	}
}

// TestServeGitLabKeyNormalized: GitLab ignores the case of project paths,
// so Acme/Shop#7 and acme/shop#7 are one job.
func TestServeGitLabKeyNormalized(t *testing.T) {
	got := NormalizeRef(tracker.Ref{Source: tracker.GitLab, Repo: "Acme/Platform/Shop", Number: "7"})
	if got.Key() != "gitlab:acme/platform/shop#7" {
		t.Errorf("key %s", got.Key())
	}
}
