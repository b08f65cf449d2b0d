package gitlab

import (
	"context"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/relayhq/relay/tracker"
)

// UpsertReview implements tracker.Reviewer: the merge request's note that
// carries tracker.ReportMarker (by BotUsername when set) is edited in
// place, or one is created; ref.Number is the merge request's iid.
func (c *Client) UpsertReview(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	project, iid, err := splitRef(ref)
	if err != nil {
		return "", err
	}
	return c.upsertNote(ctx, ref, body, noteAPI{
		each: func(fn func(*gl.Note) bool) error {
			opts := &gl.ListMergeRequestNotesOptions{ListOptions: gl.ListOptions{PerPage: 100}, OrderBy: gl.Ptr("created_at"), Sort: gl.Ptr("asc")}
			return eachPage(fn, &opts.ListOptions, func() ([]*gl.Note, *gl.Response, error) {
				return c.api.Notes.ListMergeRequestNotes(project, iid, opts, gl.WithContext(ctx))
			})
		},
		update: func(id int64, body string) error {
			_, _, err := c.api.Notes.UpdateMergeRequestNote(project, iid, id, &gl.UpdateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
			return err
		},
		create: func(body string) (*gl.Note, error) {
			n, _, err := c.api.Notes.CreateMergeRequestNote(project, iid, &gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
			return n, err
		},
	})
}

var _ tracker.Reviewer = (*Client)(nil)
