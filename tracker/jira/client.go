package jira

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/adf"
)

// Options configure a Client.
type Options struct {
	// BaseURL is the site, e.g. https://acme.atlassian.net or
	// https://jira.example.com (with a context path if Jira has one).
	BaseURL string
	// Cloud selects REST v3 with Atlassian Document Format; false is Data
	// Center's REST v2 with wiki markup.
	Cloud bool
	// Email and APIToken authenticate with basic auth (Cloud; on Data
	// Center a user name and password work the same way).
	Email, APIToken string
	// PAT is a Data Center personal access token (bearer auth).
	PAT string
	// BotAccount is the account the reports are posted as (Cloud account
	// id, Data Center user name or key, e-mail or display name); when set,
	// only its comments are taken for the report comment.
	BotAccount string
	// HTTPClient carries timeouts and proxies; nil means a client with a
	// 30-second timeout.
	HTTPClient *http.Client
}

// Client is the Jira tracker. It is safe for concurrent use.
type Client struct {
	opts Options
	base *url.URL
	api  string // "/rest/api/3" or "/rest/api/2"
	auth string // Authorization header value; never logged
	hc   *http.Client
}

var _ tracker.Tracker = (*Client)(nil)

// New returns a Jira client for the options.
func New(o Options) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(o.BaseURL))
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("jira: base URL %q is not an http(s) URL such as https://acme.atlassian.net", o.BaseURL)
	}
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawQuery, u.Fragment = "", ""
	c := &Client{opts: o, base: u, api: "/rest/api/2", hc: o.HTTPClient}
	if o.Cloud {
		c.api = "/rest/api/3"
	}
	basic := o.Email != "" || o.APIToken != ""
	switch {
	case o.PAT != "" && basic:
		return nil, errors.New("jira: give either an e-mail and API token or a personal access token, not both")
	case o.PAT != "":
		c.auth = "Bearer " + o.PAT
	case o.Email != "" && o.APIToken != "":
		c.auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(o.Email+":"+o.APIToken))
	case basic:
		return nil, errors.New("jira: basic auth needs both the account e-mail (JIRA_EMAIL) and the API token (JIRA_API_TOKEN)")
	default:
		return nil, errors.New("jira: no credentials: set JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PAT (Data Center)")
	}
	if c.hc == nil {
		c.hc = &http.Client{Timeout: 30 * time.Second}
	}
	return c, nil
}

// Source implements tracker.Tracker.
func (c *Client) Source() string { return tracker.Jira }

// user is a Jira account as REST and webhooks describe it.
type user struct {
	AccountID    string `json:"accountId"`   // Cloud
	AccountType  string `json:"accountType"` // Cloud: atlassian, app, customer
	Name         string `json:"name"`        // Data Center
	Key          string `json:"key"`         // Data Center
	EmailAddress string `json:"emailAddress"`
	DisplayName  string `json:"displayName"`
}

// is reports whether the account is account (any of its identifiers).
func (u *user) is(account string) bool {
	if u == nil || account == "" {
		return false
	}
	for _, id := range []string{u.AccountID, u.Name, u.Key, u.EmailAddress, u.DisplayName} {
		if id != "" && strings.EqualFold(id, account) {
			return true
		}
	}
	return false
}

func (u *user) label() string {
	if u == nil {
		return ""
	}
	for _, s := range []string{u.DisplayName, u.Name, u.AccountID, u.Key} {
		if s != "" {
			return s
		}
	}
	return ""
}

type restIssue struct {
	Key    string `json:"key"`
	Fields struct {
		Summary     string          `json:"summary"`
		Description json.RawMessage `json:"description"` // ADF (v3), string (v2) or null
		Labels      []string        `json:"labels"`
		Reporter    *user           `json:"reporter"`
	} `json:"fields"`
}

type restComment struct {
	ID      string          `json:"id"`
	Author  *user           `json:"author"`
	Body    json.RawMessage `json:"body"`
	Created string          `json:"created"`
}

