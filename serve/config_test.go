package serve

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/redact"
)

// TestServeConfigSample loads examples/bot/relay.yaml: it must stay valid.
func TestServeConfigSample(t *testing.T) {
	f, err := os.Open("../examples/bot/relay.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := LoadConfig("relay.yaml", f)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, k := range []string{"RELAY_GITHUB_WEBHOOK_SECRET", "RELAY_GITHUB_TOKEN", "RELAY_JIRA_API_TOKEN", "RELAY_JIRA_WEBHOOK_SECRET", "OPENAI_API_KEY"} {
		env[k] = "x"
	}
	if err := c.Validate(func(k string) string { return env[k] }); err != nil {
		t.Fatalf("the sample configuration is invalid: %v", err)
	}
	if c.JobTimeout != 30*time.Minute || c.Workers != 4 || len(c.Repositories) != 2 || !c.Model.Configured() {
		t.Errorf("sample parsed wrong: %+v", c)
	}
}

func TestServeConfigErrors(t *testing.T) {
	base := "state_dir: /tmp/relay\ngithub:\n  webhook_secret_env: S\n  token_env: T\n  bot_login: bot\nrepositories:\n  - github: acme/a\n    remote: /tmp/a\n"
	env := map[string]string{"S": "s", "T": "t"}
	tests := []struct {
		name string
		yaml string
		env  map[string]string
		want []string // substrings of the error; none: valid
	}{
		{"valid", base, env, nil},
		{"unknown key", base + "wokers: 2\n", env, []string{`relay.yaml:9: unknown key "wokers"`}},
		{"unknown nested key", strings.Replace(base, "  token_env: T\n", "  token_env: T\n  secret: abc\n", 1), env, []string{`relay.yaml:5: unknown key "secret"`}},
		{"missing webhook secret", strings.Replace(base, "  webhook_secret_env: S\n", "", 1), env, []string{"github.webhook_secret_env is required"}},
		{"secret not set", base, map[string]string{"T": "t"}, []string{"github.webhook_secret_env: environment variable S is not set"}},
		{"secret in the file", strings.Replace(base, "webhook_secret_env: S", "webhook_secret_env: 'abc-123!'", 1), env, []string{"is not an environment variable name"}},
		{"password in queue", base + "queue: postgres://u:pw@db/relay\n", env, []string{"queue_url_env"}},
		{"rescue before timeout", base + "job_timeout: 10m\nrescue_after: 5m\n", env, []string{"rescue_after (5m0s) must be longer than job_timeout"}},
		{"bad repository", strings.Replace(base, "github: acme/a", "github: acme", 1), env, []string{`github "acme" is not owner/name`}},
		{"review on", base + "    review: true\n", env, nil},
		{"review on a jira entry", base + "  - jira: SHOP\n    remote: /tmp/a\n    review: true\n" +
			"jira:\n  base_url: https://x.atlassian.net\n  cloud: true\n  email: a@b\n  api_token_env: T\n  webhook_secret_env: S\n", env, []string{"review is for GitHub pull requests and GitLab merge requests; remove it from the jira entry SHOP"}},
		{"no state dir", strings.Replace(base, "state_dir: /tmp/relay\n", "", 1), env, []string{"state_dir is required"}},
		// Negative model settings passed --check-config and failed every
		// job with "--parallel … must be at least 1".
		{"negative model settings", base + "model:\n  parallel: -1\n  retries: -2\n  request_timeout: -1s\n  max_cost: -3\n", env, []string{
			"relay.yaml: model.parallel: -1 is negative; give a positive number, or leave it out for the default",
			"model.retries: -2 is negative", "model.request_timeout: -1s is negative", "model.max_cost: -3 is negative"}},
		// A YAML error without a line read "relay.yaml:yaml: control…".
		{"not YAML", "\x00\x01", env, []string{"relay.yaml: control characters are not allowed"}},
		// The hint was postgres://user@host/db, which relay's URL masking
		// printed as postgres://***@host/db.
		{"queue not postgres", base + "queue: mysql://db/x\n", env, []string{`queue "mysql://db/x": want a postgres:// URL such as postgres://db.example.com:5432/relay`}},
		// --check-config said OK to all of these.
		{"negative durations", base + "git_timeout: -1s\ndrain_timeout: -5s\nretry_backoff: -1m\nmax_body_bytes: -3\n", env, []string{
			"git_timeout: -1s is negative", "drain_timeout: -5s is negative", "retry_backoff: -1m0s is negative",
			"max_body_bytes: -3 is out of range"}},
		{"too many workers", base + "workers: 100000\n", env, []string{"workers: 100000 is out of range; give 1 to 256"}},
		{"negative workers", base + "workers: -2\nmax_attempts: -1\n", env, []string{"workers: -2 is out of range", "max_attempts: -1 is out of range"}},
		{"retry max below backoff", base + "retry_backoff: 10m\nretry_max: 1m\n", env, []string{"retry_max (1m0s) is shorter than retry_backoff (10m0s)"}},
		{"heartbeat too long", base + "heartbeat: 20m\n", env, []string{"heartbeat (20m0s) must be under a third of rescue_after"}},
		{"intake below body", base + "intake_bytes: 100\n", env, []string{"intake_bytes (100) is below max_body_bytes"}},
		{"negative limits", base + "limits:\n  author_per_hour: -1\n  cost_per_day: -2\n", env, []string{"limits.author_per_hour: -1 is negative", "limits.cost_per_day: -2 is negative"}},
		// Each job reserved 0, so running jobs passed the cap by their cost.
		{"cost cap without max_cost", base + "limits:\n  cost_per_hour: 5\nmodel:\n  base_url: http://127.0.0.1:1/v1\n", env, []string{
			"limits.cost_per_hour (5) caps the model cost but model.max_cost is not set", "set model.max_cost"}},
		{"status page", base + "status:\n  enabled: true\n  token_env: RELAY_STATUS_TOKEN\n", map[string]string{"S": "s", "T": "t", "RELAY_STATUS_TOKEN": "x"}, nil},
		{"status page without token", base + "status:\n  enabled: true\n  reports: 5000\n", env, []string{
			"status.token_env is required", "status.reports 5000: want 0 (the default, 20) to 1000"}},
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
				return
			}
			if err == nil {
				t.Fatalf("no error; want %q", tc.want)
			}
			for _, w := range tc.want {
				if !strings.Contains(redact.Text(err.Error()), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestServeConfigEffective(t *testing.T) {
	c, err := LoadConfig("relay.yaml", strings.NewReader("state_dir: /s\nqueue: postgres://u:pw@db/relay\nrepositories:\n  - github: a/b\n    remote: https://bot:hunter2@git.example.com/a/b.git\n"))
	if err != nil {
		t.Fatal(err)
	}
	out := c.Effective()
	if strings.Contains(out, "pw@") || strings.Contains(out, "hunter2") || !strings.Contains(out, "***") {
		t.Errorf("effective configuration shows the password:\n%s", out)
	}
	if diff := cmp.Diff([]string{"OWNER", "MEMBER", "COLLABORATOR"}, c.Triggers.Associations); diff != "" {
		t.Errorf("default associations (-want +got):\n%s", diff)
	}
}

// A negative max_body_bytes also made its derived intake_bytes negative,
// and --check-config printed a second, confusing problem about
// intake_bytes the operator never set.
func TestServeConfigBadBodyCapOneProblem(t *testing.T) {
	yaml := "state_dir: /tmp/relay\nmax_body_bytes: -5\ngithub:\n  webhook_secret_env: S\n  token_env: T\n  bot_login: bot\nrepositories:\n  - github: acme/a\n    remote: /tmp/a\n"
	c, err := LoadConfig("relay.yaml", strings.NewReader(yaml))
	if err != nil {
		t.Fatal(err)
	}
	err = c.Validate(func(k string) string { return map[string]string{"S": "s", "T": "t"}[k] })
	if err == nil || !strings.Contains(err.Error(), "max_body_bytes: -5 is out of range") {
		t.Fatalf("error %v; want max_body_bytes out of range", err)
	}
	if strings.Contains(err.Error(), "intake_bytes") {
		t.Errorf("error also blames intake_bytes, which the file does not set:\n%v", err)
	}
}
