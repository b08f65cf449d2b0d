package github

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
)

var helloWorldPR2 = tracker.Ref{Source: tracker.GitHub, Repo: "Codertocat/Hello-World", Number: "2"}

// TestWebhookReviewTriggers: with Rules.Review, GitHub's published
// pull_request examples (opened, synchronize, reopened) are review
// triggers carrying the head commit and the target branch; a /relay review
// comment on a pull request from a member is one without a head.
func TestWebhookReviewTriggers(t *testing.T) {
	t.Parallel()
	rules := tracker.Rules{Commands: []string{"/relay scope"}, BotLogin: "relay-bot", Review: true}
	const head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	onPR := func(body, assoc string) func(map[string]any) {
		return func(p map[string]any) {
			obj(p, "issue")["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
			obj(p, "comment")["body"] = body
			obj(p, "comment")["author_association"] = assoc
		}
	}
	tests := []struct {
		name, event, action string
		edit                func(map[string]any)
		want                tracker.Trigger
	}{
		{"opened", "pull_request", "opened", nil, tracker.Trigger{Ref: helloWorldPR2, Event: "pull_request.opened", Head: head, Base: "master"}},
		{"synchronize", "pull_request", "synchronize", nil, tracker.Trigger{Ref: helloWorldPR2, Event: "pull_request.synchronize", Head: head, Base: "master"}},
		{"reopened", "pull_request", "reopened", nil, tracker.Trigger{Ref: helloWorldPR2, Event: "pull_request.reopened", Head: head, Base: "master"}},
		{"/relay review on a pull request", "issue_comment", "created", onPR("  /Relay Review now", "MEMBER"),
			tracker.Trigger{Ref: helloWorld1, Event: "issue_comment.created"}},
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
				want.Reason = tracker.ReasonReview
				want.Actor = "Codertocat"
				want.DeliveryID = "72d3162e-cc78-11e3-81ab-4c9367dc0958"
				if inst, ok := ex["installation"].(map[string]any); ok {
					want.Installation = int64(inst["id"].(float64))
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("example %d (-want +got):\n%s", i, diff)
				}
			}
		})
	}
}

// TestWebhookReviewIgnores: pull requests trigger nothing without
// Rules.Review, nor when closed, labelled, from a bot, or commented on with
// anything but /relay review by an allowed association.
func TestWebhookReviewIgnores(t *testing.T) {
	t.Parallel()
	on := tracker.Rules{Commands: []string{"/relay scope"}, BotLogin: "relay-bot", Review: true}
	onPR := func(body, assoc string) func(map[string]any) {
		return func(p map[string]any) {
			obj(p, "issue")["pull_request"] = map[string]any{"url": "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}
			obj(p, "comment")["body"] = body
			obj(p, "comment")["author_association"] = assoc
		}
	}
	tests := []struct {
		name, event, action string
		rules               tracker.Rules
		edit                func(map[string]any)
	}{
		{"review off", "pull_request", "opened", tracker.Rules{Commands: []string{"/relay scope"}}, nil},
		{"closed", "pull_request", "closed", on, nil},
		{"opened by the bot", "pull_request", "opened", on, func(p map[string]any) { obj(p, "sender")["login"] = "relay-bot" }},
		{"review command from NONE", "issue_comment", "created", on, onPR("/relay review", "NONE")},
		{"scope command on a pull request", "issue_comment", "created", on, onPR("/relay scope", "OWNER")},
		{"review command with review off", "issue_comment", "created", tracker.Rules{Commands: []string{"/relay scope"}}, onPR("/relay review", "OWNER")},
		{"a longer word", "issue_comment", "created", on, onPR("/relay reviewed", "OWNER")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hook := newHook(t, tt.rules)
			for i, ex := range examples(t, tt.event, tt.action) {
				h, body := delivery(t, tt.event, edit(t, ex, tt.edit))
				got, err := hook.Parse(h, body)
				var ign *tracker.Ignored
				if !errors.As(err, &ign) {
					t.Errorf("example %d: Parse = %+v, %v; want ignored", i, got, err)
				}
			}
		})
	}
}
