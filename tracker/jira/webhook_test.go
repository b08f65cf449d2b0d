package jira

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
)

var hookSecret = []byte("jira webhook secret")

func readPayload(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// editPayload applies fn to the JSON of a testdata payload.
func editPayload(t *testing.T, b []byte, fn func(p map[string]any)) []byte {
	t.Helper()
	if fn == nil {
		return b
	}
	var p map[string]any
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	fn(p)
	out, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func m(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

func signedHeader(secret, body []byte) http.Header {
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-Atlassian-Webhook-Identifier", "webhook-delivery-1")
	if secret != nil {
		mac := hmac.New(sha256.New, secret)
		mac.Write(body)
		h.Set("X-Hub-Signature", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	}
	return h
}

func TestWebhookTriggers(t *testing.T) {
	t.Parallel()
	rules := tracker.Rules{OnOpened: true, Labels: []string{"relay-scope"}, Commands: []string{"/relay scope"}, BotLogin: "relay-bot"}
	shop42 := tracker.Ref{Source: tracker.Jira, Repo: "SHOP", Number: "SHOP-42"}
	ops7 := tracker.Ref{Source: tracker.Jira, Repo: "OPS", Number: "OPS-7"}
	tests := []struct {
		name, file string
		rules      *tracker.Rules
		edit       func(map[string]any)
		want       tracker.Trigger
	}{
		{"issue created", "cloud-issue_created.json", nil, nil,
			tracker.Trigger{Ref: shop42, Event: "jira:issue_created", Reason: tracker.ReasonOpened, Actor: "Ada Lovelace"}},
		{"issue created with a trigger label while OnOpened is off", "cloud-issue_created.json", &tracker.Rules{Labels: []string{"payments"}}, nil,
			tracker.Trigger{Ref: shop42, Event: "jira:issue_created", Reason: tracker.ReasonLabeled, Actor: "Ada Lovelace"}},
		{"label added (Cloud)", "cloud-issue_updated-labels.json", nil, nil,
			tracker.Trigger{Ref: shop42, Event: "jira:issue_updated", Reason: tracker.ReasonLabeled, Actor: "Grace Hopper"}},
		{"label added (Data Center, other case)", "dc-issue_updated-labels.json", nil, nil,
			tracker.Trigger{Ref: ops7, Event: "jira:issue_updated", Reason: tracker.ReasonLabeled, Actor: "Grace Hopper"}},
		{"command comment (Cloud)", "cloud-comment_created.json", nil, nil,
			tracker.Trigger{Ref: shop42, Event: "comment_created", Reason: tracker.ReasonCommand, Actor: "Grace Hopper", ActorID: "5b10a2844c20165700ede21g"}},
		{"command comment (Data Center, CRLF)", "dc-comment_created.json", nil, nil,
			tracker.Trigger{Ref: ops7, Event: "comment_created", Reason: tracker.ReasonCommand, Actor: "Grace Hopper", ActorID: "grace"}},
		{"command in an ADF comment body", "cloud-comment_created.json", nil, func(p map[string]any) {
			m(p, "comment")["body"] = map[string]any{"type": "doc", "version": 1, "content": []any{
				map[string]any{"type": "paragraph", "content": []any{map[string]any{"type": "text", "text": "/relay scope"}}},
			}}
		}, tracker.Trigger{Ref: shop42, Event: "comment_created", Reason: tracker.ReasonCommand, Actor: "Grace Hopper", ActorID: "5b10a2844c20165700ede21g"}},
		{"lower-case issue and project keys (Jira ignores their case)", "cloud-comment_created.json", nil, func(p map[string]any) {
			m(p, "issue")["key"] = "shop-42"
			m(m(m(p, "issue"), "fields"), "project")["key"] = "shop"
		}, tracker.Trigger{Ref: shop42, Event: "comment_created", Reason: tracker.ReasonCommand, Actor: "Grace Hopper", ActorID: "5b10a2844c20165700ede21g"}},
		{"project key from the issue key when fields lack it", "cloud-comment_created.json", nil, func(p map[string]any) {
			delete(m(m(p, "issue"), "fields"), "project")
		}, tracker.Trigger{Ref: shop42, Event: "comment_created", Reason: tracker.ReasonCommand, Actor: "Grace Hopper", ActorID: "5b10a2844c20165700ede21g"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rules
			if tt.rules != nil {
				r = *tt.rules
			}
			hook, err := NewWebhook(hookSecret, r)
			if err != nil {
				t.Fatal(err)
			}
			body := editPayload(t, readPayload(t, tt.file), tt.edit)
			got, err := hook.Parse(signedHeader(hookSecret, body), body)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			want := tt.want
			want.DeliveryID = "webhook-delivery-1"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestWebhookIgnores(t *testing.T) {
	t.Parallel()
	rules := tracker.Rules{Labels: []string{"relay-scope"}, Commands: []string{"/relay scope"}, BotLogin: "relay-bot"}
	tests := []struct {
		name, file string
		edit       func(map[string]any)
		reason     string
	}{
		{"created while OnOpened is off", "cloud-issue_created.json", nil, "no trigger label"},
		{"update without a label change", "cloud-issue_updated-summary.json", nil, "no trigger label was added"},
		{"label already there", "cloud-issue_updated-labels.json", func(p map[string]any) {
			it := m(p, "changelog")["items"].([]any)[0].(map[string]any)
			it["fromString"] = "relay-scope"
			it["toString"] = "relay-scope payments"
		}, "no trigger label was added"},
		{"label removed", "cloud-issue_updated-labels.json", func(p map[string]any) {
			it := m(p, "changelog")["items"].([]any)[0].(map[string]any)
			it["fromString"], it["toString"] = "payments relay-scope", "payments"
		}, "no trigger label was added"},
		{"comment without a command", "cloud-comment_created.json", func(p map[string]any) { m(p, "comment")["body"] = "Any news?" }, "does not start with a command word"},
		{"the bot's own comment (Data Center name)", "dc-comment_created.json", func(p map[string]any) { m(m(p, "comment"), "author")["name"] = "relay-bot" }, "by the bot account"},
		{"the bot's own comment (Cloud account id)", "cloud-comment_created.json", func(p map[string]any) {
			m(m(p, "comment"), "author")["accountId"] = "relay-bot"
		}, "by the bot account"},
		{"an app's comment", "cloud-comment_created.json", func(p map[string]any) { m(m(p, "comment"), "author")["accountType"] = "app" }, "by an app"},
		{"the report itself", "cloud-comment_created.json", func(p map[string]any) {
			m(p, "comment")["body"] = "/relay scope\n\n" + wikiMarker
		}, "is a relay report"},
		{"comment updated", "cloud-comment_created.json", func(p map[string]any) { p["webhookEvent"] = "comment_updated" }, `event "comment_updated"`},
		{"unknown event", "cloud-issue_created.json", func(p map[string]any) { p["webhookEvent"] = "jira:worklog_updated" }, `event "jira:worklog_updated"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook, err := NewWebhook(hookSecret, rules)
			if err != nil {
				t.Fatal(err)
			}
			body := editPayload(t, readPayload(t, tt.file), tt.edit)
			_, err = hook.Parse(signedHeader(hookSecret, body), body)
			var ig *tracker.Ignored
			if !errors.As(err, &ig) {
				t.Fatalf("Parse error = %v, want *tracker.Ignored", err)
			}
			if !strings.Contains(ig.Reason, tt.reason) {
				t.Errorf("reason %q does not contain %q", ig.Reason, tt.reason)
			}
		})
	}
}

func TestWebhookBadInput(t *testing.T) {
	t.Parallel()
	good := readPayload(t, "cloud-comment_created.json")
	rules := tracker.Rules{Commands: []string{"/relay scope"}}
	tests := []struct {
		name   string
		secret []byte
		header func(body []byte) http.Header
		body   []byte
		want   error
	}{
		{"secret configured, unsigned", hookSecret, func(b []byte) http.Header { return signedHeader(nil, b) }, good, tracker.ErrBadSignature},
		{"wrong secret", hookSecret, func(b []byte) http.Header { return signedHeader([]byte("other"), b) }, good, tracker.ErrBadSignature},
		{"not sha256=", hookSecret, func(b []byte) http.Header {
			h := signedHeader(hookSecret, b)
			h.Set("X-Hub-Signature", strings.TrimPrefix(h.Get("X-Hub-Signature"), "sha256="))
			return h
		}, good, tracker.ErrBadSignature},
		{"not hex", hookSecret, func(b []byte) http.Header {
			h := signedHeader(hookSecret, b)
			h.Set("X-Hub-Signature", "sha256=xyz")
			return h
		}, good, tracker.ErrBadSignature},
		{"malformed JSON", hookSecret, func(b []byte) http.Header { return signedHeader(hookSecret, b) }, []byte(`{"webhookEvent":`), tracker.ErrMalformed},
		{"not a Jira webhook", hookSecret, func(b []byte) http.Header { return signedHeader(hookSecret, b) }, []byte(`{"action":"opened"}`), tracker.ErrMalformed},
		{"no issue", nil, func(b []byte) http.Header { return signedHeader(nil, b) }, []byte(`{"webhookEvent":"comment_created","comment":{"body":"/relay scope"}}`), tracker.ErrMalformed},
		{"bad issue key", nil, func(b []byte) http.Header { return signedHeader(nil, b) }, []byte(`{"webhookEvent":"jira:issue_created","issue":{"key":"nokey"}}`), tracker.ErrMalformed},
		{"no comment", nil, func(b []byte) http.Header { return signedHeader(nil, b) }, []byte(`{"webhookEvent":"comment_created","issue":{"key":"A-1"}}`), tracker.ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook, err := NewWebhook(tt.secret, rules)
			if err != nil {
				t.Fatal(err)
			}
			_, err = hook.Parse(tt.header(tt.body), tt.body)
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse error = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), string(hookSecret)) {
				t.Errorf("error reveals the secret: %v", err)
			}
		})
	}
}

// TestWebhookWithoutSecret: an unsigned delivery is accepted when no secret
// is configured, and the delivery id falls back to a hash of the body.
func TestWebhookWithoutSecret(t *testing.T) {
	t.Parallel()
	hook, err := NewWebhook(nil, tracker.Rules{Commands: []string{"/relay scope"}})
	if err != nil {
		t.Fatal(err)
	}
	body := readPayload(t, "dc-comment_created.json")
	h := http.Header{}
	got, err := hook.Parse(h, body)
	if err != nil {
		t.Fatal(err)
	}
	again, err := hook.Parse(h, body)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got.DeliveryID, "sha256:") || got.DeliveryID != again.DeliveryID {
		t.Errorf("delivery ids %q and %q: want one body-hash id for the same body", got.DeliveryID, again.DeliveryID)
	}
}
