package gitlab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/relayhq/relay/tracker"
)

// Options configure a Client.
type Options struct {
	// BaseURL is the GitLab instance, e.g. https://gitlab.example.com (the
	// client adds /api/v4); empty means gitlab.com.
	BaseURL string
	// Token is a project access token or a bot user's personal access
	// token (scopes api and read_repository).
	Token string
	// BotUsername is the account the reports are posted as (a project
	// access token's bot user, or the bot user); when set, only its notes
	// are taken for the report note and they are marked Bot in a fetched
	// issue.
	BotUsername string
	// HTTPClient carries timeouts and proxies; nil means a client with a
	// 30-second timeout.
	HTTPClient *http.Client
}

// Client is the GitLab tracker. It is safe for concurrent use.
type Client struct {
	opts Options
	api  *gl.Client
}

var (
	_ tracker.Tracker        = (*Client)(nil)
	_ tracker.GitCredentials = (*Client)(nil)
)

// New returns a GitLab client for the options.
func New(o Options) (*Client, error) {
	if o.Token == "" {
		return nil, errors.New("gitlab: no token: set a project access token or a bot user's personal access token (scopes api, read_repository)")
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	opts := []gl.ClientOptionFunc{gl.WithHTTPClient(o.HTTPClient), gl.WithoutRetries(), gl.WithUserAgent("relay-bot")}
	if o.BaseURL != "" {
		u, err := url.Parse(o.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return nil, fmt.Errorf("gitlab: base_url %q is not a URL such as https://gitlab.example.com", o.BaseURL)
		}
		opts = append(opts, gl.WithBaseURL(o.BaseURL))
	}
	api, err := gl.NewClient(o.Token, opts...)
	if err != nil {
		return nil, fmt.Errorf("gitlab: client: %w", err)
	}
	return &Client{opts: o, api: api}, nil
}

// Source implements tracker.Tracker.
func (c *Client) Source() string { return tracker.GitLab }

// GitToken implements tracker.GitCredentials: the client's own token,
// which reads the repository over HTTPS when it has the read_repository
// scope. ref must be a GitLab project.
func (c *Client) GitToken(ctx context.Context, ref tracker.Ref) (string, error) {
	if ref.Source != tracker.GitLab || ref.Repo == "" {
		return "", fmt.Errorf("gitlab: %s is not a GitLab project", ref)
	}
	return c.opts.Token, nil
}

// splitRef checks that ref is a GitLab issue and splits it.
func splitRef(ref tracker.Ref) (project string, iid int64, err error) {
	if ref.Source != tracker.GitLab {
		return "", 0, fmt.Errorf("gitlab: %s is not a GitLab issue", ref)
	}
	n, nerr := strconv.ParseInt(ref.Number, 10, 64)
	if !strings.Contains(ref.Repo, "/") || nerr != nil || n <= 0 {
		return "", 0, fmt.Errorf("gitlab: issue reference %s is not group/name#iid", ref)
	}
	return ref.Repo, n, nil
}

// Fetch implements tracker.Tracker: the issue's title, description,
// labels and notes (every page, oldest first), without system notes,
// relay's own report and internal notes: those only members may read, and
// the report is a note anyone who sees the issue reads.
func (c *Client) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	project, iid, err := splitRef(ref)
	if err != nil {
		return tracker.Issue{}, err
	}
	is, _, err := c.api.Issues.GetIssue(project, iid, gl.WithContext(ctx))
	if err != nil {
		return tracker.Issue{}, mapError("get issue "+ref.String(), err)
	}
	issue := tracker.Issue{Ref: ref, Title: is.Title, Body: is.Description, URL: is.WebURL, Labels: []string(is.Labels)}
	if is.Author != nil {
		issue.Author = is.Author.Username
	}
	err = c.eachNote(ctx, project, iid, func(n *gl.Note) bool {
		//lint:ignore SA1019 GitLab before 15.0 marks an internal note only as "confidential"
		if n.System || n.Internal || n.Confidential || tracker.HasReportMarker(n.Body) {
			return true
		}
		cm := tracker.Comment{ID: strconv.FormatInt(n.ID, 10), Author: n.Author.Username, Bot: c.isBot(n.Author.Username), Body: n.Body}
		if n.CreatedAt != nil {
			cm.Created = *n.CreatedAt
		}
		issue.Comments = append(issue.Comments, cm)
		return true
	})
	if err != nil {
		return tracker.Issue{}, mapError("list the notes of "+ref.String(), err)
	}
	return issue, nil
}

