package gitlab

import (
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

var testSecret = []byte("gitlab-secret-token")

// example reads one of GitLab's published payloads (testdata/webhooks,
// see its README) as generic JSON the tests can edit.
func example(t testing.TB, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "webhooks", name))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return m
}

func obj(p map[string]any, key string) map[string]any { return p[key].(map[string]any) }

// delivery is a GitLab delivery of payload as event, with the secret token.
func delivery(t testing.TB, event string, payload any) (http.Header, []byte) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set("X-Gitlab-Event", event)
	h.Set("X-Gitlab-Token", string(testSecret))
	h.Set("X-Gitlab-Event-UUID", "uuid-1")
	return h, body
}

func newHook(t testing.TB, rules tracker.Rules) *Webhook {
	t.Helper()
	if rules.Commands == nil {
		rules.Commands = []string{"/relay scope"}
	}
	w, err := NewWebhook(testSecret, rules)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// labeled makes the published issue payload an update that adds label.
func labeled(t testing.TB, label string) map[string]any {
	p := example(t, "issue.json")
	obj(p, "object_attributes")["action"] = "update"
	ch := obj(p, "changes")
	ch["labels"] = map[string]any{
		"previous": []any{map[string]any{"id": 206, "title": "API"}},
		"current":  []any{map[string]any{"id": 206, "title": "API"}, map[string]any{"id": 207, "title": label}},
	}
	return p
}

func command(t testing.TB, body string) map[string]any {
	p := example(t, "note_issue.json")
	obj(p, "object_attributes")["note"] = body
	return p
}

func TestWebhookTriggersOnRealPayloads(t *testing.T) {
	cases := []struct {
		name    string
		rules   tracker.Rules
		event   string
		payload map[string]any
		want    tracker.Trigger
	}{
		{
			name: "issue opened", rules: tracker.Rules{OnOpened: true}, event: "Issue Hook", payload: example(t, "issue.json"),
			want: tracker.Trigger{Ref: tracker.Ref{Source: "gitlab", Repo: "gitlabhq/gitlab-test", Number: "23"}, DeliveryID: "uuid-1",
				Event: "issue.open", Reason: tracker.ReasonOpened, Actor: "root", ActorID: "1"},
		},
		{
			name: "opened with a trigger label", rules: tracker.Rules{Labels: []string{"api"}}, event: "Issue Hook", payload: example(t, "issue.json"),
			want: tracker.Trigger{Ref: tracker.Ref{Source: "gitlab", Repo: "gitlabhq/gitlab-test", Number: "23"}, DeliveryID: "uuid-1",
				Event: "issue.open", Reason: tracker.ReasonLabeled, Actor: "root", ActorID: "1"},
		},
		{
			name: "label added", rules: tracker.Rules{Labels: []string{"relay-scope"}}, event: "Issue Hook", payload: labeled(t, "Relay-Scope"),
			want: tracker.Trigger{Ref: tracker.Ref{Source: "gitlab", Repo: "gitlabhq/gitlab-test", Number: "23"}, DeliveryID: "uuid-1",
				Event: "issue.update", Reason: tracker.ReasonLabeled, Actor: "root", ActorID: "1"},
		},
		{
			name: "confidential issue", rules: tracker.Rules{OnOpened: true}, event: "Confidential Issue Hook", payload: example(t, "issue.json"),
			want: tracker.Trigger{Ref: tracker.Ref{Source: "gitlab", Repo: "gitlabhq/gitlab-test", Number: "23"}, DeliveryID: "uuid-1",
				Event: "issue.open", Reason: tracker.ReasonOpened, Actor: "root", ActorID: "1"},
		},
		{
			name: "command note", event: "Note Hook", payload: command(t, "  /relay scope please"),
			want: tracker.Trigger{Ref: tracker.Ref{Source: "gitlab", Repo: "gitlab-org/gitlab-test", Number: "17"}, DeliveryID: "uuid-1",
				Event: "note.create", Reason: tracker.ReasonCommand, Actor: "user1", ActorID: "42"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, body := delivery(t, tc.event, tc.payload)
			got, err := newHook(t, tc.rules).Parse(h, body)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("trigger (-want +got):\n%s", d)
			}
		})
	}
}

