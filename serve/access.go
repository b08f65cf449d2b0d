package serve

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
	"github.com/relayhq/relay/tracker/gitlab"
	"github.com/relayhq/relay/tracker/jira"
)

// Access is how to reach one issue's tracker without the bot's
// configuration (relay scope --issue … --post): the same clients as the
// bot's (BuildTrackers), from credentials the caller read.
type Access struct {
	// GitHubToken is a token that can read the issue (and write comments,
	// to post); GitHubAPIURL the REST API root of GitHub Enterprise
	// Server, or "" (and api.github.com) for github.com.
	GitHubToken, GitHubAPIURL string
	// GitLabToken is a token that can read the issue (and write notes, to
	// post); GitLabURL the self-managed instance, or "" for gitlab.com.
	GitLabToken, GitLabURL string
	// JiraURL is the Jira site; JiraCloud says whether it is Jira Cloud
	// (see JiraCloudSite). Cloud signs in with JiraEmail and JiraAPIToken,
	// Data Center with JiraPAT.
	JiraURL                          string
	JiraCloud                        bool
	JiraEmail, JiraAPIToken, JiraPAT string
}

var (
	// ErrNoGitHubToken is Tracker's error for GitHub without a token.
	ErrNoGitHubToken = errors.New("no GitHub token")
	// ErrNoGitLabToken is Tracker's error for GitLab without a token.
	ErrNoGitLabToken = errors.New("no GitLab token")
	// ErrNoJiraSite is Tracker's error for Jira without a site.
	ErrNoJiraSite = errors.New("no Jira site")
)

// Tracker is the client of source (tracker.GitHub, tracker.GitLab,
// tracker.Jira); what
// it posts passes the process-wide egress filter (tracker.Filtered).
func (a Access) Tracker(source string) (tracker.Tracker, error) {
	var (
		t   tracker.Tracker
		err error
	)
	switch source {
	case tracker.GitHub:
		if a.GitHubToken == "" {
			return nil, ErrNoGitHubToken
		}
		base := a.GitHubAPIURL
		if u, err := url.Parse(base); err == nil && strings.EqualFold(u.Host, "api.github.com") {
			base = "" // what GitHub Actions sets on github.com
		}
		t, err = github.New(github.Options{Token: a.GitHubToken, BaseURL: base})
	case tracker.GitLab:
		if a.GitLabToken == "" {
			return nil, ErrNoGitLabToken
		}
		t, err = gitlab.New(gitlab.Options{Token: a.GitLabToken, BaseURL: a.GitLabURL})
	case tracker.Jira:
		if a.JiraURL == "" {
			return nil, ErrNoJiraSite
		}
		t, err = jira.New(jira.Options{BaseURL: a.JiraURL, Cloud: a.JiraCloud, Email: a.JiraEmail, APIToken: a.JiraAPIToken, PAT: a.JiraPAT})
	default:
		return nil, fmt.Errorf("no tracker for source %q", source)
	}
	if err != nil {
		return nil, err
	}
	return tracker.Filtered(t, nil), nil
}

// JiraCloudSite says whether the Jira site base is Jira Cloud: a host
// under atlassian.net.
func JiraCloudSite(base string) (bool, error) {
	u, err := url.Parse(base)
	if err != nil {
		return false, err
	}
	return strings.HasSuffix(strings.ToLower(u.Hostname()), ".atlassian.net"), nil
}
