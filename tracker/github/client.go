package github

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
	"sync"
	"time"
	"unicode/utf8"

	gh "github.com/google/go-github/v92/github"

	"github.com/relayhq/relay/tracker"
)

// Options configure a Client. Give either Token or a GitHub App (AppID and
// PrivateKeyPEM, optionally InstallationID).
type Options struct {
	// BaseURL is the REST API root of GitHub Enterprise Server, e.g.
	// https://ghe.example.com/api/v3/ (a host alone gets /api/v3/ added);
	// empty means github.com. UploadURL defaults to BaseURL.
	BaseURL, UploadURL string
	// Token is a personal access token or an installation token.
	Token string
	// AppID, PrivateKeyPEM and InstallationID authenticate as a GitHub App.
	AppID          int64
	PrivateKeyPEM  []byte
	InstallationID int64
	// BotLogin is the account the reports are posted as ("relay-bot", or
	// "my-app[bot]" for an app); when set, only its comments are taken for
	// the report comment and they are marked Bot in a fetched issue.
	BotLogin string
	// HTTPClient carries timeouts and proxies; nil means a client with a
	// 30-second timeout.
	HTTPClient *http.Client
}

// Client is the GitHub tracker. It is safe for concurrent use.
type Client struct {
	opts Options
	api  *gh.Client             // nil for an app client without an installation yet
	app  *appAuth               // nil for token auth
	inst *installationTransport // the installation's tokens, for an installation client

	mu       sync.Mutex
	installs map[int64]*Client // app: one client (and token cache) per installation
	repos    map[string]int64  // app: installation found per owner/name
}

var (
	_ tracker.Tracker        = (*Client)(nil)
	_ tracker.GitCredentials = (*Client)(nil)
)