// Fetch implements tracker.Tracker: summary, description and every page of
// comments (oldest first), without relay's own report.
func (c *Client) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	if err := checkRef(ref); err != nil {
		return tracker.Issue{}, err
	}
	var is restIssue
	q := url.Values{"fields": {"summary,description,labels,reporter"}}
	if err := c.do(ctx, http.MethodGet, "/issue/"+url.PathEscape(ref.Number), q, nil, &is); err != nil {
		return tracker.Issue{}, fmt.Errorf("jira: get issue %s: %w", ref.Number, err)
	}
	body, err := text(is.Fields.Description)
	if err != nil {
		return tracker.Issue{}, fmt.Errorf("jira: issue %s description: %w", ref.Number, err)
	}
	issue := tracker.Issue{
		Ref:    ref,
		Title:  is.Fields.Summary,
		Body:   body,
		URL:    c.base.String() + "/browse/" + ref.Number,
		Author: is.Fields.Reporter.label(),
		Labels: is.Fields.Labels,
	}
	err = c.eachComment(ctx, ref.Number, func(cm restComment, body string) bool {
		if hasMarker(body) {
			return true
		}
		created, _ := time.Parse("2006-01-02T15:04:05.000-0700", cm.Created)
		issue.Comments = append(issue.Comments, tracker.Comment{
			ID:      cm.ID,
			Author:  cm.Author.label(),
			Bot:     cm.Author.is(c.opts.BotAccount) || (cm.Author != nil && cm.Author.AccountType == "app"),
			Body:    body,
			Created: created,
		})
		return true
	})
	if err != nil {
		return tracker.Issue{}, fmt.Errorf("jira: list comments of %s: %w", ref.Number, err)
	}
	return issue, nil
}

func checkRef(ref tracker.Ref) error {
	if ref.Source != tracker.Jira {
		return fmt.Errorf("jira: %s is not a Jira issue", ref)
	}
	if _, err := tracker.ParseRef("jira:" + ref.Number); err != nil {
		return fmt.Errorf("jira: %w", err)
	}
	return nil
}

// text renders a description or comment body as markdown: ADF through
// adf.ToMarkdown, wiki text as it is.
func text(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0 || bytes.Equal(raw, []byte("null")):
		return "", nil
	case raw[0] == '"':
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	doc, err := adf.Parse(raw)
	if err != nil {
		return "", err
	}
	return adf.ToMarkdown(doc), nil
}

// commentPage is how many comments one request asks for (Jira's maximum).
const commentPage = 100

// eachComment calls fn for the issue's comments, oldest first, following
// startAt pages until fn returns false.
func (c *Client) eachComment(ctx context.Context, key string, fn func(restComment, string) bool) error {
	start := 0
	for {
		var page struct {
			StartAt  int           `json:"startAt"`
			Total    int           `json:"total"`
			Comments []restComment `json:"comments"`
		}
		q := url.Values{"startAt": {strconv.Itoa(start)}, "maxResults": {strconv.Itoa(commentPage)}, "orderBy": {"created"}}
		if err := c.do(ctx, http.MethodGet, "/issue/"+url.PathEscape(key)+"/comment", q, nil, &page); err != nil {
			return err
		}
		for _, cm := range page.Comments {
			body, err := text(cm.Body)
			if err != nil {
				return fmt.Errorf("comment %s: %w", cm.ID, err)
			}
			if !fn(cm, body) {
				return nil
			}
		}
		start += len(page.Comments)
		if len(page.Comments) == 0 || start >= page.Total {
			return nil
		}
	}
}

// markerText is the visible marker that ends a report comment.
const markerText = "relay:report"

// wikiMarker is the marker in wiki markup: small (subscript) and grey.
const wikiMarker = "{color:#97a0af}~" + markerText + "~{color}"

// hasMarker reports whether a comment (as markdown or wiki text) is relay's
// report: its last non-empty line is the marker, or it carries
// tracker.ReportMarker.
func hasMarker(body string) bool {
	if tracker.HasReportMarker(body) {
		return true
	}
	body = strings.TrimRight(body, " \t\r\n")
	last := body[strings.LastIndexByte(body, '\n')+1:]
	last = strings.NewReplacer("{color:#97a0af}", "", "{color}", "", "~", "", "\\", "").Replace(last)
	return strings.TrimSpace(last) == markerText
}

// maxReportRunes keeps a report under Jira's default comment limit
// (32,767 characters) with room for the marker and markup.
const maxReportRunes = 30000

// UpsertReport implements tracker.Tracker: it edits the issue's report
// comment (found by its marker, and by BotAccount when set) or adds one.
func (c *Client) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	if err := checkRef(ref); err != nil {
		return "", err
	}
	payload := map[string]any{"body": c.reportBody(body)}
	var found string
	err := c.eachComment(ctx, ref.Number, func(cm restComment, text string) bool {
		if hasMarker(text) && (c.opts.BotAccount == "" || cm.Author.is(c.opts.BotAccount)) {
			found = cm.ID
			return false
		}
		return true
	})
	if err != nil {
		return "", fmt.Errorf("jira: look for the report comment on %s: %w", ref.Number, err)
	}
	var out restComment
	if found != "" {
		err := c.do(ctx, http.MethodPut, "/issue/"+url.PathEscape(ref.Number)+"/comment/"+url.PathEscape(found), nil, payload, &out)
		if err == nil {
			return found, nil
		}
		var se *statusError
		if !errors.As(err, &se) || se.code != http.StatusNotFound {
			return "", fmt.Errorf("jira: edit report comment %s on %s: %w", found, ref.Number, err)
		}
		// Deleted since it was listed: add a new one.
	}
	if err := c.do(ctx, http.MethodPost, "/issue/"+url.PathEscape(ref.Number)+"/comment", nil, payload, &out); err != nil {
		return "", fmt.Errorf("jira: post the report on %s: %w", ref.Number, err)
	}
	return out.ID, nil
}

