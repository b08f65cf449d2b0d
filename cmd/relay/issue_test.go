package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/relayhq/relay/tracker"
)

// trackerFake is a small httptest fake of the GitHub (Enterprise, /api/v3)
// and Jira Data Center (REST v2) issue and comment endpoints, holding issue
// 42 / SHOP-42 and the comments posted on it.
type trackerFake struct {
	srv *httptest.Server

	mu       sync.Mutex
	comments map[string]string // id → body
	order    []string
	edits    int
}

func newTrackerFake(t *testing.T) *trackerFake {
	f := &trackerFake{comments: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *trackerFake) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	auth := r.Header.Get("Authorization")
	if auth != "Bearer gh-test-token" && auth != "Bearer jira-test-pat" {
		reply(401, map[string]string{"message": "Bad credentials"})
		return
	}
	var req struct{ Body string }
	if r.Body != nil {
		_ = json.NewDecoder(r.Body).Decode(&req)
	}
	var list []any
	for _, id := range f.order {
		list = append(list, map[string]any{"id": json.Number(id), "body": f.comments[id], "user": map[string]string{"login": "relay-bot"},
			"author": map[string]string{"name": "relay-bot"}, "created": "2024-06-01T12:00:00.000+0000"})
	}
	add := func() string {
		id := fmt.Sprint(500 + len(f.order))
		f.order = append(f.order, id)
		f.comments[id] = req.Body
		return id
	}
	switch p := r.Method + " " + r.URL.Path; {
	case p == "GET /api/v3/repos/acme/shop/issues/42":
		reply(200, map[string]any{"number": 42, "title": "SMS sent twice", "body": "Customers get every SMS twice.",
			"html_url": "https://github.example/acme/shop/issues/42", "user": map[string]string{"login": "ada"}})
	case p == "GET /api/v3/repos/acme/shop/issues/42/comments":
		if list == nil {
			list = []any{}
		}
		reply(200, list)
	case p == "POST /api/v3/repos/acme/shop/issues/42/comments":
		reply(201, map[string]any{"id": json.Number(add())})
	case strings.HasPrefix(p, "PATCH /api/v3/repos/acme/shop/issues/comments/"):
		f.comments[strings.TrimPrefix(p, "PATCH /api/v3/repos/acme/shop/issues/comments/")] = req.Body
		f.edits++
		reply(200, map[string]any{"id": 1})
	case p == "GET /rest/api/2/issue/SHOP-42":
		reply(200, map[string]any{"key": "SHOP-42", "fields": map[string]any{"summary": "SMS sent twice",
			"description": "Customers get every *SMS* twice.", "reporter": map[string]string{"displayName": "Ada"}}})
	case p == "GET /rest/api/2/issue/SHOP-42/comment":
		reply(200, map[string]any{"startAt": 0, "total": len(list), "comments": list})
	case p == "POST /rest/api/2/issue/SHOP-42/comment":
		reply(201, map[string]any{"id": add()})
	case strings.HasPrefix(p, "PUT /rest/api/2/issue/SHOP-42/comment/"):
		f.comments[strings.TrimPrefix(p, "PUT /rest/api/2/issue/SHOP-42/comment/")] = req.Body
		f.edits++
		reply(200, map[string]any{})
	default:
		reply(404, map[string]string{"message": "Not Found: " + p})
	}
}

func (f *trackerFake) state() (bodies []string, edits int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range f.order {
		bodies = append(bodies, f.comments[id])
	}
	return bodies, f.edits
}

// TestScopeIssueGitHubPost: relay scope --issue github:… --post fetches the
// issue through the GitHub client, scopes it with the model, and posts the
// report; a second run finds that comment instead of adding one.
func TestScopeIssueGitHubPost(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	f := newTrackerFake(t)
	env := m.env("GITHUB_TOKEN", "gh-test-token", "GITHUB_API_URL", f.srv.URL+"/api/v3/")
	args := append([]string{"scope", "--repo", root, "--issue", "github:acme/shop#42", "--post"}, modelFlags...)
	for run := 1; run <= 2; run++ {
		code, out, errOut := relayAgent(t, env, "", args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d; stderr:\n%s", run, code, errOut)
		}
		if !strings.Contains(out, "# Scoping: SMS sent twice") {
			t.Errorf("run %d: the report does not scope the fetched issue:\n%s", run, out)
		}
		if !strings.Contains(errOut, "posted the report on github:acme/shop#42") || strings.Contains(errOut, "gh-test-token") {
			t.Errorf("run %d: stderr:\n%s", run, errOut)
		}
	}
	// The second run found its report and, the report being the same, left
	// it as it was: one comment, never a second.
	bodies, edits := f.state()
	if len(bodies) != 1 || edits != 0 {
		t.Fatalf("%d comments and %d edits after two identical runs, want 1 and 0", len(bodies), edits)
	}
	if !strings.Contains(bodies[0], "# Scoping: SMS sent twice") || !strings.HasSuffix(bodies[0], tracker.ReportMarker) {
		t.Errorf("posted body:\n%s", bodies[0])
	}
}