// New returns a GitHub client for the options.
func New(o Options) (*Client, error) {
	hasApp := o.AppID != 0 || len(o.PrivateKeyPEM) > 0
	switch {
	case o.Token != "" && hasApp:
		return nil, errors.New("github: give either a token or a GitHub App (app id and private key), not both")
	case o.Token == "" && !hasApp:
		return nil, errors.New("github: no credentials: set a token (GITHUB_TOKEN) or a GitHub App id and private key")
	case hasApp && (o.AppID <= 0 || len(o.PrivateKeyPEM) == 0):
		return nil, errors.New("github: a GitHub App needs both its numeric app id and its private key")
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	c := &Client{opts: o, installs: map[int64]*Client{}, repos: map[string]int64{}}
	if o.Token != "" {
		api, err := c.newAPI(gh.WithAuthToken(o.Token))
		if err != nil {
			return nil, err
		}
		c.api = api
		return c, nil
	}
	app, err := newAppAuth(o.AppID, o.PrivateKeyPEM, func(a *appAuth) (*gh.Client, error) {
		return c.newAPI(gh.WithTransport(jwtTransport{a: a, base: o.HTTPClient.Transport}))
	})
	if err != nil {
		return nil, fmt.Errorf("github: %w", err)
	}
	c.app = app
	if o.InstallationID != 0 {
		inst, err := c.ForInstallation(o.InstallationID)
		if err != nil {
			return nil, err
		}
		c.api, c.inst = inst.api, inst.inst
	}
	return c, nil
}

// newAPI builds a go-github client on the configured HTTP client and URLs.
func (c *Client) newAPI(extra ...gh.ClientOptionsFunc) (*gh.Client, error) {
	opts := []gh.ClientOptionsFunc{gh.WithHTTPClient(c.opts.HTTPClient), gh.WithUserAgent("relay-bot")}
	if c.opts.BaseURL != "" {
		upload := c.opts.UploadURL
		if upload == "" {
			upload = c.opts.BaseURL
		}
		opts = append(opts, gh.WithEnterpriseURLs(c.opts.BaseURL, upload))
	}
	api, err := gh.NewClient(append(opts, extra...)...)
	if err != nil {
		return nil, fmt.Errorf("github: client: %w", err)
	}
	return api, nil
}

// ForInstallation returns a client that acts as GitHub App installation id
// (the delivery's Trigger.Installation). Clients are cached, so their
// installation tokens are reused. With token auth it returns c itself.
func (c *Client) ForInstallation(id int64) (*Client, error) {
	if c.app == nil {
		return c, nil
	}
	if id <= 0 {
		return nil, fmt.Errorf("github: installation id %d is not valid", id)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if inst, ok := c.installs[id]; ok {
		return inst, nil
	}
	it := &installationTransport{a: c.app, id: id, base: c.opts.HTTPClient.Transport}
	api, err := c.newAPI(gh.WithTransport(it))
	if err != nil {
		return nil, err
	}
	inst := &Client{opts: c.opts, api: api, app: c.app, inst: it}
	inst.opts.InstallationID = id
	c.installs[id] = inst
	return inst, nil
}

// Source implements tracker.Tracker.
func (c *Client) Source() string { return tracker.GitHub }

// forRepo returns the client to use for owner/name: c itself, or for an app
// without a configured installation the installation found for the
// repository (GET /repos/{owner}/{repo}/installation, cached).
func (c *Client) forRepo(ctx context.Context, owner, name string) (*Client, error) {
	if c.api != nil {
		return c, nil
	}
	key := strings.ToLower(owner + "/" + name)
	c.mu.Lock()
	id, ok := c.repos[key]
	c.mu.Unlock()
	if !ok {
		inst, _, err := c.app.api.Apps.GetRepositoryInstallation(ctx, owner, name)
		if err != nil {
			return nil, mapError(fmt.Sprintf("find the GitHub App installation of %s/%s (is the app installed there?)", owner, name), err)
		}
		id = inst.GetID()
		c.mu.Lock()
		c.repos[key] = id
		c.mu.Unlock()
	}
	return c.ForInstallation(id)
}

// GitToken implements tracker.GitCredentials. A GitHub App client returns
// an installation token of the installation that covers ref's repository
// (cached until a minute before it expires): git authenticates with it as
// user x-access-token. A token client returns "": its token is the
// operator's to hand to git (a repository's token_env), not relay's.
func (c *Client) GitToken(ctx context.Context, ref tracker.Ref) (string, error) {
	if c.app == nil {
		return "", nil
	}
	owner, name, ok := strings.Cut(ref.Repo, "/")
	if ref.Source != tracker.GitHub || !ok || owner == "" || name == "" {
		return "", fmt.Errorf("github: %s is not a GitHub repository", ref)
	}
	inst, err := c.forRepo(ctx, owner, name)
	if err != nil {
		return "", err
	}
	if inst.inst == nil {
		return "", fmt.Errorf("github: no installation token for %s/%s", owner, name)
	}
	return inst.inst.installationToken(ctx)
}

// splitRef checks that ref is a GitHub issue and splits it.
func splitRef(ref tracker.Ref) (owner, name string, number int, err error) {
	if ref.Source != tracker.GitHub {
		return "", "", 0, fmt.Errorf("github: %s is not a GitHub issue", ref)
	}
	owner, name, ok := strings.Cut(ref.Repo, "/")
	number, nerr := strconv.Atoi(ref.Number)
	if !ok || owner == "" || name == "" || nerr != nil || number <= 0 {
		return "", "", 0, fmt.Errorf("github: issue reference %s is not owner/name#number", ref)
	}
	return owner, name, number, nil
}

// Fetch implements tracker.Tracker: the issue's title, body, labels and
// comments (every page, oldest first), without relay's own report.
func (c *Client) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	owner, name, number, err := splitRef(ref)
	if err != nil {
		return tracker.Issue{}, err
	}
	c, err = c.forRepo(ctx, owner, name)
	if err != nil {
		return tracker.Issue{}, err
	}
	is, _, err := c.api.Issues.Get(ctx, owner, name, number)
	if err != nil {
		return tracker.Issue{}, mapError("get issue "+ref.String(), err)
	}
	issue := tracker.Issue{
		Ref:    ref,
		Title:  is.GetTitle(),
		Body:   is.GetBody(),
		URL:    is.GetHTMLURL(),
		Author: is.GetUser().GetLogin(),
	}
	for _, l := range is.Labels {
		issue.Labels = append(issue.Labels, l.GetName())
	}
	err = c.eachComment(ctx, owner, name, number, func(cm *gh.IssueComment) bool {
		if tracker.HasReportMarker(cm.GetBody()) {
			return true
		}
		issue.Comments = append(issue.Comments, tracker.Comment{
			ID:      strconv.FormatInt(cm.GetID(), 10),
			Author:  cm.GetUser().GetLogin(),
			Bot:     c.isBot(cm.GetUser()),
			Body:    cm.GetBody(),
			Created: cm.GetCreatedAt().Time,
		})
		return true
	})
	if err != nil {
		return tracker.Issue{}, mapError("list comments of "+ref.String(), err)
	}
	return issue, nil
}

// eachComment calls fn for the issue's comments, oldest first, following
// the pages until fn returns false.
func (c *Client) eachComment(ctx context.Context, owner, name string, number int, fn func(*gh.IssueComment) bool) error {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.api.Issues.ListComments(ctx, owner, name, number, opts)
		if err != nil {
			return err
		}
		for _, cm := range page {
			if !fn(cm) {
				return nil
			}
		}
		if resp == nil || resp.NextPage == 0 {
			return nil
		}
		opts.Page = resp.NextPage
	}
}

// isBot reports whether u is relay itself or any bot account.
func (c *Client) isBot(u *gh.User) bool {
	return isBotUser(u, c.opts.BotLogin)
}

func isBotUser(u *gh.User, botLogin string) bool {
	login := u.GetLogin()
	return u.GetType() == "Bot" || strings.HasSuffix(strings.ToLower(login), "[bot]") || isLogin(login, botLogin)
}

// isLogin compares a login with the configured bot login; an app's login
// "name[bot]" also matches a configured "name".
func isLogin(login, bot string) bool {
	if bot == "" || login == "" {
		return false
	}
	return strings.EqualFold(login, bot) || strings.EqualFold(login, bot+"[bot]")
}

