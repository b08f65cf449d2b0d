package main

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// modelAPI is an httptest fake of an OpenAI-compatible endpoint: GET
// /v1/models (or 404 when noList) and POST /v1/chat/completions, with a key.
func modelAPI(t *testing.T, key string, noList bool) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+key {
			ghWrite(w, 401, map[string]any{"error": map[string]string{"message": "Incorrect API key provided", "type": "invalid_request_error"}})
			return
		}
		switch {
		case r.URL.Path == "/v1/models" && !noList:
			ghWrite(w, 200, map[string]any{"object": "list", "data": []any{map[string]string{"id": "gpt-4o-mini", "object": "model"}}})
		case r.URL.Path == "/v1/chat/completions":
			ghWrite(w, 200, map[string]any{"id": "c", "object": "chat.completion", "choices": []any{
				map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": "p"}, "finish_reason": "length"}}})
		default:
			ghWrite(w, 404, map[string]any{"error": map[string]string{"message": "not found"}})
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestServeCheckConfigContacts: --check-config proves the credentials with
// the real clients against fakes of GitHub, Jira and the model endpoint —
// one authenticated call each — checks the state directory and every
// range, masks a password in a remote or --queue URL, and exits non-zero
// naming each problem with what to do. It used to say OK to all of these.
func TestServeCheckConfigContacts(t *testing.T) {
	remote := serveGitRepo(t)
	gh := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	jira := newJiraAPI(t, "Basic "+base64.StdEncoding.EncodeToString([]byte("relay@example.com:jira-api-t0ken")))
	model := modelAPI(t, "sk-test-model-key", false)
	modelNoList := modelAPI(t, "sk-test-model-key", true)
	good := map[string]string{
		"RELAY_TEST_GH_SECRET": serveEnv["RELAY_TEST_GH_SECRET"], "RELAY_TEST_GH_TOKEN": serveEnv["RELAY_TEST_GH_TOKEN"],
		"RELAY_TEST_JIRA_TOKEN": "jira-api-t0ken", "RELAY_TEST_MODEL_KEY": "sk-test-model-key",
	}
	with := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range good {
			m[a] = b
		}
		m[k] = v
		return m
	}
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		edit   func(string) string
		env    map[string]string
		args   []string
		code   int
		want   []string
		absent []string
	}{
		{"ok", nil, good, nil, 0, []string{"configuration OK"}, nil},
		{"models list missing: one-token request", func(c string) string { return strings.Replace(c, model.URL, modelNoList.URL, 1) }, good, nil, 0, []string{"configuration OK"}, nil},
		{"github token refused", nil, with("RELAY_TEST_GH_TOKEN", "ghp_wrong"), nil, 1, []string{"github credentials (the token in RELAY_TEST_GH_TOKEN)", "the credentials were refused (401)"}, []string{"ghp_wrong"}},
		{"jira token refused", nil, with("RELAY_TEST_JIRA_TOKEN", "wrong"), nil, 1, []string{"jira credentials", "the credentials were refused"}, nil},
		{"model key refused", nil, with("RELAY_TEST_MODEL_KEY", "sk-wrong"), nil, 1, []string{"does not answer", "the key was refused: check the key in RELAY_TEST_MODEL_KEY"}, []string{"sk-wrong"}},
		{"state dir cannot be created", func(c string) string {
			return regexp.MustCompile(`state_dir: .*`).ReplaceAllLiteralString(c, "state_dir: "+filepath.Join(blocked, "state"))
		}, good, nil, 1, []string{"state_dir " + filepath.Join(blocked, "state") + " cannot be created"}, nil},
		{"negative and huge values", func(c string) string { return c + "git_timeout: -1s\nworkers: 100000\nmax_body_bytes: -1\n" }, good, nil, 1,
			[]string{"git_timeout: -1s is negative", "workers: 100000 is out of range", "max_body_bytes: -1 is out of range"}, nil},
		{"password in a remote", func(c string) string {
			return strings.Replace(c, "remote: "+remote, "remote: https://bot:hunter2@127.0.0.1:1/acme/sample.git", 1)
		}, good, nil, 1, []string{"the remote URL holds a password; use token_env"}, []string{"hunter2"}},
		{"--queue with a password", nil, good, []string{"--queue", "postgres://relay:s3cretpw@127.0.0.1:1/relay"}, 1, []string{"queue postgres://relay:***@127.0.0.1:1/relay"}, []string{"s3cretpw", "holds a password"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cfg := fmt.Sprintf(`state_dir: %s
github:
  webhook_secret_env: RELAY_TEST_GH_SECRET
  token_env: RELAY_TEST_GH_TOKEN
  bot_login: relay-bot
  base_url: %s
jira:
  base_url: %s
  cloud: true
  email: relay@example.com
  api_token_env: RELAY_TEST_JIRA_TOKEN
repositories:
  - github: acme/sample
    remote: %s
  - jira: SHOP
    remote: %s
model:
  base_url: %s/v1
  api_key_env: RELAY_TEST_MODEL_KEY
  model: gpt-4o-mini
`, filepath.Join(dir, "state"), gh.baseURL(), jira.srv.URL, remote, remote, model.URL)
			if tc.edit != nil {
				cfg = tc.edit(cfg)
			}
			p := filepath.Join(dir, "relay.yaml")
			if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			var out, errb bytes.Buffer
			args := append([]string{"serve", "--config", p, "--check-config"}, tc.args...)
			code := run(t.Context(), args, strings.NewReader(""), &out, &errb, func(k string) string { return tc.env[k] })
			all := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, s := range append(tc.absent, good["RELAY_TEST_GH_TOKEN"], good["RELAY_TEST_MODEL_KEY"], good["RELAY_TEST_JIRA_TOKEN"]) {
				if strings.Contains(all, s) {
					t.Errorf("output shows the secret %q:\n%s", s, all)
				}
			}
		})
	}
}

// With --queue, the effective configuration printed queue: "" (the file's
// value), as if the embedded queue would be used; it names the queue the
// flag gives, password masked.
func TestServeCheckConfigQueueFlag(t *testing.T) {
	remote := serveGitRepo(t)
	old := newServeTrackers
	newServeTrackers = func(cfg *serve.Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
		return map[string]tracker.Tracker{tracker.GitHub: &cmdTracker{}}, nil, nil
	}
	t.Cleanup(func() { newServeTrackers = old })
	p := writeServeConfig(t, remote, "")
	var out, errb bytes.Buffer
	args := []string{"serve", "--config", p, "--check-config", "--queue", "postgres://relay:pg-s3cret@127.0.0.1:1/relay?sslmode=disable"}
	code := run(t.Context(), args, strings.NewReader(""), &out, &errb, func(k string) string { return serveEnv[k] })
	all := out.String() + errb.String()
	if code != 1 {
		t.Errorf("exit %d, want 1 (nothing listens on port 1):\n%s", code, all)
	}
	if want := "queue (--queue): postgres://relay:***@127.0.0.1:1/relay?sslmode=disable"; !strings.Contains(out.String(), want) {
		t.Errorf("effective configuration lacks %q:\n%s", want, out.String())
	}
	if strings.Contains(all, "pg-s3cret") {
		t.Errorf("output shows the queue password:\n%s", all)
	}
}
