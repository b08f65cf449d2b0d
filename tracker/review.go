package tracker

import (
	"context"
	"fmt"
)

// ReasonReview is the reason of a trigger that asks for the review context
// of a pull request (GitHub) or merge request (GitLab): opened, new commits
// pushed, reopened, or a ReviewCommand comment from an allowed member.
const ReasonReview = "review"

// ReviewCommand is the comment that asks relay for a pull request's review
// context again.
const ReviewCommand = "/relay review"

// MatchReviewCommand reports whether body starts with ReviewCommand, by
// the rules of MatchCommand (leading white space and case ignored, the
// word ends at white space).
func MatchReviewCommand(body string) bool {
	_, ok := Rules{Commands: []string{ReviewCommand}}.MatchCommand(body)
	return ok
}

// ReviewHeadRef is the git ref under which a source publishes the head of
// change request number in its repository: refs/pull/N/head on GitHub,
// refs/merge-requests/N/head on GitLab ("" for other sources). A mirror
// clone fetches these refs with the branches.
func ReviewHeadRef(source, number string) string {
	switch source {
	case GitHub:
		return "refs/pull/" + number + "/head"
	case GitLab:
		return "refs/merge-requests/" + number + "/head"
	}
	return ""
}

// Reviewer is an optional capability of a Tracker: it keeps relay's one
// review comment on a change request (a GitHub pull request, a GitLab
// merge request), found by ReportMarker as the issue report is and edited
// in place, never posted twice.
type Reviewer interface {
	UpsertReview(ctx context.Context, ref Ref, body string) (commentID string, err error)
}

// CanReview says whether t, or the tracker it wraps (Filtered), keeps
// review comments (Reviewer).
func CanReview(t Tracker) bool {
	if f, ok := t.(*filtered); ok {
		t = f.Tracker
	}
	_, ok := t.(Reviewer)
	return ok
}

// UpsertReview posts body with its secrets redacted, through the wrapped
// tracker's Reviewer; an error when it has none (CanReview).
func (t *filtered) UpsertReview(ctx context.Context, ref Ref, body string) (string, error) {
	rv, ok := t.Tracker.(Reviewer)
	if !ok {
		return "", fmt.Errorf("the %s tracker keeps no review comments", t.Source())
	}
	return rv.UpsertReview(ctx, ref, t.filter().String(body))
}
