// Package tracker is the seam between the bot and the issue trackers it serves
// (GitHub, GitLab, Jira). It owns the tracker-neutral types — an issue reference, a
// fetched issue, a webhook trigger, the errors that tell the queue whether to
// retry, the cap on how much of an issue's text relay reads (MaxTextBytes) —
// and the Tracker interface that tracker/github and tracker/jira
// (and tracker/gitlab) implement. The bot (package serve), `relay scope --issue` and `--post` use
// only this package, so a third tracker is one new sub-package.
package tracker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Source names a tracker kind.
const (
	GitHub = "github"
	GitLab = "gitlab"
	Jira   = "jira"
)

// Ref identifies one issue on one tracker.
//
// GitHub: Source "github", Repo "owner/name", Number "42".
// GitLab: Source "gitlab", Repo the project path "group/sub/name", Number the issue iid "42".
// Jira:   Source "jira", Repo the project key "PROJ", Number the issue key "PROJ-123".
type Ref struct {
	Source string `json:"source"`
	Repo   string `json:"repo"`
	Number string `json:"number"`
}

// Key is the job key of the issue: one job, one report per key.
// "github:owner/name#42", "gitlab:group/sub/name#42", "jira:PROJ-123".
func (r Ref) Key() string {
	if r.Source == Jira {
		return "jira:" + r.Number
	}
	return r.Source + ":" + r.Repo + "#" + r.Number
}

func (r Ref) String() string { return r.Key() }

// ParseRef parses the forms Key returns. Jira keys must be PROJECT-N.
func ParseRef(s string) (Ref, error) {
	src, rest, ok := strings.Cut(strings.TrimSpace(s), ":")
	switch {
	case !ok:
		return Ref{}, fmt.Errorf("issue reference %q has no source; write github:owner/name#42, gitlab:group/name#42 or jira:KEY-123", s)
	case src == GitHub:
		repo, num, ok := strings.Cut(rest, "#")
		owner, name, ok2 := strings.Cut(repo, "/")
		n, err := strconv.Atoi(num)
		if !ok || !ok2 || owner == "" || name == "" || strings.Contains(name, "/") || err != nil || n <= 0 {
			return Ref{}, fmt.Errorf("issue reference %q is not of the form github:owner/name#42", s)
		}
		return Ref{Source: GitHub, Repo: repo, Number: strconv.Itoa(n)}, nil
	case src == GitLab:
		// A project path is a namespace (groups and subgroups) and a name.
		repo, num, ok := strings.Cut(rest, "#")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n <= 0 || !gitlabPath(repo) {
			return Ref{}, fmt.Errorf("issue reference %q is not of the form gitlab:group/name#42 (subgroups allowed: gitlab:group/sub/name#42)", s)
		}
		return Ref{Source: GitLab, Repo: repo, Number: strconv.Itoa(n)}, nil
	case src == Jira:
		proj, num, ok := strings.Cut(rest, "-")
		n, err := strconv.Atoi(num)
		if !ok || proj == "" || err != nil || n <= 0 || strings.ToUpper(proj) != proj {
			return Ref{}, fmt.Errorf("issue reference %q is not of the form jira:KEY-123 with an upper-case project key", s)
		}
		return Ref{Source: Jira, Repo: proj, Number: rest}, nil
	default:
		return Ref{}, fmt.Errorf("issue reference %q: unknown source %q; use github, gitlab or jira as the source", s, src)
	}
}

// gitlabPath reports whether p is a GitLab project path: two or more
// non-empty segments separated by slashes.
func gitlabPath(p string) bool {
	segs := strings.Split(p, "/")
	if len(segs) < 2 {
		return false
	}
	for _, s := range segs {
		if s == "" || strings.TrimSpace(s) != s {
			return false
		}
	}
	return true
}

// Issue is what a tracker returns for a Ref: enough to scope it.
type Issue struct {
	Ref      Ref       `json:"ref"`
	Title    string    `json:"title"`
	Body     string    `json:"body"` // markdown (Jira: rendered to markdown from ADF or wiki text)
	URL      string    `json:"url"`  // human link
	Author   string    `json:"author"`
	Labels   []string  `json:"labels,omitempty"`
	Comments []Comment `json:"comments,omitempty"` // oldest first; the bot's own report excluded
}

// Comment is one comment of an issue.
type Comment struct {
	ID      string    `json:"id"`
	Author  string    `json:"author"`
	Bot     bool      `json:"bot,omitempty"` // written by a bot account or an app
	Body    string    `json:"body"`
	Created time.Time `json:"created"`
}

// Text renders the issue as the scoping pipeline's input: title, body, then
// the comments, each with its author, cut at MaxTextBytes (see CapText):
// comments that would start beyond the cut are left out.
func (i Issue) Text() Text {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n", head(strings.TrimSpace(i.Title)), head(strings.TrimSpace(i.Body)))
	for _, c := range i.Comments {
		if b.Len() > MaxTextBytes {
			break // the comments left would be cut anyway
		}
		if c.Bot {
			continue
		}
		fmt.Fprintf(&b, "\n---\nComment by %s:\n\n%s\n", c.Author, head(strings.TrimSpace(c.Body)))
	}
	return CapText(b.String())
}

