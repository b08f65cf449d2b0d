package serve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

// The GitLab tests run the bot with the real GitLab client and webhook
// parser (BuildTrackers) against gitlabtest's fake REST API, with
// GitLab's published payloads (tracker/gitlab/testdata/webhooks).

const (
	glToken  = "glpat-serve-test-token"
	glSecret = "gl-webhook-secret-token"
)

var glBot = gitlabtest.User{ID: 900, Username: "project_1_bot_relay"}

// glEnv is the environment the GitLab configuration names its secrets in.
func glEnv(k string) string {
	return map[string]string{"GL_TOKEN": glToken, "GL_SECRET": glSecret}[k]
}

// glConfig is the test configuration with a gitlab section for the fake
// at apiURL and the given repositories, nothing else.
func glConfig(t testing.TB, apiURL string, repos ...Repository) *Config {
	t.Helper()
	cfg := testConfig(t, testRepos{})
	cfg.GitHub, cfg.Jira = nil, nil
	cfg.GitLab = &GitLabConfig{BaseURL: apiURL, TokenEnv: "GL_TOKEN", WebhookSecretEnv: "GL_SECRET", BotUsername: glBot.Username}
	cfg.Triggers.Labels = []string{"relay-scope"}
	cfg.Repositories = repos
	cfg.Heartbeat = 10 * time.Second // under a third of the test's rescue_after
	cfg.SetDefaults()
	if err := cfg.Validate(glEnv); err != nil {
		t.Fatalf("the GitLab test configuration is not valid: %v", err)
	}
	return cfg
}

// glExample reads one of GitLab's published payloads.
func glExample(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "tracker", "gitlab", "testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func glObj(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

// glDelivery is one GitLab delivery: its Hook name, the payload, its
// Idempotency-Key and the secret token it carries.
type glDelivery struct {
	Event, ID, Token string
	Payload          map[string]any
}

// request builds the delivery's POST to base's /webhooks/gitlab.
func (d glDelivery) request(t testing.TB, base string) *http.Request {
	body, err := json.Marshal(d.Payload)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, base+"/webhooks/gitlab", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gitlab-Event", d.Event)
	req.Header.Set("Idempotency-Key", d.ID)
	req.Header.Set("X-Gitlab-Event-UUID", "event-"+d.ID)
	if d.Token != "-" {
		req.Header.Set("X-Gitlab-Token", d.Token)
	}
	return req
}

// glOpened is the published Issue Hook payload for project's issue iid,
// opened by user 42.
func glOpened(t testing.TB, id, project string, iid int) glDelivery {
	p := glExample(t, "issue.json")
	glObj(p, "project")["path_with_namespace"] = project
	glObj(p, "object_attributes")["iid"] = iid
	glObj(p, "user")["id"], glObj(p, "user")["username"] = 42, "user1"
	return glDelivery{Event: "Issue Hook", ID: id, Token: glSecret, Payload: p}
}

// glLabeled is the published Issue Hook payload as an update that adds
// label.
func glLabeled(t testing.TB, id, project string, iid int, label string) glDelivery {
	d := glOpened(t, id, project, iid)
	glObj(d.Payload, "object_attributes")["action"] = "update"
	glObj(d.Payload, "changes")["labels"] = map[string]any{
		"previous": []any{map[string]any{"title": "API"}},
		"current":  []any{map[string]any{"title": "API"}, map[string]any{"title": label}},
	}
	return d
}

// glNote is the published Note Hook payload of a note on project's issue
// iid by user id.
func glNote(t testing.TB, id, project string, iid int, body string, user int) glDelivery {
	p := glExample(t, "note_issue.json")
	glObj(p, "project")["path_with_namespace"] = project
	glObj(p, "issue")["iid"] = iid
	glObj(p, "object_attributes")["note"] = body
	glObj(p, "user")["id"], glObj(p, "user")["username"] = user, fmt.Sprintf("user%d", user)
	return glDelivery{Event: "Note Hook", ID: id, Token: glSecret, Payload: p}
}

// post sends one delivery and returns its status and body.
func (d glDelivery) post(t testing.TB, base string) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(d.request(t, base))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// gitHTTPRemote serves the repository in dir over git's smart HTTP
// protocol (git http-backend through net/http/cgi), as GitLab does: a
// request without the token in HTTP basic auth is answered 401. It
// returns the remote URL and the count of authorized requests.
func gitHTTPRemote(t testing.TB, dir, token string) (string, *atomic.Int32) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	want := "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+token))
	var authorized atomic.Int32
	backend := &cgi.Handler{Path: git, Args: []string{"http-backend"}, Root: "/",
		Env: []string{"GIT_PROJECT_ROOT=" + filepath.Dir(dir), "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != want {
			w.Header().Set("WWW-Authenticate", `Basic realm="GitLab"`)
			http.Error(w, "HTTP Basic: Access denied", http.StatusUnauthorized)
			return
		}
		authorized.Add(1)
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/" + filepath.Base(dir) + "/.git", &authorized
}

// reportsOn counts the report versions (not the placeholder) of each bot
// note of an issue, and the bot's notes.
func reportsOn(api *gitlabtest.Fake, project string, iid int64) (notes, reports int) {
	for _, n := range api.Notes(project, iid) {
		if n.Author != glBot.Username {
			continue
		}
		notes++
		for _, v := range n.Versions {
			if strings.Contains(v, "Scoped by relay") || strings.HasPrefix(v, "report ") {
				reports++
			}
		}
	}
	return notes, reports
}

// idleQueue reports whether s's queue has no job waiting or running.
func idleQueue(t testing.TB, s *Service) bool {
	t.Helper()
	jobs, err := s.Queue().Jobs(t.Context(), rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRetryable,
		rivertype.JobStateRunning, rivertype.JobStateScheduled)
	if err != nil {
		t.Fatal(err)
	}
	return len(jobs) == 0
}