// TestScopeIssueJiraOffline: with no model the offline context report is
// posted on a Jira Data Center issue, in wiki markup, saying no model was used.
func TestScopeIssueJiraOffline(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	f := newTrackerFake(t)
	env := map[string]string{"JIRA_URL": f.srv.URL, "JIRA_PAT": "jira-test-pat"}
	var out, errb strings.Builder
	code := run(t.Context(), []string{"scope", "--repo", repo, "--issue", "jira:SHOP-42", "--post"}, strings.NewReader(""), &out, &errb,
		func(k string) string { return env[k] })
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, errb.String())
	}
	bodies, _ := f.state()
	if len(bodies) != 1 {
		t.Fatalf("%d comments, want 1", len(bodies))
	}
	for _, want := range []string{"h1. Context report (offline)", "No language model was used", "relay:report"} {
		if !strings.Contains(bodies[0], want) {
			t.Errorf("posted wiki body lacks %q:\n%.2000s", want, bodies[0])
		}
	}
}

func TestScopeIssueErrors(t *testing.T) {
	t.Parallel()
	root := agentRepo(t)
	f := newTrackerFake(t)
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string
	}{
		{"post without issue", nil, []string{"--post", "some text"}, 2, "--post needs --issue"},
		{"issue and text", nil, []string{"--issue", "github:a/b#1", "some text"}, 2, "not both"},
		{"bad reference", nil, []string{"--issue", "github:acme#1"}, 2, "not of the form github:owner/name#42"},
		{"no GitHub token", nil, []string{"--issue", "github:acme/shop#42"}, 1, "GITHUB_TOKEN is not set"},
		{"no Jira URL", nil, []string{"--issue", "jira:SHOP-42"}, 1, "JIRA_URL is not set"},
		{"no Jira credentials", map[string]string{"JIRA_URL": f.srv.URL}, []string{"--issue", "jira:SHOP-42"}, 1, "JIRA_PAT"},
		{"bad JIRA_CLOUD", map[string]string{"JIRA_URL": f.srv.URL, "JIRA_PAT": "x", "JIRA_CLOUD": "maybe"}, []string{"--issue", "jira:SHOP-42"}, 1, `JIRA_CLOUD="maybe"`},
		{"missing issue", map[string]string{"GITHUB_TOKEN": "gh-test-token", "GITHUB_API_URL": f.srv.URL + "/api/v3/"}, []string{"--issue", "github:acme/shop#7"}, 1, "not found"},
		{"refused token", map[string]string{"GITHUB_TOKEN": "gh-wrong-token", "GITHUB_API_URL": f.srv.URL + "/api/v3/"}, []string{"--issue", "github:acme/shop#42"}, 1, "credentials were refused"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var out, errb strings.Builder
			code := run(t.Context(), append([]string{"scope", "--repo", root}, tc.args...), strings.NewReader(""), &out, &errb,
				func(k string) string { return tc.env[k] })
			if code != tc.code || !strings.Contains(errb.String(), tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errb.String(), tc.code, tc.want)
			}
			if strings.Contains(errb.String(), "gh-wrong-token") {
				t.Errorf("stderr reveals the token: %s", errb.String())
			}
		})
	}
}

func TestScopeJiraCloudDetection(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url, flag string
		want      bool
	}{
		{"https://acme.atlassian.net", "", true},
		{"https://ACME.Atlassian.net/", "", true},
		{"https://jira.example.com", "", false},
		{"https://atlassian.net.example.com", "", false},
		{"https://jira.example.com", "true", true},
		{"https://acme.atlassian.net", "false", false},
	}
	for _, tc := range tests {
		got, err := jiraCloud(tc.url, tc.flag)
		if err != nil || got != tc.want {
			t.Errorf("jiraCloud(%q, %q) = %v, %v; want %v", tc.url, tc.flag, got, err, tc.want)
		}
	}
}