// Tracker fetches issues and keeps the one report comment of an issue.
// Implementations are safe for concurrent use.
type Tracker interface {
	// Source is GitHub, GitLab or Jira.
	Source() string
	// Fetch returns the issue with its comments.
	Fetch(ctx context.Context, ref Ref) (Issue, error)
	// UpsertReport creates the issue's report comment or edits it in place:
	// the comment is found by a hidden marker (ReportMarker) in its body, so
	// there is one report per issue however often this runs. body is markdown;
	// the implementation adds the marker and converts the format (Jira Cloud:
	// ADF). It returns the comment's id.
	UpsertReport(ctx context.Context, ref Ref, body string) (commentID string, err error)
}

// GitCredentials is an optional capability of a Tracker: a token that lets
// git read the repository of ref over HTTPS (a GitHub App's installation
// token). "" with a nil error means the tracker has none to offer. The
// bot uses it for a repository that has no token of its own.
type GitCredentials interface {
	GitToken(ctx context.Context, ref Ref) (string, error)
}

// ReportMarker is the hidden marker that identifies relay's report comment on
// an issue (an HTML comment on GitHub; trackers that cannot hide it render it
// as small trailing text).
const ReportMarker = "<!-- relay:report -->"

// Trigger is a webhook delivery that asks for an issue to be scoped.
type Trigger struct {
	Ref        Ref    `json:"ref"`
	DeliveryID string `json:"delivery_id"` // X-GitHub-Delivery / X-Gitlab-Event-UUID / X-Atlassian-Webhook-Identifier
	Event      string `json:"event"`       // "issues.opened", "issue_comment.created", "jira:issue_created", …
	Reason     string `json:"reason"`      // ReasonOpened, ReasonLabeled or ReasonCommand
	Actor      string `json:"actor"`       // who caused it
	// ActorID identifies the actor for a permission check where Actor is a
	// display name: the Jira Cloud account id or Data Center user name, the
	// GitLab user id.
	ActorID string `json:"actor_id,omitempty"`
	// Installation is the GitHub App installation id of the delivery (0 otherwise).
	Installation int64 `json:"installation,omitempty"`
	// Head and Base are the head commit and the target branch of a change
	// request, for ReasonReview triggers whose event names them ("" when
	// it does not: a comment command, reviewed at the head of the moment).
	Head string `json:"head,omitempty"`
	Base string `json:"base,omitempty"`
	// SemanticID names what the delivery reports independently of its
	// delivery id (GitHub: event, issue, comment id, updated_at), so the
	// same comment delivered by two webhooks starts one job; "" when the
	// parser cannot tell.
	SemanticID string `json:"semantic_id,omitempty"`
}

// Trigger reasons.
const (
	ReasonOpened  = "opened"
	ReasonLabeled = "labeled"
	ReasonCommand = "command"
	ReasonManual  = "manual" // relay scope --post, relay batch --queue
)

// Rules decide which deliveries trigger a job. Zero values mean the defaults
// named on each field.
type Rules struct {
	OnOpened     bool     // scope every newly opened issue
	Labels       []string // a label that triggers when added (case-insensitive)
	Commands     []string // comment prefixes, e.g. "/relay scope"
	Associations []string // GitHub author associations allowed to command (default OWNER, MEMBER, COLLABORATOR)
	// BotLogin is the account the bot posts as; its own comments never trigger.
	BotLogin string
	// Review makes pull requests (merge requests) and ReviewCommand
	// comments on them triggers of ReasonReview; without it they are
	// ignored.
	Review bool
}

// DefaultAssociations are the GitHub author associations allowed to use a
// command word when Rules.Associations is empty.
var DefaultAssociations = []string{"OWNER", "MEMBER", "COLLABORATOR"}

// Ignored is returned (wrapped or as is) by webhook parsers for a delivery
// that is well-formed but triggers nothing; Reason says why, for the log.
type Ignored struct{ Reason string }

func (e *Ignored) Error() string { return "ignored: " + e.Reason }

// Webhook errors the HTTP layer maps to status codes.
var (
	ErrBadSignature = errors.New("missing or invalid webhook signature") // 401
	ErrMalformed    = errors.New("malformed webhook payload")            // 400
)

// RetryableError marks a transient failure (HTTP 5xx, rate limit, network):
// the job is retried, no sooner than After when it is set.
type RetryableError struct {
	Err   error
	After time.Duration // from Retry-After or a rate-limit reset; 0: the queue's backoff
}

func (e *RetryableError) Error() string { return e.Err.Error() }
func (e *RetryableError) Unwrap() error { return e.Err }

// Retryable reports whether err is transient, and the earliest retry delay.
func Retryable(err error) (bool, time.Duration) {
	var re *RetryableError
	if errors.As(err, &re) {
		return true, re.After
	}
	return false, 0
}

// StatusRetryable reports whether an HTTP status from a tracker API is
// transient: 408, 429 and 5xx.
func StatusRetryable(code int) bool {
	return code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500
}

// WebhookParser verifies and parses one webhook delivery of a tracker.
// Parse returns a Trigger, or an error: one wrapping ErrBadSignature (HTTP
// 401), one wrapping ErrMalformed (400), or an *Ignored (2xx, logged).
// Implementations never log or echo the secret.
type WebhookParser interface {
	Parse(h http.Header, body []byte) (Trigger, error)
}
