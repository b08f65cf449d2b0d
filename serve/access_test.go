package serve

import (
	"errors"
	"testing"

	"github.com/relayhq/relay/tracker"
)

// TestAccessTracker: a tracker without its credentials or site is refused
// with the sentinel the caller turns into its advice; with them, the
// client is built.
func TestAccessTracker(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		a       Access
		source  string
		wantErr error // nil: a client
	}{
		{"github without a token", Access{GitHubAPIURL: "https://api.github.com"}, tracker.GitHub, ErrNoGitHubToken},
		{"github.com", Access{GitHubToken: "t", GitHubAPIURL: "https://api.github.com"}, tracker.GitHub, nil},
		{"GitHub Enterprise", Access{GitHubToken: "t", GitHubAPIURL: "https://ghe.example.com/api/v3/"}, tracker.GitHub, nil},
		{"gitlab without a token", Access{GitLabURL: "https://gitlab.example.com"}, tracker.GitLab, ErrNoGitLabToken},
		{"gitlab.com", Access{GitLabToken: "glpat-x"}, tracker.GitLab, nil},
		{"self-managed GitLab", Access{GitLabToken: "glpat-x", GitLabURL: "https://gitlab.example.com"}, tracker.GitLab, nil},
		{"jira without a site", Access{JiraPAT: "p"}, tracker.Jira, ErrNoJiraSite},
		{"jira data center", Access{JiraURL: "https://jira.example.com", JiraPAT: "p"}, tracker.Jira, nil},
	}
	for _, tt := range tests {
		tr, err := tt.a.Tracker(tt.source)
		switch {
		case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
			t.Errorf("%s: %v; want %v", tt.name, err, tt.wantErr)
		case tt.wantErr == nil && (err != nil || tr == nil):
			t.Errorf("%s: %v, %v; want a client", tt.name, tr, err)
		}
	}
	if _, err := (Access{}).Tracker("bitbucket"); err == nil {
		t.Error("an unknown source: no error")
	}
}

// TestJiraCloudSite: a host under atlassian.net, in any case, is Jira
// Cloud; a look-alike is not.
func TestJiraCloudSite(t *testing.T) {
	t.Parallel()
	tests := []struct {
		url  string
		want bool
	}{
		{"https://acme.atlassian.net", true},
		{"https://ACME.Atlassian.net/", true},
		{"https://jira.example.com", false},
		{"https://atlassian.net.example.com", false},
	}
	for _, tt := range tests {
		if got, err := JiraCloudSite(tt.url); err != nil || got != tt.want {
			t.Errorf("JiraCloudSite(%q) = %v, %v; want %v", tt.url, got, err, tt.want)
		}
	}
	if _, err := JiraCloudSite("https://bad host\x7f"); err == nil {
		t.Error("an unparsable site: no error")
	}
}
