package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
	"github.com/relayhq/relay/tracker/jira"
)

// issueFromTracker fetches the issue ref names (github:owner/name#42 or
// jira:KEY-123) through the tracker clients the bot uses, with credentials
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

// trackerFromEnv builds the client of source from the environment:
// GITHUB_TOKEN (and GITHUB_API_URL for GitHub Enterprise); JIRA_URL with
// JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PAT (Data Center), Cloud
// detected from an *.atlassian.net host unless JIRA_CLOUD says otherwise.
func trackerFromEnv(g *globals, source string) (tracker.Tracker, error) {
	env := func(k string) string { return strings.TrimSpace(g.getenv(k)) }
	switch source {
	case tracker.GitHub:
		tok := env("GITHUB_TOKEN")
		if tok == "" {
			return nil, errors.New("GITHUB_TOKEN is not set: export a token that can read the issue (and write comments, for --post)")
		}
		base := env("GITHUB_API_URL")
		if u, err := url.Parse(base); err == nil && strings.EqualFold(u.Host, "api.github.com") {
			base = "" // what GitHub Actions sets on github.com
		}
		t, err := github.New(github.Options{Token: tok, BaseURL: base})
		if err != nil {
			return nil, err
		}
		return tracker.Filtered(t, nil), nil // --post passes the egress filter
	case tracker.Jira:
		base := env("JIRA_URL")
		if base == "" {
			return nil, errors.New("JIRA_URL is not set: export the Jira site, e.g. https://acme.atlassian.net")
		}
		cloud, err := jiraCloud(base, env("JIRA_CLOUD"))
		if err != nil {
			return nil, err
		}
		t, err := jira.New(jira.Options{BaseURL: base, Cloud: cloud, Email: env("JIRA_EMAIL"), APIToken: env("JIRA_API_TOKEN"), PAT: env("JIRA_PAT")})
		if err != nil {
			return nil, err
		}
		return tracker.Filtered(t, nil), nil
	}
	return nil, fmt.Errorf("no tracker for source %q", source)
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
	u, err := url.Parse(base)
	if err != nil {
		return false, fmt.Errorf("JIRA_URL %q: %w", base, err)
	}
	host := strings.ToLower(u.Hostname())
	return strings.HasSuffix(host, ".atlassian.net"), nil
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
