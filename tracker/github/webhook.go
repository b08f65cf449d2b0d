package github

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	gh "github.com/google/go-github/v92/github"

	"github.com/relayhq/relay/tracker"
)

// Webhook verifies and parses GitHub webhook deliveries. It is safe for
// concurrent use.
type Webhook struct {
	secret []byte
	rules  tracker.Rules
}

var _ tracker.WebhookParser = (*Webhook)(nil)

// NewWebhook returns the parser for deliveries signed with secret. An empty
// secret is refused: without it anyone who finds the URL could make the bot
// run jobs.
func NewWebhook(secret []byte, rules tracker.Rules) (*Webhook, error) {
	if len(secret) == 0 {
		return nil, errors.New("github webhook: no secret; set the webhook secret (the same one as in the GitHub webhook or app settings)")
	}
	return &Webhook{secret: bytes.Clone(secret), rules: rules}, nil
}

// verify checks a delivery's signature and headers and returns its JSON
// payload, event name and delivery id.
func (w *Webhook) verify(h http.Header, body []byte) (payload []byte, event, delivery string, err error) {
	sig := h.Get(gh.SHA256SignatureHeader)
	if sig == "" {
		return nil, "", "", fmt.Errorf("%w: no %s header (is the webhook secret set on GitHub?)", tracker.ErrBadSignature, gh.SHA256SignatureHeader)
	}
	if !strings.HasPrefix(sig, "sha256=") {
		return nil, "", "", fmt.Errorf("%w: %s is not sha256=<hex>", tracker.ErrBadSignature, gh.SHA256SignatureHeader)
	}
	// The signature covers the raw body, whatever its content type.
	if err := gh.ValidateSignature(sig, body, w.secret); err != nil {
		return nil, "", "", fmt.Errorf("%w: %s does not match the body signed with the configured secret", tracker.ErrBadSignature, gh.SHA256SignatureHeader)
	}
	ct := "application/json"
	if v := h.Get("Content-Type"); v != "" {
		mt, _, err := mime.ParseMediaType(v)
		if err != nil {
			return nil, "", "", fmt.Errorf("%w: Content-Type %q: %v", tracker.ErrMalformed, v, err)
		}
		ct = mt
	}
	payload, err = gh.ValidatePayloadFromBody(ct, bytes.NewReader(body), sig, w.secret)
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: %v (set the webhook's content type to application/json)", tracker.ErrMalformed, err)
	}
	event, delivery = h.Get(gh.EventTypeHeader), h.Get(gh.DeliveryIDHeader)
	switch {
	case event == "":
		return nil, "", "", fmt.Errorf("%w: no %s header", tracker.ErrMalformed, gh.EventTypeHeader)
	case delivery == "":
		return nil, "", "", fmt.Errorf("%w: no %s header", tracker.ErrMalformed, gh.DeliveryIDHeader)
	case !json.Valid(payload):
		return nil, "", "", fmt.Errorf("%w: the %s payload is not valid JSON", tracker.ErrMalformed, event)
	}
	return payload, event, delivery, nil
}

// Parse implements tracker.WebhookParser.
func (w *Webhook) Parse(h http.Header, body []byte) (tracker.Trigger, error) {
	payload, event, delivery, err := w.verify(h, body)
	if err != nil {
		return tracker.Trigger{}, err
	}
	if event != "issues" && event != "issue_comment" && event != "pull_request" {
		return tracker.Trigger{}, &tracker.Ignored{Reason: fmt.Sprintf("event %q does not trigger scoping", event)}
	}
	parsed, err := gh.ParseWebHook(event, payload)
	if err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload: %v", tracker.ErrMalformed, event, err)
	}
	switch e := parsed.(type) {
	case *gh.IssuesEvent:
		return w.issues(e, delivery)
	case *gh.IssueCommentEvent:
		if e.Issue.IsPullRequest() && w.rules.Review {
			return w.reviewComment(e, delivery)
		}
		return w.comment(e, delivery)
	case *gh.PullRequestEvent:
		return w.pullRequest(e, delivery)
	}
	return tracker.Trigger{}, &tracker.Ignored{Reason: fmt.Sprintf("event %q does not trigger scoping", event)}
}