// reportBody renders the markdown report in the instance's format, with the
// marker as its last paragraph.
func (c *Client) reportBody(md string) any {
	md = strings.TrimRight(md, "\n")
	if utf8.RuneCountInString(md) > maxReportRunes {
		md = string([]rune(md)[:maxReportRunes]) + "\n\n_(report truncated: a Jira comment holds at most 32,767 characters)_"
	}
	doc := adf.FromMarkdown(md)
	if !c.opts.Cloud {
		return adf.Wiki(doc) + "\n\n" + wikiMarker
	}
	doc.Content = append(doc.Content, &adf.Node{Type: "paragraph", Content: []*adf.Node{{
		Type: "text", Text: markerText,
		Marks: []adf.Mark{{Type: "textColor", Attrs: map[string]any{"color": "#97a0af"}}, {Type: "subsup", Attrs: map[string]any{"type": "sub"}}},
	}}})
	return doc
}

// statusError is a non-2xx answer from Jira.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.code, e.msg) }

// do sends one REST call. path is relative to the API root; in and out are
// JSON (nil for none).
func (c *Client) do(ctx context.Context, method, path string, q url.Values, in, out any) error {
	u := *c.base
	u.Path += c.api + path
	u.RawQuery = q.Encode()
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode request: %w", err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "relay-bot")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// Network trouble is transient; the *url.Error names the URL, never
		// the Authorization header.
		return &tracker.RetryableError{Err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return &tracker.RetryableError{Err: fmt.Errorf("read %s %s: %w", method, u.Path, err)}
	}
	if resp.StatusCode/100 != 2 {
		return statusErr(method, u.Path, resp, b)
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		if looksHTML(b) {
			return fmt.Errorf("decode %s %s: the answer is an HTML page, not Jira's JSON: check JIRA_URL (the site's base URL, e.g. https://acme.atlassian.net) and any proxy or single sign-on page in between", method, u.Path)
		}
		return fmt.Errorf("decode %s %s: %w", method, u.Path, err)
	}
	return nil
}

// looksHTML reports whether a body that should be JSON is a web page (a
// login portal, a proxy's error page, the site's front page).
func looksHTML(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '<'
}

// statusErr describes a failed call, retryable when the status is.
func statusErr(method, path string, resp *http.Response, body []byte) error {
	se := &statusError{code: resp.StatusCode, msg: jiraMessage(body)}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		se.msg = "the credentials were refused; check JIRA_EMAIL and JIRA_API_TOKEN (Cloud) or JIRA_PAT (Data Center)"
	case http.StatusForbidden:
		se.msg += " (the account lacks the Browse projects or Add/Edit comments permission)"
	case http.StatusNotFound:
		se.msg += " (no such issue, or the account cannot see it)"
	}
	err := fmt.Errorf("%s %s: %w", method, path, se)
	if tracker.StatusRetryable(resp.StatusCode) {
		return &tracker.RetryableError{Err: err, After: retryAfter(resp.Header.Get("Retry-After"))}
	}
	return err
}

// jiraMessage extracts Jira's error text ({"errorMessages":[…],"errors":{…}})
// or a short prefix of a non-JSON body.
func jiraMessage(b []byte) string {
	var e struct {
		ErrorMessages []string          `json:"errorMessages"`
		Errors        map[string]string `json:"errors"`
		Message       string            `json:"message"`
	}
	if json.Unmarshal(b, &e) == nil {
		msgs := append([]string(nil), e.ErrorMessages...)
		for _, k := range slices.Sorted(maps.Keys(e.Errors)) {
			msgs = append(msgs, k+": "+e.Errors[k])
		}
		if e.Message != "" {
			msgs = append(msgs, e.Message)
		}
		if len(msgs) > 0 {
			return strings.Join(msgs, "; ")
		}
	}
	s := strings.TrimSpace(string(b))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		s = "no message"
	}
	return s
}

// retryAfter parses Retry-After: seconds or an HTTP date.
func retryAfter(v string) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}