func TestWebhookDeliveryID(t *testing.T) {
	w := newHook(t, tracker.Rules{OnOpened: true})
	h, body := delivery(t, "Issue Hook", example(t, "issue.json"))
	h.Set("Idempotency-Key", "idem-9")
	if got, err := w.Parse(h, body); err != nil || got.DeliveryID != "idem-9" {
		t.Errorf("with Idempotency-Key: delivery %q, %v; want idem-9", got.DeliveryID, err)
	}
	h.Del("Idempotency-Key")
	h.Del("X-Gitlab-Event-UUID")
	a, err := w.Parse(h, body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := w.Parse(h, body)
	if !strings.HasPrefix(a.DeliveryID, "sha256:") || a.DeliveryID != b.DeliveryID {
		t.Errorf("without ids: %q then %q, want one body hash", a.DeliveryID, b.DeliveryID)
	}
}

func TestWebhookIgnores(t *testing.T) {
	botNote := command(t, "/relay scope")
	obj(botNote, "user")["username"] = "project_5_bot_3f2a"
	relayNote := command(t, "/relay scope")
	obj(relayNote, "user")["username"] = "relay-bot"
	report := command(t, "/relay scope\n"+tracker.ReportMarker)
	system := command(t, "/relay scope")
	obj(system, "object_attributes")["system"] = true
	edited := command(t, "/relay scope")
	obj(edited, "object_attributes")["action"] = "update"
	closed := example(t, "issue.json")
	obj(closed, "object_attributes")["action"] = "close"
	mr := example(t, "note_merge_request.json")
	obj(mr, "object_attributes")["note"] = "/relay scope"
	cases := []struct {
		name, event string
		rules       tracker.Rules
		payload     map[string]any
		why         string
	}{
		{"opened, scoping off", "Issue Hook", tracker.Rules{}, example(t, "issue.json"), "newly opened"},
		{"label kept, none added", "Issue Hook", tracker.Rules{Labels: []string{"API"}}, labeled(t, "other"), "no trigger label"},
		{"closed", "Issue Hook", tracker.Rules{OnOpened: true}, closed, `action "close"`},
		{"plain note", "Note Hook", tracker.Rules{}, command(t, "thanks!"), "command word"},
		{"note by a token's bot user", "Note Hook", tracker.Rules{}, botNote, "bot"},
		{"note by relay", "Note Hook", tracker.Rules{BotLogin: "relay-bot"}, relayNote, "bot"},
		{"relay's report", "Note Hook", tracker.Rules{}, report, "relay report"},
		{"system note", "Note Hook", tracker.Rules{}, system, "system note"},
		{"edited note", "Note Hook", tracker.Rules{}, edited, `"update"`},
		{"note on a merge request", "Note Hook", tracker.Rules{}, mr, "MergeRequest"},
		{"push", "Push Hook", tracker.Rules{OnOpened: true}, map[string]any{"object_kind": "push"}, "Push Hook"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, body := delivery(t, tc.event, tc.payload)
			_, err := newHook(t, tc.rules).Parse(h, body)
			var ign *tracker.Ignored
			if !errors.As(err, &ign) || !strings.Contains(ign.Reason, tc.why) {
				t.Errorf("got %v, want ignored for %q", err, tc.why)
			}
		})
	}
}

func TestWebhookBadInput(t *testing.T) {
	good := func() (http.Header, []byte) { return delivery(t, "Issue Hook", example(t, "issue.json")) }
	noPath := example(t, "issue.json")
	obj(noPath, "project")["path_with_namespace"] = ""
	cases := []struct {
		name string
		edit func(h http.Header, body []byte) (http.Header, []byte)
		want error
	}{
		{"no token", func(h http.Header, b []byte) (http.Header, []byte) { h.Del("X-Gitlab-Token"); return h, b }, tracker.ErrBadSignature},
		{"wrong token", func(h http.Header, b []byte) (http.Header, []byte) { h.Set("X-Gitlab-Token", "guess"); return h, b }, tracker.ErrBadSignature},
		{"token prefix", func(h http.Header, b []byte) (http.Header, []byte) {
			h.Set("X-Gitlab-Token", string(testSecret[:len(testSecret)-1]))
			return h, b
		}, tracker.ErrBadSignature},
		{"no event", func(h http.Header, b []byte) (http.Header, []byte) { h.Del("X-Gitlab-Event"); return h, b }, tracker.ErrMalformed},
		{"not JSON", func(h http.Header, b []byte) (http.Header, []byte) { return h, []byte("{oops") }, tracker.ErrMalformed},
		{"wrong types", func(h http.Header, b []byte) (http.Header, []byte) {
			return h, []byte(`{"object_kind":"issue","object_attributes":{"iid":"seven"}}`)
		}, tracker.ErrMalformed},
		{"no project path", func(h http.Header, b []byte) (http.Header, []byte) {
			_, body := delivery(t, "Issue Hook", noPath)
			return h, body
		}, tracker.ErrMalformed},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, body := tc.edit(good())
			_, err := newHook(t, tracker.Rules{OnOpened: true}).Parse(h, body)
			if !errors.Is(err, tc.want) {
				t.Errorf("got %v, want %v", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), string(testSecret)) {
				t.Errorf("the error names the secret: %v", err)
			}
		})
	}
}

func TestNewWebhookRefusesEmptySecret(t *testing.T) {
	if _, err := NewWebhook(nil, tracker.Rules{}); err == nil || !strings.Contains(err.Error(), "secret token") {
		t.Errorf("got %v, want an error asking for the secret token", err)
	}
}

// FuzzWebhookParse feeds the parser arbitrary bodies and event names with
// the right token: it must never panic, and whatever it returns is a
// trigger naming a GitLab issue, an *Ignored, or an ErrMalformed.
func FuzzWebhookParse(f *testing.F) {
	for _, name := range []string{"issue.json", "note_issue.json", "note_merge_request.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "webhooks", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add("Issue Hook", b)
		f.Add("Note Hook", b)
	}
	f.Add("Note Hook", []byte(`{"object_kind":"note","object_attributes":{"noteable_type":"Issue","note":"/relay scope"},"issue":{"iid":1},"project":{"path_with_namespace":"a/b"}}`))
	f.Add("Confidential Note Hook", []byte(`{"object_kind":"note"}`))
	w := newHook(f, tracker.Rules{OnOpened: true, Labels: []string{"api"}})
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		h := http.Header{}
		h.Set("X-Gitlab-Token", string(testSecret))
		h.Set("X-Gitlab-Event", event)
		got, err := w.Parse(h, body)
		var ign *tracker.Ignored
		switch {
		case err == nil:
			if got.Ref.Source != tracker.GitLab || got.Ref.Repo == "" || got.Ref.Number == "" || got.Reason == "" || got.DeliveryID == "" {
				t.Errorf("incomplete trigger %+v", got)
			}
			if _, perr := tracker.ParseRef(got.Ref.Key()); perr != nil {
				t.Errorf("trigger key %s does not parse back: %v", got.Ref.Key(), perr)
			}
		case errors.As(err, &ign), errors.Is(err, tracker.ErrMalformed):
		default:
			t.Errorf("unexpected error kind: %v", err)
		}
	})
}
