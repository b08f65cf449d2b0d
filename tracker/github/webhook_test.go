package github

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tracker"
)

// examplesIndex is GitHub's published webhook examples, installed by
// scripts/setup.sh (npm ci in testdata/webhooks).
var examplesIndex = filepath.Join("testdata", "webhooks", "node_modules", "@octokit", "webhooks-examples", "api.github.com", "index.json")

type webhookExamples []struct {
	Name     string            `json:"name"`
	Examples []json.RawMessage `json:"examples"`
}

// loadExamples reads the index once: it is megabytes of JSON, slow to parse
// under the race detector in every subtest.
var loadExamples = sync.OnceValues(func() (webhookExamples, error) {
	b, err := os.ReadFile(examplesIndex)
	if err != nil {
		return nil, err
	}
	var index webhookExamples
	if err := json.Unmarshal(b, &index); err != nil {
		return nil, fmt.Errorf("decode %s: %w", examplesIndex, err)
	}
	return index, nil
})

// examples returns the published example payloads of event whose action is
// action, as generic JSON the tests can edit. It skips when the npm package
// is absent, and fails under CI=true.
func examples(t *testing.T, event, action string) []map[string]any {
	t.Helper()
	index, err := loadExamples()
	if errors.Is(err, fs.ErrNotExist) {
		testutil.Missing(t, fmt.Sprintf("GitHub webhook examples not installed (%v)", err), "run scripts/setup.sh (needs npm)")
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, w := range index {
		if w.Name != event {
			continue
		}
		for _, raw := range w.Examples {
			var e map[string]any
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatal(err)
			}
			if e["action"] == action {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("no %s.%s example in %s", event, action, examplesIndex)
	}
	return out
}

// edit returns a deep copy of payload with fn applied.
func edit(t *testing.T, payload map[string]any, fn func(p map[string]any)) map[string]any {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	var cp map[string]any
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	if fn != nil {
		fn(cp)
	}
	return cp
}

func obj(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

var testSecret = []byte("It's a Secret to Everybody")

func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// delivery signs body like GitHub does.
func delivery(t *testing.T, event string, payload any) (http.Header, []byte) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("X-GitHub-Event", event)
	h.Set("X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958")
	h.Set("X-Hub-Signature-256", sign(testSecret, body))
	return h, body
}

func newHook(t *testing.T, rules tracker.Rules) *Webhook {
	t.Helper()
	w, err := NewWebhook(testSecret, rules)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

var helloWorld1 = tracker.Ref{Source: tracker.GitHub, Repo: "Codertocat/Hello-World", Number: "1"}

func TestWebhookTriggersOnRealPayloads(t *testing.T) {
	t.Parallel()
	rules := tracker.Rules{OnOpened: true, Labels: []string{"BUG"}, Commands: []string{"/relay scope"}, BotLogin: "relay-bot"}
	command := func(p map[string]any) { obj(p, "comment")["body"] = "  /relay scope please" }
	tests := []struct {
		name, event, action string
		edit                func(map[string]any)
		want                tracker.Trigger
	}{
		{"issues.opened", "issues", "opened", nil, tracker.Trigger{Event: "issues.opened", Reason: tracker.ReasonOpened, Actor: "Codertocat"}},
		{"issues.labeled with a trigger label (case-insensitive)", "issues", "labeled", nil, tracker.Trigger{Event: "issues.labeled", Reason: tracker.ReasonLabeled, Actor: "Codertocat"}},
		{"issue_comment.created with the command", "issue_comment", "created", command, tracker.Trigger{Event: "issue_comment.created", Reason: tracker.ReasonCommand, Actor: "Codertocat"}},
		{"command word alone", "issue_comment", "created", func(p map[string]any) { obj(p, "comment")["body"] = "/RELAY SCOPE" },
			tracker.Trigger{Event: "issue_comment.created", Reason: tracker.ReasonCommand, Actor: "Codertocat"}},
		{"command from a MEMBER", "issue_comment", "created", func(p map[string]any) { command(p); obj(p, "comment")["author_association"] = "MEMBER" },
			tracker.Trigger{Event: "issue_comment.created", Reason: tracker.ReasonCommand, Actor: "Codertocat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook := newHook(t, rules)
			for i, ex := range examples(t, tt.event, tt.action) {
				h, body := delivery(t, tt.event, edit(t, ex, tt.edit))
				got, err := hook.Parse(h, body)
				if err != nil {
					t.Fatalf("example %d: Parse: %v", i, err)
				}
				want := tt.want
				want.Ref = helloWorld1
				want.DeliveryID = "72d3162e-cc78-11e3-81ab-4c9367dc0958"
				if inst, ok := ex["installation"].(map[string]any); ok {
					want.Installation = int64(inst["id"].(float64))
				}
				// TestWebhookSemanticID checks the semantic id.
				if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(tracker.Trigger{}, "SemanticID")); diff != "" {
					t.Errorf("example %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestWebhookInstallation checks the delivery's app installation id reaches
// the trigger (one of the published issue_comment examples carries one).
func TestWebhookInstallation(t *testing.T) {
	t.Parallel()
	hook := newHook(t, tracker.Rules{Commands: []string{"/relay scope"}})
	seen := false
	for _, ex := range examples(t, "issue_comment", "created") {
		if _, ok := ex["installation"]; !ok {
			continue
		}
		seen = true
		h, body := delivery(t, "issue_comment", edit(t, ex, func(p map[string]any) { obj(p, "comment")["body"] = "/relay scope" }))
		got, err := hook.Parse(h, body)
		if err != nil || got.Installation != 1 {
			t.Errorf("Parse = %+v, %v; want installation 1", got, err)
		}
	}
	if !seen {
		t.Fatal("no published issue_comment.created example with an installation")
	}
}

func TestWebhookIgnores(t *testing.T) {
	t.Parallel()
	rules := tracker.Rules{Labels: []string{"relay"}, Commands: []string{"/relay scope"}, BotLogin: "relay-bot"}
	command := func(p map[string]any) { obj(p, "comment")["body"] = "/relay scope" }
	tests := []struct {
		name, event, action string
		rules               *tracker.Rules
		edit                func(map[string]any)
		reason              string
	}{
		{"opened while OnOpened is off", "issues", "opened", nil, nil, "newly opened issues is off"},
		{"labeled with another label", "issues", "labeled", nil, nil, `label "bug" is not a trigger label`},
		{"unlabeled", "issues", "unlabeled", &tracker.Rules{Labels: []string{"bug"}}, nil, `action "unlabeled"`},
		{"comment without a command", "issue_comment", "created", nil, nil, "does not start with a command word"},
		{"command inside a word", "issue_comment", "created", nil, func(p map[string]any) { obj(p, "comment")["body"] = "/relay scoped it" }, "does not start with a command word"},
		{"edited comment", "issue_comment", "edited", nil, command, `action "edited"`},
		{"command from an author without the association", "issue_comment", "created", nil, func(p map[string]any) {
			command(p)
			obj(p, "comment")["author_association"] = "NONE"
		}, "author association NONE"},
		{"CONTRIBUTOR not in the configured associations", "issue_comment", "created",
			&tracker.Rules{Commands: []string{"/relay scope"}, Associations: []string{"OWNER"}},
			func(p map[string]any) { command(p); obj(p, "comment")["author_association"] = "CONTRIBUTOR" }, "author association CONTRIBUTOR"},
		{"the bot's own comment", "issue_comment", "created", nil, func(p map[string]any) {
			command(p)
			obj(obj(p, "comment"), "user")["login"] = "relay-bot"
		}, "comment by a bot (relay-bot)"},
		{"the bot's report", "issue_comment", "created", nil, func(p map[string]any) {
			obj(p, "comment")["body"] = "/relay scope\n\n" + tracker.ReportMarker
		}, "is a relay report"},
		{"sender of type Bot", "issue_comment", "created", nil, func(p map[string]any) {
			command(p)
			obj(p, "sender")["type"] = "Bot"
		}, "by a bot"},
		{"login ending in [bot]", "issue_comment", "created", nil, func(p map[string]any) {
			command(p)
			obj(obj(p, "comment"), "user")["login"] = "dependabot[bot]"
			obj(p, "sender")["login"] = "dependabot[bot]"
		}, "by a bot (dependabot[bot])"},
		{"bot opening an issue", "issues", "opened", &tracker.Rules{OnOpened: true}, func(p map[string]any) {
			obj(p, "sender")["login"] = "renovate[bot]"
		}, "sender renovate[bot] is a bot"},
		{"comment on a pull request", "issue_comment", "created", nil, func(p map[string]any) {
			command(p)
			obj(p, "issue")["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
		}, "pull requests are not scoped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := rules
			if tt.rules != nil {
				r = *tt.rules
			}
			hook := newHook(t, r)
			ex := examples(t, tt.event, tt.action)[0]
			h, body := delivery(t, tt.event, edit(t, ex, tt.edit))
			_, err := hook.Parse(h, body)
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
	hook := newHook(t, tracker.Rules{OnOpened: true})
	opened := examples(t, "issues", "opened")[0]
	tests := []struct {
		name   string
		mutate func(h http.Header, body []byte) (http.Header, []byte)
		want   error // ErrBadSignature, ErrMalformed, or nil for *Ignored
	}{
		{"missing signature", func(h http.Header, b []byte) (http.Header, []byte) { h.Del("X-Hub-Signature-256"); return h, b }, tracker.ErrBadSignature},
		{"wrong secret", func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("X-Hub-Signature-256", sign([]byte("another secret"), b))
			return h, b
		}, tracker.ErrBadSignature},
		{"body changed after signing", func(h http.Header, b []byte) (http.Header, []byte) {
			return h, []byte(strings.Replace(string(b), "Codertocat", "Mallory", 1))
		}, tracker.ErrBadSignature},
		{"sha1 signature only", func(h http.Header, b []byte) (http.Header, []byte) {
			h.Del("X-Hub-Signature-256")
			h.Set("X-Hub-Signature", "sha1=0000")
			return h, b
		}, tracker.ErrBadSignature},
		{"not hex", func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("X-Hub-Signature-256", "sha256=zz")
			return h, b
		}, tracker.ErrBadSignature},
		{"malformed JSON", func(h http.Header, _ []byte) (http.Header, []byte) {
			b := []byte(`{"action":"opened","issue":`)
			h.Set("X-Hub-Signature-256", sign(testSecret, b))
			return h, b
		}, tracker.ErrMalformed},
		{"wrong JSON types", func(h http.Header, _ []byte) (http.Header, []byte) {
			b := []byte(`{"action":"opened","issue":{"number":"one"}}`)
			h.Set("X-Hub-Signature-256", sign(testSecret, b))
			return h, b
		}, tracker.ErrMalformed},
		{"no repository", func(h http.Header, _ []byte) (http.Header, []byte) {
			b := []byte(`{"action":"opened","issue":{"number":1}}`)
			h.Set("X-Hub-Signature-256", sign(testSecret, b))
			return h, b
		}, tracker.ErrMalformed},
		{"no event header", func(h http.Header, b []byte) (http.Header, []byte) { h.Del("X-GitHub-Event"); return h, b }, tracker.ErrMalformed},
		{"no delivery header", func(h http.Header, b []byte) (http.Header, []byte) { h.Del("X-GitHub-Delivery"); return h, b }, tracker.ErrMalformed},
		{"unsupported content type", func(h http.Header, b []byte) (http.Header, []byte) { h.Set("Content-Type", "text/plain"); return h, b }, tracker.ErrMalformed},
		{"unknown event", func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("X-GitHub-Event", "no_such_event")
			return h, b
		}, nil},
		{"ping", func(h http.Header, b []byte) (http.Header, []byte) { h.Set("X-GitHub-Event", "ping"); return h, b }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, body := delivery(t, "issues", opened)
			h, body = tt.mutate(h, body)
			_, err := hook.Parse(h, body)
			if tt.want == nil {
				var ig *tracker.Ignored
				if !errors.As(err, &ig) {
					t.Fatalf("Parse error = %v, want *tracker.Ignored", err)
				}
				return
			}
			if !errors.Is(err, tt.want) {
				t.Fatalf("Parse error = %v, want %v", err, tt.want)
			}
			if strings.Contains(err.Error(), string(testSecret)) {
				t.Errorf("error reveals the secret: %v", err)
			}
		})
	}
}

// TestWebhookFormEncoded: GitHub can deliver the payload as a form field;
// the signature covers the form body.
func TestWebhookFormEncoded(t *testing.T) {
	t.Parallel()
	hook := newHook(t, tracker.Rules{OnOpened: true})
	js, err := json.Marshal(examples(t, "issues", "opened")[0])
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(url.Values{"payload": {string(js)}}.Encode())
	h := http.Header{}
	h.Set("Content-Type", "application/x-www-form-urlencoded")
	h.Set("X-GitHub-Event", "issues")
	h.Set("X-GitHub-Delivery", "d1")
	h.Set("X-Hub-Signature-256", sign(testSecret, body))
	got, err := hook.Parse(h, body)
	if err != nil || got.Ref != helloWorld1 {
		t.Fatalf("Parse = %+v, %v", got, err)
	}
}

func TestNewWebhookRefusesEmptySecret(t *testing.T) {
	t.Parallel()
	if _, err := NewWebhook(nil, tracker.Rules{}); err == nil {
		t.Fatal("NewWebhook accepted an empty secret")
	}
}