// eachNote calls fn for the issue's notes, oldest first (GitLab lists the
// newest first unless asked), following the pages until fn returns false.
func (c *Client) eachNote(ctx context.Context, project string, iid int64, fn func(*gl.Note) bool) error {
	opts := &gl.ListIssueNotesOptions{ListOptions: gl.ListOptions{PerPage: 100}, OrderBy: gl.Ptr("created_at"), Sort: gl.Ptr("asc")}
	return eachPage(fn, &opts.ListOptions, func() ([]*gl.Note, *gl.Response, error) {
		return c.api.Notes.ListIssueNotes(project, iid, opts, gl.WithContext(ctx))
	})
}

// eachPage calls fn for the notes list returns, page by page (list reads
// the page from lo), until fn returns false or the pages end.
func eachPage(fn func(*gl.Note) bool, lo *gl.ListOptions, list func() ([]*gl.Note, *gl.Response, error)) error {
	for {
		page, resp, err := list()
		if err != nil {
			return err
		}
		for _, n := range page {
			if !fn(n) {
				return nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		lo.Page = resp.NextPage
	}
}

// isBot reports whether username is relay itself or the bot user of a
// project or group access token.
func (c *Client) isBot(username string) bool {
	return isBotUser(username, c.opts.BotUsername)
}

// isBotUser reports whether username is the configured bot, or looks like
// the bot user GitLab creates for a project or group access token
// (project_<id>_bot_<suffix>, group_<id>_bot_<suffix>; older versions
// leave out or shorten the suffix).
func isBotUser(username, bot string) bool {
	if username == "" {
		return false
	}
	if bot != "" && strings.EqualFold(username, bot) {
		return true
	}
	for _, prefix := range []string{"project_", "group_"} {
		rest, ok := strings.CutPrefix(username, prefix)
		if !ok {
			continue
		}
		digits := len(rest) - len(strings.TrimLeft(rest, "0123456789"))
		if digits > 0 && strings.HasPrefix(rest[digits:], "_bot") {
			return true
		}
	}
	return false
}

// maxNoteRunes is GitLab's limit on a note body (1,000,000 characters).
const maxNoteRunes = 1_000_000

// reportBody adds the marker to the report (once, wherever the caller put
// its own), makes it inert (no quick action, no live merge request
// reference: see inert) and keeps it within GitLab's note limit, saying so
// when it had to cut.
func reportBody(body string) string {
	body = inert(strings.TrimRight(strings.ReplaceAll(body, tracker.ReportMarker, ""), "\n"))
	const note = "\n\n_(report truncated: a GitLab note holds at most 1,000,000 characters)_"
	limit := maxNoteRunes - utf8.RuneCountInString(note+"\n\n"+tracker.ReportMarker)
	if utf8.RuneCountInString(body) > limit {
		body = string([]rune(body)[:limit]) + note
	}
	return body + "\n\n" + tracker.ReportMarker
}

// UpsertReport implements tracker.Tracker: it edits the issue's note that
// carries tracker.ReportMarker (by BotUsername when set), or creates one.
func (c *Client) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	project, iid, err := splitRef(ref)
	if err != nil {
		return "", err
	}
	return c.upsertNote(ctx, ref, body, noteAPI{
		each: func(fn func(*gl.Note) bool) error { return c.eachNote(ctx, project, iid, fn) },
		update: func(id int64, body string) error {
			_, _, err := c.api.Notes.UpdateIssueNote(project, iid, id, &gl.UpdateIssueNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
			return err
		},
		create: func(body string) (*gl.Note, error) {
			n, _, err := c.api.Notes.CreateIssueNote(project, iid, &gl.CreateIssueNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
			return n, err
		},
	})
}

// noteAPI is the notes of one issue or merge request.
type noteAPI struct {
	each   func(fn func(*gl.Note) bool) error // oldest first, until fn returns false
	update func(id int64, body string) error
	create func(body string) (*gl.Note, error)
}

// upsertNote edits the note that carries tracker.ReportMarker (by
// BotUsername when set), or creates one.
func (c *Client) upsertNote(ctx context.Context, ref tracker.Ref, body string, api noteAPI) (string, error) {
	body = reportBody(body)
	var found *gl.Note
	err := api.each(func(n *gl.Note) bool {
		if !n.System && tracker.HasReportMarker(n.Body) && (c.opts.BotUsername == "" || strings.EqualFold(n.Author.Username, c.opts.BotUsername)) {
			found = n
			return false
		}
		return true
	})
	if err != nil {
		return "", mapError("look for the report note on "+ref.String(), err)
	}
	if found != nil {
		id := strconv.FormatInt(found.ID, 10)
		if found.Body == body {
			return id, nil
		}
		err := api.update(found.ID, body)
		if err == nil {
			return id, nil
		}
		if !errors.Is(err, gl.ErrNotFound) {
			return "", mapError(fmt.Sprintf("edit report note %d on %s", found.ID, ref), err)
		}
		// Deleted since it was listed: post a new one.
	}
	n, err := api.create(body)
	if err != nil {
		return "", mapError("post the report on "+ref.String(), err)
	}
	return strconv.FormatInt(n.ID, 10), nil
}

// rateLimitDefault is the wait for a 429 that names none: GitLab's limits
// are per minute.
const rateLimitDefault = time.Minute

// mapError wraps a client error with what was being done, marking
// transient failures tracker.RetryableError with the wait GitLab asked
// for, and saying what to do about the others.
func mapError(what string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("gitlab: %s: %w", what, err)
	var (
		er  *gl.ErrorResponse
		syn *json.SyntaxError
		ute *json.UnmarshalTypeError
		ne  net.Error
		ue  *url.Error
	)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return wrapped
	case errors.Is(err, gl.ErrNotFound):
		return fmt.Errorf("gitlab: %s: not found, or the token cannot see it (404); check the project path and that the token's user is a member: %w", what, err)
	case errors.As(err, &er) && er.Response != nil:
		code := er.Response.StatusCode
		if code == http.StatusTooManyRequests {
			return &tracker.RetryableError{Err: wrapped, After: max(retryAfter(er.Response.Header), rateLimitDefault)}
		}
		if tracker.StatusRetryable(code) {
			return &tracker.RetryableError{Err: wrapped, After: retryAfter(er.Response.Header)}
		}
		switch code {
		case http.StatusUnauthorized:
			return fmt.Errorf("gitlab: %s: the token was refused (401); check that it is valid and not expired: %w", what, err)
		case http.StatusForbidden:
			return fmt.Errorf("gitlab: %s: forbidden (403); the token needs the api scope and its user at least the Reporter role on the project (Planner cannot read code): %w", what, err)
		}
		return wrapped
	case errors.As(err, &syn), errors.As(err, &ute):
		// A 200 that is not GitLab's JSON: a proxy's or sign-in page, or a
		// base URL that is not the instance.
		return fmt.Errorf("gitlab: %s: the answer is not GitLab's JSON (%v), likely an HTML page: check gitlab.base_url (the instance, e.g. https://gitlab.example.com) and any proxy in between", what, err)
	case errors.As(err, &ne), errors.As(err, &ue):
		return &tracker.RetryableError{Err: wrapped}
	}
	return wrapped
}

// retryAfter reads Retry-After in seconds, else GitLab's RateLimit-Reset
// (a Unix time), as a wait; 0 when neither is there.
func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if s, err := strconv.ParseInt(strings.TrimSpace(h.Get("RateLimit-Reset")), 10, 64); err == nil && s > 0 {
		if d := time.Until(time.Unix(s, 0)); d > 0 {
			return d.Round(time.Second)
		}
	}
	return 0
}
