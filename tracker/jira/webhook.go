package jira

import (
	"bytes"
	"cmp"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/relayhq/relay/tracker"
)

// Webhook verifies and parses Jira webhook deliveries. It is safe for
// concurrent use.
type Webhook struct {
	secret []byte
	rules  tracker.Rules
}

var _ tracker.WebhookParser = (*Webhook)(nil)

// NewWebhook returns the parser. With a secret every delivery must be signed
// (X-Hub-Signature: sha256=…); with none, deliveries are accepted unsigned,
// for Jira versions that cannot sign; protect the URL another way then.
func NewWebhook(secret []byte, rules tracker.Rules) (*Webhook, error) {
	return &Webhook{secret: bytes.Clone(secret), rules: rules}, nil
}

// Header names.
const (
	signatureHeader = "X-Hub-Signature"
	deliveryHeader  = "X-Atlassian-Webhook-Identifier"
)

// payload is the part of Jira's webhook body relay reads (the same shape on
// Cloud and Data Center).
type payload struct {
	WebhookEvent string `json:"webhookEvent"`
	User         *user  `json:"user"`
	Issue        *struct {
		Key    string `json:"key"`
		Fields struct {
			Project *struct {
				Key string `json:"key"`
			} `json:"project"`
			Labels []string `json:"labels"`
		} `json:"fields"`
	} `json:"issue"`
	Comment *struct {
		ID     string          `json:"id"`
		Author *user           `json:"author"`
		Body   json.RawMessage `json:"body"` // wiki text; ADF where a site sends it
	} `json:"comment"`
	Changelog *struct {
		Items []struct {
			Field      string `json:"field"`
			FieldID    string `json:"fieldId"`
			FromString string `json:"fromString"`
			ToString   string `json:"toString"`
		} `json:"items"`
	} `json:"changelog"`
}

// Parse implements tracker.WebhookParser.
func (w *Webhook) Parse(h http.Header, body []byte) (tracker.Trigger, error) {
	if err := w.verify(h.Get(signatureHeader), body); err != nil {
		return tracker.Trigger{}, err
	}
	var p payload
	if err := json.Unmarshal(body, &p); err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %v", tracker.ErrMalformed, err)
	}
	if p.WebhookEvent == "" {
		return tracker.Trigger{}, fmt.Errorf("%w: no webhookEvent field; is this a Jira webhook?", tracker.ErrMalformed)
	}
	delivery := h.Get(deliveryHeader)
	if delivery == "" {
		sum := sha256.Sum256(body)
		delivery = "sha256:" + hex.EncodeToString(sum[:16])
	}
	switch p.WebhookEvent {
	case "jira:issue_created", "jira:issue_updated", "comment_created":
	default:
		return tracker.Trigger{}, &tracker.Ignored{Reason: fmt.Sprintf("event %q does not trigger scoping", p.WebhookEvent)}
	}
	if p.Issue == nil || p.Issue.Key == "" {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload has no issue key", tracker.ErrMalformed, p.WebhookEvent)
	}
	// Jira ignores the case of issue and project keys (shop-7 is SHOP-7);
	// the job key is spelt the way Jira shows it, upper-case.
	ref, err := tracker.ParseRef("jira:" + strings.ToUpper(p.Issue.Key))
	if err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %v", tracker.ErrMalformed, err)
	}
	if pr := p.Issue.Fields.Project; pr != nil && pr.Key != "" {
		ref.Repo = strings.ToUpper(pr.Key)
	}
	t := tracker.Trigger{Ref: ref, DeliveryID: delivery, Event: p.WebhookEvent, Actor: p.User.label()}
	switch p.WebhookEvent {
	case "jira:issue_created":
		return w.created(t, &p)
	case "jira:issue_updated":
		return w.updated(t, &p)
	default:
		return w.comment(t, &p)
	}
}

// verify checks the HMAC-SHA256 signature when a secret is configured.
func (w *Webhook) verify(sig string, body []byte) error {
	if len(w.secret) == 0 {
		return nil
	}
	if sig == "" {
		return fmt.Errorf("%w: no %s header, but a webhook secret is configured (set the same secret on the Jira webhook)", tracker.ErrBadSignature, signatureHeader)
	}
	hexSig, ok := strings.CutPrefix(sig, "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil {
		return fmt.Errorf("%w: %s is not sha256=<hex>", tracker.ErrBadSignature, signatureHeader)
	}
	m := hmac.New(sha256.New, w.secret)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return fmt.Errorf("%w: %s does not match the body signed with the configured secret", tracker.ErrBadSignature, signatureHeader)
	}
	return nil
}

func ignored(t tracker.Trigger, format string, args ...any) error {
	return &tracker.Ignored{Reason: t.Event + " " + t.Ref.Key() + ": " + fmt.Sprintf(format, args...)}
}

func (w *Webhook) created(t tracker.Trigger, p *payload) (tracker.Trigger, error) {
	if p.User.is(w.rules.BotLogin) {
		return tracker.Trigger{}, ignored(t, "created by the bot account")
	}
	// Jira sends no label event for labels set at creation. A trigger
	// label comes first, so that a repository whose opened trigger is off
	// still sees it; the bot scopes it as opened where that is on.
	for _, l := range p.Issue.Fields.Labels {
		if w.rules.MatchLabel(l) {
			t.Reason = tracker.ReasonLabeled
			return t, nil
		}
	}
	if w.rules.OnOpened {
		t.Reason = tracker.ReasonOpened
		return t, nil
	}
	return tracker.Trigger{}, ignored(t, "scoping newly created issues is off and no trigger label is set")
}

func (w *Webhook) updated(t tracker.Trigger, p *payload) (tracker.Trigger, error) {
	if p.User.is(w.rules.BotLogin) {
		return tracker.Trigger{}, ignored(t, "updated by the bot account")
	}
	if p.Changelog != nil {
		for _, it := range p.Changelog.Items {
			if it.Field != "labels" && it.FieldID != "labels" {
				continue
			}
			// Labels are space-separated in the changelog strings.
			before := map[string]bool{}
			for _, l := range strings.Fields(it.FromString) {
				before[strings.ToLower(l)] = true
			}
			for _, l := range strings.Fields(it.ToString) {
				if !before[strings.ToLower(l)] && w.rules.MatchLabel(l) {
					t.Reason = tracker.ReasonLabeled
					return t, nil
				}
			}
		}
	}
	return tracker.Trigger{}, ignored(t, "no trigger label was added")
}

func (w *Webhook) comment(t tracker.Trigger, p *payload) (tracker.Trigger, error) {
	if p.Comment == nil {
		return tracker.Trigger{}, fmt.Errorf("%w: comment_created payload has no comment", tracker.ErrMalformed)
	}
	body, err := text(p.Comment.Body)
	if err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: comment body: %v", tracker.ErrMalformed, err)
	}
	author := p.Comment.Author
	switch {
	case author.is(w.rules.BotLogin) || p.User.is(w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "comment by the bot account")
	case author != nil && author.AccountType == "app":
		return tracker.Trigger{}, ignored(t, "comment by an app (%s)", author.label())
	case hasMarker(body):
		return tracker.Trigger{}, ignored(t, "comment is a relay report")
	}
	if _, ok := w.rules.MatchCommand(body); !ok {
		return tracker.Trigger{}, ignored(t, "comment does not start with a command word")
	}
	t.Reason = tracker.ReasonCommand
	if a := author.label(); a != "" {
		t.Actor = a
	}
	if author != nil {
		t.ActorID = cmp.Or(author.AccountID, author.Name, author.Key)
	}
	return t, nil
}
