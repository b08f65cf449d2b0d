package github

import (
	"context"
	"fmt"
	"strconv"

	gh "github.com/google/go-github/v92/github"

	"github.com/relayhq/relay/tracker"
)

// pullRequest makes a review trigger of a pull request opened, reopened or
// pushed to (synchronize), with its head commit and target branch.
func (w *Webhook) pullRequest(e *gh.PullRequestEvent, delivery string) (tracker.Trigger, error) {
	event := "pull_request." + e.GetAction()
	pr := e.GetPullRequest()
	full := e.GetRepo().GetFullName()
	if full == "" || e.GetNumber() <= 0 && pr.GetNumber() <= 0 {
		return tracker.Trigger{}, fmt.Errorf("%w: %s payload has no repository full_name or pull request number", tracker.ErrMalformed, event)
	}
	n := pr.GetNumber()
	if n <= 0 {
		n = e.GetNumber()
	}
	t := tracker.Trigger{
		Ref:          tracker.Ref{Source: tracker.GitHub, Repo: full, Number: strconv.Itoa(n)},
		DeliveryID:   delivery,
		Event:        event,
		Actor:        e.GetSender().GetLogin(),
		Installation: e.GetInstallation().GetID(),
		Head:         pr.GetHead().GetSHA(),
		Base:         pr.GetBase().GetRef(),
	}
	switch {
	case !w.rules.Review:
		return tracker.Trigger{}, ignored(t, "pull request review is off")
	case isBotUser(e.Sender, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "sender %s is a bot", e.GetSender().GetLogin())
	case pr.GetState() == "closed":
		return tracker.Trigger{}, ignored(t, "pull request is closed")
	}
	switch e.GetAction() {
	case "opened", "synchronize", "reopened":
		t.Reason = tracker.ReasonReview
		return t, nil
	}
	return tracker.Trigger{}, ignored(t, "action %q does not trigger a review", e.GetAction())
}

// reviewComment makes a review trigger of a ReviewCommand comment on a
// pull request by an allowed author association. The payload does not say
// the head commit: the job reviews the head of the moment.
func (w *Webhook) reviewComment(e *gh.IssueCommentEvent, delivery string) (tracker.Trigger, error) {
	event := "issue_comment." + e.GetAction()
	t, err := base(e.Repo, e.Issue, e.Sender, e.Installation, delivery, event)
	if err != nil {
		return t, err
	}
	author := e.Comment.GetUser()
	switch {
	case e.GetAction() != "created":
		return tracker.Trigger{}, ignored(t, "action %q does not trigger a review", e.GetAction())
	case isBotUser(e.Sender, w.rules.BotLogin) || isBotUser(author, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "comment by a bot (%s)", author.GetLogin())
	case tracker.HasReportMarker(e.Comment.GetBody()):
		return tracker.Trigger{}, ignored(t, "comment is a relay report")
	case !tracker.MatchReviewCommand(e.Comment.GetBody()):
		return tracker.Trigger{}, ignored(t, "comment on a pull request does not start with %q", tracker.ReviewCommand)
	}
	if assoc := e.Comment.GetAuthorAssociation(); !w.rules.AssociationAllowed(assoc) {
		return tracker.Trigger{}, ignored(t, "%s (author association %s) may not use %q", author.GetLogin(), assoc, tracker.ReviewCommand)
	}
	t.Reason = tracker.ReasonReview
	t.Actor = author.GetLogin()
	return t, nil
}

// UpsertReview implements tracker.Reviewer: a pull request's conversation
// comments are issue comments, so its review comment is kept as an
// issue's report is (UpsertReport: found by the marker, edited in place).
func (c *Client) UpsertReview(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	return c.UpsertReport(ctx, ref, body)
}

var _ tracker.Reviewer = (*Client)(nil)
