package gitlab

import (
	"cmp"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/relayhq/relay/tracker"
)

// Header names of a GitLab webhook delivery.
const (
	TokenHeader       = "X-Gitlab-Token"
	eventHeader       = "X-Gitlab-Event"
	eventUUIDHeader   = "X-Gitlab-Event-UUID"
	idempotencyHeader = "Idempotency-Key"
)

// Webhook verifies and parses GitLab webhook deliveries. It is safe for
// concurrent use.
type Webhook struct {
	secret [sha256.Size]byte // the secret token's digest: compared in constant time whatever the length
	rules  tracker.Rules
}

var _ tracker.WebhookParser = (*Webhook)(nil)

// NewWebhook returns the parser for deliveries carrying secret in
// X-Gitlab-Token. An empty secret is refused: without it anyone who finds
// the URL could make the bot run jobs.
func NewWebhook(secret []byte, rules tracker.Rules) (*Webhook, error) {
	if len(secret) == 0 {
		return nil, errors.New("gitlab webhook: no secret token; set one on the GitLab webhook (Secret token) and give relay the same")
	}
	return &Webhook{secret: sha256.Sum256(secret), rules: rules}, nil
}

// SignatureHeader names the header every delivery must carry; relay serve
// refuses a delivery without it before reading its body.
func (w *Webhook) SignatureHeader() string { return TokenHeader }

// Parse implements tracker.WebhookParser.
func (w *Webhook) Parse(h http.Header, body []byte) (tracker.Trigger, error) {
	tok := h.Get(TokenHeader)
	if tok == "" {
		return tracker.Trigger{}, fmt.Errorf("%w: no %s header (set the secret token on the GitLab webhook)", tracker.ErrBadSignature, TokenHeader)
	}
	got := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(got[:], w.secret[:]) != 1 {
		return tracker.Trigger{}, fmt.Errorf("%w: %s is not the configured secret token", tracker.ErrBadSignature, TokenHeader)
	}
	event := h.Get(eventHeader)
	switch {
	case event == "":
		return tracker.Trigger{}, fmt.Errorf("%w: no %s header", tracker.ErrMalformed, eventHeader)
	case !json.Valid(body):
		return tracker.Trigger{}, fmt.Errorf("%w: the %s payload is not valid JSON", tracker.ErrMalformed, event)
	}
	delivery := cmp.Or(strings.TrimSpace(h.Get(idempotencyHeader)), strings.TrimSpace(h.Get(eventUUIDHeader)))
	if delivery == "" {
		sum := sha256.Sum256(body)
		delivery = "sha256:" + hex.EncodeToString(sum[:16])
	}
	switch gl.EventType(event) {
	case gl.EventTypeIssue, gl.EventConfidentialIssue, gl.EventTypeNote, gl.EventConfidentialNote:
	case gl.EventTypeMergeRequest:
		if !w.rules.Review {
			return tracker.Trigger{}, &tracker.Ignored{Reason: "merge request review is off"}
		}
	default:
		return tracker.Trigger{}, &tracker.Ignored{Reason: fmt.Sprintf("event %q does not trigger scoping", event)}
	}
	if ignored, ok := otherNote(body); ok && !(w.rules.Review && mergeRequestNote(body)) {
		return tracker.Trigger{}, &tracker.Ignored{Reason: ignored}
	}
	parsed, err := gl.ParseWebhook(gl.EventType(event), body)
	if err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload: %v", tracker.ErrMalformed, event, err)
	}
	switch e := parsed.(type) {
	case *gl.IssueEvent:
		return w.issue(e, delivery)
	case *gl.IssueCommentEvent:
		return w.note(e, delivery)
	case *gl.MergeEvent:
		return w.mergeRequest(e, delivery)
	case *gl.MergeCommentEvent:
		return w.reviewNote(e, delivery)
	}
	return tracker.Trigger{}, &tracker.Ignored{Reason: fmt.Sprintf("event %q does not trigger scoping", event)}
}

// otherNote says whether body is a note on something other than an issue
// (a merge request, a commit, a snippet, a design, …): ignored before it
// is parsed, so a noteable type the client does not know is not taken for
// a malformed delivery.
func otherNote(body []byte) (string, bool) {
	var n struct {
		ObjectKind string `json:"object_kind"`
		Attrs      struct {
			NoteableType string `json:"noteable_type"`
		} `json:"object_attributes"`
	}
	if json.Unmarshal(body, &n) != nil || n.ObjectKind != "note" || n.Attrs.NoteableType == "Issue" {
		return "", false
	}
	return fmt.Sprintf("notes on a %s are not scoped", cmp.Or(n.Attrs.NoteableType, "noteable of no type")), true
}

