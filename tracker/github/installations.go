package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v92/github"

	"github.com/relayhq/relay/tracker"
)

// AppRepo is one repository a GitHub App installation can see.
type AppRepo struct {
	Installation  int64
	FullName      string // owner/name
	DefaultBranch string
	CloneURL      string // https URL git fetches with the installation token
	Topics        []string
	Archived      bool
}

// Installation is one installation of the App with its repositories.
type Installation struct {
	ID      int64
	Account string // the organisation or user it is installed on
	Repos   []AppRepo
}

// Installations lists every installation of the App (GET
// /app/installations, as the App) and each one's repositories (GET
// /installation/repositories, as the installation), all pages.
func (c *Client) Installations(ctx context.Context) ([]Installation, error) {
	if c.app == nil {
		return nil, errors.New("github: listing installations needs a GitHub App (app_id and private key), not a token")
	}
	var out []Installation
	opts := &gh.ListOptions{PerPage: 100}
	for {
		page, resp, err := c.app.api.Apps.ListInstallations(ctx, opts)
		if err != nil {
			return nil, mapError("list the GitHub App's installations", err)
		}
		for _, in := range page {
			repos, err := c.InstallationRepos(ctx, in.GetID())
			if err != nil {
				return nil, err
			}
			out = append(out, Installation{ID: in.GetID(), Account: in.GetAccount().GetLogin(), Repos: repos})
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// InstallationRepos lists the repositories installation id can see.
func (c *Client) InstallationRepos(ctx context.Context, id int64) ([]AppRepo, error) {
	inst, err := c.ForInstallation(id)
	if err != nil {
		return nil, err
	}
	var out []AppRepo
	opts := &gh.ListOptions{PerPage: 100}
	for {
		page, resp, err := inst.api.Apps.ListRepos(ctx, opts)
		if err != nil {
			return nil, mapError(fmt.Sprintf("list the repositories of GitHub App installation %d", id), err)
		}
		for _, r := range page.Repositories {
			out = append(out, appRepo(id, r))
		}
		if resp.NextPage == 0 {
			return out, nil
		}
		opts.Page = resp.NextPage
	}
}

// InstallationRepo reads one repository as installation id: the
// installation events name repositories without their branch or topics.
func (c *Client) InstallationRepo(ctx context.Context, id int64, fullName string) (AppRepo, error) {
	owner, name, ok := strings.Cut(fullName, "/")
	if !ok || owner == "" || name == "" {
		return AppRepo{}, fmt.Errorf("github: %q is not owner/name", fullName)
	}
	inst, err := c.ForInstallation(id)
	if err != nil {
		return AppRepo{}, err
	}
	r, _, err := inst.api.Repositories.Get(ctx, owner, name)
	if err != nil {
		return AppRepo{}, mapError("read repository "+fullName+" as installation", err)
	}
	return appRepo(id, r), nil
}

func appRepo(id int64, r *gh.Repository) AppRepo {
	return AppRepo{
		Installation: id, FullName: r.GetFullName(), DefaultBranch: r.GetDefaultBranch(),
		CloneURL: r.GetCloneURL(), Topics: r.Topics, Archived: r.GetArchived(),
	}
}

// InstallationChange is an installation or installation_repositories
// delivery: which repositories an installation gained or lost.
type InstallationChange struct {
	DeliveryID   string
	Event        string // "installation.created", "installation_repositories.removed", …
	Installation int64
	Account      string
	// Gone: the App was uninstalled or suspended; every repository of the
	// installation goes.
	Gone bool
	// Relist: the installation is back (unsuspended) and its payload does
	// not name its repositories: list them (InstallationRepos).
	Relist bool
	// Added and Removed name repositories (owner/name). An installation's
	// creation lists its repositories in Added.
	Added, Removed []string
}

// InstallationEvent reports whether h is an installation or
// installation_repositories delivery.
func InstallationEvent(h http.Header) bool {
	e := h.Get(gh.EventTypeHeader)
	return e == "installation" || e == "installation_repositories"
}

// ParseInstallation verifies and parses an installation or
// installation_repositories delivery (InstallationEvent). An action that
// changes no repository is a *tracker.Ignored error.
func (w *Webhook) ParseInstallation(h http.Header, body []byte) (InstallationChange, error) {
	payload, event, delivery, err := w.verify(h, body)
	if err != nil {
		return InstallationChange{}, err
	}
	parsed, err := gh.ParseWebHook(event, payload)
	if err != nil {
		return InstallationChange{}, fmt.Errorf("%w: %s payload: %v", tracker.ErrMalformed, event, err)
	}
	ch := InstallationChange{DeliveryID: delivery}
	names := func(rs []*gh.Repository) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.GetFullName())
		}
		return out
	}
	switch e := parsed.(type) {
	case *gh.InstallationEvent:
		ch.Event, ch.Installation, ch.Account = "installation."+e.GetAction(), e.GetInstallation().GetID(), e.GetInstallation().GetAccount().GetLogin()
		switch e.GetAction() {
		case "created":
			ch.Added = names(e.Repositories)
		case "unsuspend":
			ch.Relist = true
		case "deleted", "suspend":
			ch.Gone = true
		default:
			return ch, &tracker.Ignored{Reason: fmt.Sprintf("%s changes no repository", ch.Event)}
		}
	case *gh.InstallationRepositoriesEvent:
		ch.Event, ch.Installation, ch.Account = "installation_repositories."+e.GetAction(), e.GetInstallation().GetID(), e.GetInstallation().GetAccount().GetLogin()
		ch.Added, ch.Removed = names(e.RepositoriesAdded), names(e.RepositoriesRemoved)
	default:
		return ch, &tracker.Ignored{Reason: fmt.Sprintf("event %q is not an installation event", event)}
	}
	if ch.Installation <= 0 {
		return ch, fmt.Errorf("%w: %s payload has no installation id", tracker.ErrMalformed, event)
	}
	return ch, nil
}
