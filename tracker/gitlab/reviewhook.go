package gitlab

import (
	"encoding/json"
	"strconv"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/relayhq/relay/tracker"
)

// Events of the review triggers this parser returns (with EventNoteCreate
// for a ReviewCommand note on a merge request).
const (
	EventMergeRequestOpen   = "merge_request.open"
	EventMergeRequestReopen = "merge_request.reopen"
	EventMergeRequestUpdate = "merge_request.update"
)

// mergeRequestNote says whether body is a note on a merge request.
func mergeRequestNote(body []byte) bool {
	var n struct {
		Attrs struct {
			NoteableType string `json:"noteable_type"`
		} `json:"object_attributes"`
	}
	return json.Unmarshal(body, &n) == nil && n.Attrs.NoteableType == "MergeRequest"
}

// mergeRequest makes a review trigger of a merge request opened, reopened
// or updated with new commits (an update that names the previous head,
// oldrev; title, label or assignee edits do not), with its head commit and
// target branch.
func (w *Webhook) mergeRequest(e *gl.MergeEvent, delivery string) (tracker.Trigger, error) {
	a := e.ObjectAttributes
	t, err := trigger(e.Project.PathWithNamespace, a.IID, delivery, "merge_request."+a.Action)
	if err != nil {
		return t, err
	}
	if e.User != nil {
		t.Actor, t.ActorID = e.User.Username, strconv.FormatInt(e.User.ID, 10)
	}
	t.Head, t.Base = a.LastCommit.ID, a.TargetBranch
	switch {
	case isBotUser(t.Actor, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "sender %s is a bot", t.Actor)
	case a.State != "" && a.State != "opened":
		return tracker.Trigger{}, ignored(t, "merge request is %s", a.State)
	}
	switch a.Action {
	case "open", "reopen":
	case "update":
		if a.OldRev == "" {
			return tracker.Trigger{}, ignored(t, "update without new commits")
		}
	default:
		return tracker.Trigger{}, ignored(t, "action %q does not trigger a review", a.Action)
	}
	t.Reason = tracker.ReasonReview
	return t, nil
}

// reviewNote makes a review trigger of a ReviewCommand note on a merge
// request. Its author's access level is checked by the bot
// (gitlab.command_min_access), as a scope command's is.
func (w *Webhook) reviewNote(e *gl.MergeCommentEvent, delivery string) (tracker.Trigger, error) {
	a := e.ObjectAttributes
	t, err := trigger(e.Project.PathWithNamespace, e.MergeRequest.IID, delivery, EventNoteCreate)
	if err != nil {
		return t, err
	}
	if e.User != nil {
		t.Actor, t.ActorID = e.User.Username, strconv.FormatInt(e.User.ID, 10)
	}
	switch {
	case a.Action != "" && a.Action != gl.CommentEventActionCreate:
		return tracker.Trigger{}, ignored(t, "note action %q does not trigger a review", a.Action)
	case a.System:
		return tracker.Trigger{}, ignored(t, "system note")
	case isBotUser(t.Actor, w.rules.BotLogin):
		return tracker.Trigger{}, ignored(t, "note by a bot (%s)", t.Actor)
	case tracker.HasReportMarker(a.Note):
		return tracker.Trigger{}, ignored(t, "note is a relay report")
	case !tracker.MatchReviewCommand(a.Note):
		return tracker.Trigger{}, ignored(t, "note on a merge request does not start with %q", tracker.ReviewCommand)
	}
	if t.ActorID == "" || t.ActorID == "0" {
		t.ActorID = strconv.FormatInt(a.AuthorID, 10)
	}
	t.Reason = tracker.ReasonReview
	return t, nil
}