// trigger builds the trigger common to both events, or says what is
// missing.
func trigger(project string, iid int64, delivery, event string) (tracker.Trigger, error) {
	ref := tracker.Ref{Source: tracker.GitLab, Repo: project, Number: strconv.FormatInt(iid, 10)}
	if _, err := tracker.ParseRef(ref.Key()); err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload has no project path_with_namespace or issue iid: %v", tracker.ErrMalformed, event, err)
	}
	return tracker.Trigger{Ref: ref, DeliveryID: delivery, Event: event}, nil
}

// Events of the triggers this parser returns.
const (
	EventIssueOpen   = "issue.open"
	EventIssueUpdate = "issue.update"
	EventNoteCreate  = "note.create"
)

func (w *Webhook) issue(e *gl.IssueEvent, delivery string) (tracker.Trigger, error) {
	a := e.ObjectAttributes
	t, err := trigger(e.Project.PathWithNamespace, a.IID, delivery, "issue."+a.Action)
	if err != nil {
		return t, err
	}
	if e.User != nil {
		t.Actor, t.ActorID = e.User.Username, strconv.FormatInt(e.User.ID, 10)
	}
	if isBotUser(t.Actor, w.rules.BotLogin) {
		return tracker.Trigger{}, ignored(t, "sender %s is a bot", t.Actor)
	}
	switch a.Action {
	case "open":
		// A label set on the new issue sends no update of its own. It
		// comes first, so that a repository whose opened trigger is off
		// still sees it; the bot scopes it as opened where that is on.
		for _, l := range append(a.Labels, e.Labels...) {
			if l != nil && w.rules.MatchLabel(l.Title) {
				t.Reason = tracker.ReasonLabeled
				return t, nil
			}
		}
		if w.rules.OnOpened {
			t.Reason = tracker.ReasonOpened
			return t, nil
		}
		return tracker.Trigger{}, ignored(t, "scoping newly opened issues is off and no trigger label is set")
	case "update":
		before := map[string]bool{}
		for _, l := range e.Changes.Labels.Previous {
			if l != nil {
				before[strings.ToLower(l.Title)] = true
			}
		}
		for _, l := range e.Changes.Labels.Current {
			if l != nil && !before[strings.ToLower(l.Title)] && w.rules.MatchLabel(l.Title) {
				t.Reason = tracker.ReasonLabeled
				return t, nil
			}
		}
		return tracker.Trigger{}, ignored(t, "no trigger label was added")
	}
	return tracker.Trigger{}, ignored(t, "action %q does not trigger scoping", a.Action)
}

func (w *Webhook) note(e *gl.IssueCommentEvent, delivery string) (tracker.Trigger, error) {
	a := e.ObjectAttributes
	t, err := trigger(e.Project.PathWithNamespace, e.Issue.IID, delivery, EventNoteCreate)
	if err != nil {
		return t, err
	}
	if e.User != nil {
		t.Actor, t.ActorID = e.User.Username, strconv.FormatInt(e.User.ID, 10)
	}
	switch {
	case a.Action != "" && a.Action != gl.CommentEventActionCreate:
		// Older GitLab versions send no action: a note hook was a new note.
		return tracker.Trigger{}, ignored(t, "note action %q does not trigger scoping", a.Action)
	case a.System:
		return tracker.Trigger{}, ignored(t, "system note")
	case e.User != nil && e.User.Bot, isBotUser(t.Actor, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "note by a bot (%s)", t.Actor)
	case tracker.HasReportMarker(a.Note):
		return tracker.Trigger{}, ignored(t, "note is a relay report")
	}
	if _, ok := w.rules.MatchCommand(a.Note); !ok {
		return tracker.Trigger{}, ignored(t, "note does not start with a command word")
	}
	if t.ActorID == "" || t.ActorID == "0" {
		t.ActorID = strconv.FormatInt(a.AuthorID, 10)
	}
	t.Reason = tracker.ReasonCommand
	return t, nil
}

func ignored(t tracker.Trigger, format string, args ...any) error {
	return &tracker.Ignored{Reason: t.Event + " " + t.Ref.Key() + ": " + fmt.Sprintf(format, args...)}
}