// maxCommentRunes is GitHub's limit on a comment body.
const maxCommentRunes = 65536

// reportBody adds the marker to the report (once, wherever the caller put
// its own) and keeps it within GitHub's comment limit, saying so when it had
// to cut.
func reportBody(body string) string {
	body = strings.TrimRight(strings.ReplaceAll(body, tracker.ReportMarker, ""), "\n")
	const note = "\n\n_(report truncated: a GitHub comment holds at most 65,536 characters)_"
	limit := maxCommentRunes - utf8.RuneCountInString(note+"\n\n"+tracker.ReportMarker)
	if utf8.RuneCountInString(body) > limit {
		body = string([]rune(body)[:limit]) + note
	}
	return body + "\n\n" + tracker.ReportMarker
}

// UpsertReport implements tracker.Tracker: it edits the issue's comment that
// carries tracker.ReportMarker (by BotLogin when set), or creates one.
func (c *Client) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	owner, name, number, err := splitRef(ref)
	if err != nil {
		return "", err
	}
	c, err = c.forRepo(ctx, owner, name)
	if err != nil {
		return "", err
	}
	body = reportBody(body)
	var found *gh.IssueComment
	err = c.eachComment(ctx, owner, name, number, func(cm *gh.IssueComment) bool {
		if tracker.HasReportMarker(cm.GetBody()) && (c.opts.BotLogin == "" || isLogin(cm.GetUser().GetLogin(), c.opts.BotLogin)) {
			found = cm
			return false
		}
		return true
	})
	if err != nil {
		return "", mapError("look for the report comment on "+ref.String(), err)
	}
	if found != nil {
		id := found.GetID()
		if found.GetBody() == body {
			return strconv.FormatInt(id, 10), nil
		}
		_, _, err := c.api.Issues.UpdateComment(ctx, owner, name, id, gh.IssueCommentRequest{Body: body})
		if err == nil {
			return strconv.FormatInt(id, 10), nil
		}
		if !isStatus(err, http.StatusNotFound) {
			return "", mapError(fmt.Sprintf("edit report comment %d on %s", id, ref), err)
		}
		// Deleted since it was listed: post a new one.
	}
	cm, _, err := c.api.Issues.CreateComment(ctx, owner, name, number, gh.IssueCommentRequest{Body: body})
	if err != nil {
		return "", mapError("post the report on "+ref.String(), err)
	}
	return strconv.FormatInt(cm.GetID(), 10), nil
}

func isStatus(err error, code int) bool {
	var er *gh.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == code
}

// secondaryDefault is the wait GitHub documents for a secondary rate limit
// that names none: at least one minute.
const secondaryDefault = time.Minute

// mapError wraps a go-github error with what was being done, marking
// transient failures tracker.RetryableError with the wait GitHub asked for.
func mapError(what string, err error) error {
	if err == nil {
		return nil
	}
	wrapped := fmt.Errorf("github: %s: %w", what, err)
	var (
		rle  *gh.RateLimitError
		arle *gh.AbuseRateLimitError
		er   *gh.ErrorResponse
		ae   *gh.AcceptedError
		syn  *json.SyntaxError
		ne   net.Error
		ue   *url.Error
	)
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return wrapped
	case errors.As(err, &rle):
		return &tracker.RetryableError{Err: wrapped, After: max(time.Until(rle.Rate.Reset.Time), time.Second)}
	case errors.As(err, &arle):
		after := secondaryDefault
		if d := arle.GetRetryAfter(); d > 0 {
			after = d
		}
		return &tracker.RetryableError{Err: wrapped, After: after}
	case errors.As(err, &er) && er.Response != nil:
		code := er.Response.StatusCode
		if tracker.StatusRetryable(code) {
			return &tracker.RetryableError{Err: wrapped, After: retryAfter(er.Response.Header)}
		}
		switch code {
		case http.StatusUnauthorized:
			return fmt.Errorf("github: %s: the credentials were refused (401); check the token or the app's private key: %w", what, err)
		case http.StatusNotFound:
			return fmt.Errorf("github: %s: not found, or the credentials cannot see it (404): %w", what, err)
		case http.StatusForbidden:
			return fmt.Errorf("github: %s: forbidden (403); the token or app lacks the Issues read/write permission: %w", what, err)
		}
		return wrapped
	case errors.As(err, &ae):
		return &tracker.RetryableError{Err: wrapped}
	case errors.As(err, &syn):
		// A 200 that is not JSON: a proxy's or login portal's page, or a
		// base URL that is the web site rather than the API.
		return fmt.Errorf("github: %s: the answer is not GitHub's JSON (%v), likely an HTML page: check GITHUB_API_URL or base_url (the API, e.g. https://ghe.example.com/api/v3/) and any proxy in between", what, err)
	case errors.As(err, &ne), errors.As(err, &ue):
		return &tracker.RetryableError{Err: wrapped}
	}
	return wrapped
}

// retryAfter reads a Retry-After header in seconds (0 when absent).
func retryAfter(h http.Header) time.Duration {
	if s, err := strconv.Atoi(strings.TrimSpace(h.Get("Retry-After"))); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
