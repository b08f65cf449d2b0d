package main

import (
	"strings"
	"testing"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

// TestScopeIssueGitLabPost: relay scope --issue gitlab:… --post fetches
// the issue through the GitLab client (GITLAB_TOKEN, GITLAB_URL), scopes
// it with the model and posts the report as a note; a second run finds
// that note instead of adding one. Without GITLAB_TOKEN it says so.
func TestScopeIssueGitLabPost(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	f := gitlabtest.New(t, "glpat-test-token", gitlabtest.User{ID: 5, Username: "relay-bot"})
	f.AddProject("acme/platform/shop", 30)
	f.AddIssue("acme/platform/shop", 42, "SMS sent twice", "Customers get every SMS twice.")
	env := m.env("GITLAB_TOKEN", "glpat-test-token", "GITLAB_URL", f.URL())
	args := append([]string{"scope", "--repo", root, "--issue", "gitlab:acme/platform/shop#42", "--post"}, modelFlags...)
	for run := 1; run <= 2; run++ {
		code, out, errOut := relayAgent(t, env, "", args...)
		if code != 0 {
			t.Fatalf("run %d: exit %d; stderr:\n%s", run, code, errOut)
		}
		if !strings.Contains(out, "# Scoping: SMS sent twice") {
			t.Errorf("run %d: the report does not scope the fetched issue:\n%s", run, out)
		}
		if !strings.Contains(errOut, "posted the report on gitlab:acme/platform/shop#42") || strings.Contains(errOut, "glpat-test-token") {
			t.Errorf("run %d: stderr:\n%s", run, errOut)
		}
	}
	notes := f.Notes("acme/platform/shop", 42)
	if len(notes) != 1 || len(notes[0].Versions) != 1 {
		t.Fatalf("notes %+v after two identical runs, want one note never edited", notes)
	}
	if body := notes[0].Versions[0]; !strings.Contains(body, "# Scoping: SMS sent twice") || !strings.HasSuffix(body, tracker.ReportMarker) {
		t.Errorf("posted body:\n%s", body)
	}
	code, _, errOut := relayAgent(t, m.env("GITLAB_URL", f.URL()), "", args...)
	if code != 1 || !strings.Contains(errOut, "GITLAB_TOKEN is not set") {
		t.Errorf("without GITLAB_TOKEN: exit %d, stderr:\n%s", code, errOut)
	}
}