// base builds the trigger common to both events, or says what is missing.
func base(repo *gh.Repository, issue *gh.Issue, sender *gh.User, inst *gh.Installation, delivery, event string) (tracker.Trigger, error) {
	full := repo.GetFullName()
	if full == "" || issue.GetNumber() <= 0 {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload has no repository full_name or issue number", tracker.ErrMalformed, event)
	}
	return tracker.Trigger{
		Ref:          tracker.Ref{Source: tracker.GitHub, Repo: full, Number: strconv.Itoa(issue.GetNumber())},
		DeliveryID:   delivery,
		Event:        event,
		Actor:        sender.GetLogin(),
		Installation: inst.GetID(),
	}, nil
}

func (w *Webhook) issues(e *gh.IssuesEvent, delivery string) (tracker.Trigger, error) {
	event := "issues." + e.GetAction()
	t, err := base(e.Repo, e.Issue, e.Sender, e.Installation, delivery, event)
	if err != nil {
		return t, err
	}
	if isBotUser(e.Sender, w.rules.BotLogin) {
		return tracker.Trigger{}, ignored(t, "sender %s is a bot", e.Sender.GetLogin())
	}
	if e.Issue.IsPullRequest() {
		return tracker.Trigger{}, ignored(t, "pull requests are not scoped")
	}
	switch e.GetAction() {
	case "opened":
		if !w.rules.OnOpened {
			return tracker.Trigger{}, ignored(t, "scoping newly opened issues is off")
		}
		t.Reason = tracker.ReasonOpened
		t.SemanticID = semanticID(event, t.Ref, e.Issue.GetID(), e.Issue.GetUpdatedAt())
		return t, nil
	case "labeled":
		if !w.rules.MatchLabel(e.Label.GetName()) {
			return tracker.Trigger{}, ignored(t, "label %q is not a trigger label", e.Label.GetName())
		}
		t.Reason = tracker.ReasonLabeled
		t.SemanticID = semanticID(event+":"+e.Label.GetName(), t.Ref, e.Issue.GetID(), e.Issue.GetUpdatedAt())
		return t, nil
	}
	return tracker.Trigger{}, ignored(t, "action %q does not trigger scoping", e.GetAction())
}

func (w *Webhook) comment(e *gh.IssueCommentEvent, delivery string) (tracker.Trigger, error) {
	event := "issue_comment." + e.GetAction()
	t, err := base(e.Repo, e.Issue, e.Sender, e.Installation, delivery, event)
	if err != nil {
		return t, err
	}
	author := e.Comment.GetUser()
	switch {
	case e.GetAction() != "created":
		return tracker.Trigger{}, ignored(t, "action %q does not trigger scoping", e.GetAction())
	case isBotUser(e.Sender, w.rules.BotLogin) || isBotUser(author, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "comment by a bot (%s)", author.GetLogin())
	case tracker.HasReportMarker(e.Comment.GetBody()):
		return tracker.Trigger{}, ignored(t, "comment is a relay report")
	case e.Issue.IsPullRequest():
		return tracker.Trigger{}, ignored(t, "comments on pull requests are not scoped")
	}
	cmd, ok := w.rules.MatchCommand(e.Comment.GetBody())
	if !ok {
		return tracker.Trigger{}, ignored(t, "comment does not start with a command word")
	}
	if assoc := e.Comment.GetAuthorAssociation(); !w.rules.AssociationAllowed(assoc) {
		return tracker.Trigger{}, ignored(t, "%s (author association %s) may not use %q", author.GetLogin(), assoc, cmd)
	}
	t.Reason = tracker.ReasonCommand
	t.Actor = author.GetLogin()
	t.SemanticID = semanticID(event, t.Ref, e.Comment.GetID(), e.Comment.GetUpdatedAt())
	return t, nil
}

// semanticID names what a delivery reports, whichever webhook sent it: a
// repository webhook and an App webhook deliver the same comment under
// different delivery ids, but with the same issue, comment (or issue) id
// and updated_at. "" when the payload lacks the id or the time.
func semanticID(event string, ref tracker.Ref, id int64, updated gh.Timestamp) string {
	if id == 0 || updated.IsZero() {
		return ""
	}
	return fmt.Sprintf("%s:%s:%d:%s", event, ref.Key(), id, updated.UTC().Format(time.RFC3339Nano))
}

func ignored(t tracker.Trigger, format string, args ...any) error {
	return &tracker.Ignored{Reason: t.Event + " " + t.Ref.Key() + ": " + fmt.Sprintf(format, args...)}
}
