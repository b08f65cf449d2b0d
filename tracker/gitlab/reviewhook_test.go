package gitlab

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
)

// mrPayload is GitLab's published Merge Request Hook example with edit
// applied to its object_attributes.
func mrPayload(t *testing.T, edit map[string]any) map[string]any {
	p := example(t, "merge_request.json")
	for k, v := range edit {
		obj(p, "object_attributes")[k] = v
	}
	return p
}

// mrNote is the published note on a merge request with body as its text.
func mrNote(t *testing.T, body string) map[string]any {
	p := example(t, "note_merge_request.json")
	obj(p, "object_attributes")["note"] = body
	return p
}

// TestWebhookReview: with Rules.Review, a merge request opened, reopened
// or updated with new commits, and a /relay review note on one, are
// review triggers (the hooks carry the head and target branch); other
// updates, closed ones and other notes are ignored, and so is everything
// of merge requests without Rules.Review.
func TestWebhookReview(t *testing.T) {
	t.Parallel()
	const head = "da1560886d4f094c3e6c9ef40349f7d38b5d27d7"
	mr := tracker.Ref{Source: tracker.GitLab, Repo: "gitlabhq/gitlab-test", Number: "1"}
	tests := []struct {
		name    string
		event   string
		payload map[string]any
		review  bool
		want    tracker.Trigger // zero: ignored
	}{
		{"opened", "Merge Request Hook", mrPayload(t, nil), true,
			tracker.Trigger{Ref: mr, Event: EventMergeRequestOpen, Actor: "user1", ActorID: "1", Head: head, Base: "master"}},
		{"reopened", "Merge Request Hook", mrPayload(t, map[string]any{"action": "reopen"}), true,
			tracker.Trigger{Ref: mr, Event: EventMergeRequestReopen, Actor: "user1", ActorID: "1", Head: head, Base: "master"}},
		{"new commits", "Merge Request Hook", mrPayload(t, map[string]any{"action": "update", "oldrev": "b83d6e391c22777fca1ed3012fce84f633d7fed0"}), true,
			tracker.Trigger{Ref: mr, Event: EventMergeRequestUpdate, Actor: "user1", ActorID: "1", Head: head, Base: "master"}},
		{"/relay review note", "Note Hook", mrNote(t, "/relay review"), true,
			tracker.Trigger{Ref: tracker.Ref{Source: tracker.GitLab, Repo: "gitlab-org/gitlab-test", Number: "1"}, Event: EventNoteCreate, Actor: "root", ActorID: "1"}},
		{"title edit", "Merge Request Hook", mrPayload(t, map[string]any{"action": "update"}), true, tracker.Trigger{}},
		{"merged", "Merge Request Hook", mrPayload(t, map[string]any{"action": "merge", "state": "merged"}), true, tracker.Trigger{}},
		{"other note", "Note Hook", mrNote(t, "This MR needs work."), true, tracker.Trigger{}},
		{"scope note on a merge request", "Note Hook", mrNote(t, "/relay scope"), true, tracker.Trigger{}},
		{"review off", "Merge Request Hook", mrPayload(t, nil), false, tracker.Trigger{}},
		{"review note with review off", "Note Hook", mrNote(t, "/relay review"), false, tracker.Trigger{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := newHook(t, tracker.Rules{Review: tt.review}).Parse(delivery(t, tt.event, tt.payload))
			if tt.want.Event == "" {
				var ign *tracker.Ignored
				if !errors.As(err, &ign) {
					t.Fatalf("Parse = %+v, %v; want ignored", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := tt.want
			want.Reason, want.DeliveryID = tracker.ReasonReview, "uuid-1"
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
