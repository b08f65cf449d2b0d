package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// issueFromTracker fetches the issue ref names (github:owner/name#42,
// gitlab:group/name#42 or jira:KEY-123) through the tracker clients the bot uses, with credentials
// from the environment, and returns the tracker too for --post.
func issueFromTracker(ctx context.Context, g *globals, ref string) (tracker.Issue, tracker.Tracker, error) {
	r, err := tracker.ParseRef(ref)
	if err != nil {
		return tracker.Issue{}, nil, usageErr(fmt.Errorf("--issue: %w", err))
	}
	tr, err := trackerFromEnv(g, r.Source)
	if err != nil {
		return tracker.Issue{}, nil, err
	}
	issue, err := tr.Fetch(ctx, r)
	if err != nil {
		return tracker.Issue{}, nil, fmt.Errorf("fetch %s: %w", r, err)
	}
	return issue, tr, nil
}

// trackerFromEnv builds the client of source (serve.Access) from the
// environment: GITHUB_TOKEN (and GITHUB_API_URL for GitHub Enterprise);
// GITLAB_TOKEN (and GITLAB_URL, or GitLab CI's CI_SERVER_URL, for a
// self-managed GitLab);
// JIRA_URL with JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PAT (Data
// Center), Cloud detected from an *.atlassian.net host unless JIRA_CLOUD
// says otherwise.
func trackerFromEnv(g *globals, source string) (tracker.Tracker, error) {
	env := func(k string) string { return strings.TrimSpace(g.getenv(k)) }
	a := serve.Access{GitHubToken: env("GITHUB_TOKEN"), GitHubAPIURL: env("GITHUB_API_URL"),
		GitLabToken: env("GITLAB_TOKEN"), GitLabURL: cmp.Or(env("GITLAB_URL"), env("CI_SERVER_URL")),
		JiraURL: env("JIRA_URL"), JiraEmail: env("JIRA_EMAIL"), JiraAPIToken: env("JIRA_API_TOKEN"), JiraPAT: env("JIRA_PAT")}
	if source == tracker.Jira && a.JiraURL != "" {
		var err error
		if a.JiraCloud, err = jiraCloud(a.JiraURL, env("JIRA_CLOUD")); err != nil {
			return nil, err
		}
	}
	tr, err := a.Tracker(source)
	switch {
	case errors.Is(err, serve.ErrNoGitHubToken):
		return nil, errors.New("GITHUB_TOKEN is not set: export a token that can read the issue (and write comments, for --post)")
	case errors.Is(err, serve.ErrNoGitLabToken):
		return nil, errors.New("GITLAB_TOKEN is not set: export a token (scope api) that can read the issue (and write notes, for --post)")
	case errors.Is(err, serve.ErrNoJiraSite):
		return nil, errors.New("JIRA_URL is not set: export the Jira site, e.g. https://acme.atlassian.net")
	}
	return tr, err
}

// jiraCloud decides between Jira Cloud and Data Center: JIRA_CLOUD when set,
// else whether the site is on atlassian.net.
func jiraCloud(base, flag string) (bool, error) {
	if flag != "" {
		b, err := strconv.ParseBool(flag)
		if err != nil {
			return false, fmt.Errorf("JIRA_CLOUD=%q: want true or false", flag)
		}
		return b, nil
	}
	cloud, err := serve.JiraCloudSite(base)
	if err != nil {
		return false, fmt.Errorf("JIRA_URL %q: %w", base, err)
	}
	return cloud, nil
}

// postReport posts or updates the issue's report comment with the body the
// bot would post (serve.ReportBody, naming the commit checked out at root:
// workspace.Head),
// and says where on stderr.
func postReport(ctx context.Context, g *globals, tr tracker.Tracker, issue tracker.Issue, root, markdown string, model bool) error {
	commit, branch := g.ws(root).Head(ctx)
	id, err := tr.UpsertReport(ctx, issue.Ref, serve.ReportBody(markdown, model, commit, branch))
	if err != nil {
		return fmt.Errorf("post the report on %s: %w", issue.Ref, err)
	}
	fmt.Fprintf(g.stderr, "posted the report on %s (comment %s) %s\n", issue.Ref, id, issue.URL)
	return nil
}
