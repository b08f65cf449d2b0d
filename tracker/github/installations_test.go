package github

import (
	"errors"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
)

// TestParseInstallationOnRealPayloads parses GitHub's published
// installation and installation_repositories examples.
func TestParseInstallationOnRealPayloads(t *testing.T) {
	t.Parallel()
	tests := []struct {
		event, action string
		want          InstallationChange
		ignored       bool
	}{
		{"installation", "created", InstallationChange{Event: "installation.created", Installation: 957387, Account: "Codertocat", Added: []string{"Codertocat/Hello-World"}}, false},
		{"installation", "deleted", InstallationChange{Event: "installation.deleted", Installation: 2, Account: "octocat", Gone: true}, false},
		{"installation", "suspend", InstallationChange{Event: "installation.suspend", Installation: 16598467, Account: "Codertocat", Gone: true}, false},
		{"installation", "unsuspend", InstallationChange{Event: "installation.unsuspend", Installation: 16598467, Account: "Codertocat", Relist: true}, false},
		{"installation", "new_permissions_accepted", InstallationChange{}, true},
		{"installation_repositories", "added", InstallationChange{Event: "installation_repositories.added", Installation: 957387, Account: "Codertocat", Added: []string{"Codertocat/Space"}}, false},
		{"installation_repositories", "removed", InstallationChange{Event: "installation_repositories.removed", Installation: 2, Account: "octocat", Removed: []string{"octocat/Hello-World"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.event+"."+tt.action, func(t *testing.T) {
			t.Parallel()
			hook := newHook(t, tracker.Rules{})
			for i, ex := range examples(t, tt.event, tt.action) {
				h, body := delivery(t, tt.event, ex)
				if !InstallationEvent(h) {
					t.Fatalf("InstallationEvent(%s) = false", tt.event)
				}
				got, err := hook.ParseInstallation(h, body)
				var ign *tracker.Ignored
				if tt.ignored {
					if !errors.As(err, &ign) {
						t.Fatalf("example %d: err = %v, want *tracker.Ignored", i, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("example %d: ParseInstallation: %v", i, err)
				}
				want := tt.want
				want.DeliveryID = "72d3162e-cc78-11e3-81ab-4c9367dc0958"
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("example %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

func TestParseInstallationBadSignature(t *testing.T) {
	t.Parallel()
	hook := newHook(t, tracker.Rules{})
	h, body := delivery(t, "installation_repositories", examples(t, "installation_repositories", "added")[0])
	h.Set("X-Hub-Signature-256", sign([]byte("another secret"), body))
	if _, err := hook.ParseInstallation(h, body); !errors.Is(err, tracker.ErrBadSignature) {
		t.Fatalf("err = %v, want ErrBadSignature", err)
	}
}

// TestWebhookSemanticID: the same comment delivered by a repository
// webhook (no installation) and by an App (an installation), under two
// delivery ids, has one semantic id; an edit (a later updated_at) or
// another comment has another.
func TestWebhookSemanticID(t *testing.T) {
	t.Parallel()
	hook := newHook(t, tracker.Rules{Commands: []string{"/relay scope"}})
	base := examples(t, "issue_comment", "created")[0]
	parse := func(delivery string, fn func(map[string]any)) tracker.Trigger {
		t.Helper()
		p := edit(t, base, func(p map[string]any) {
			obj(p, "comment")["body"] = "/relay scope"
			obj(p, "comment")["author_association"] = "OWNER"
			if fn != nil {
				fn(p)
			}
		})
		h, body := deliveryID(t, "issue_comment", delivery, p)
		tr, err := hook.Parse(h, body)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	repoHook := parse("d-1", func(p map[string]any) { delete(p, "installation") })
	appHook := parse("d-2", func(p map[string]any) { p["installation"] = map[string]any{"id": 42} })
	edited := parse("d-3", func(p map[string]any) { obj(p, "comment")["updated_at"] = "2031-01-01T00:00:00Z" })
	other := parse("d-4", func(p map[string]any) { obj(p, "comment")["id"] = 7 })
	if repoHook.SemanticID == "" || repoHook.DeliveryID == appHook.DeliveryID {
		t.Fatalf("semantic id %q, delivery ids %q and %q", repoHook.SemanticID, repoHook.DeliveryID, appHook.DeliveryID)
	}
	if repoHook.SemanticID != appHook.SemanticID {
		t.Errorf("one comment, two webhooks: semantic ids %q and %q differ", repoHook.SemanticID, appHook.SemanticID)
	}
	for _, tr := range []tracker.Trigger{edited, other} {
		if tr.SemanticID == repoHook.SemanticID {
			t.Errorf("another comment or edit has the same semantic id %q", tr.SemanticID)
		}
	}
}

// deliveryID signs payload as delivery id.
func deliveryID(t *testing.T, event, id string, payload any) (http.Header, []byte) {
	t.Helper()
	h, body := delivery(t, event, payload)
	h.Set("X-GitHub-Delivery", id)
	return h, body
}
