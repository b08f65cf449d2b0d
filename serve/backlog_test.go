package serve

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

// TestEnqueueBacklog: every ticket's issue gets a job, a second ticket on
// the same issue joins it; a ticket without a ref, or with one that does
// not parse, is refused before anything is enqueued.
func TestEnqueueBacklog(t *testing.T) {
	t.Parallel()
	o := QueueOptions{StateDir: t.TempDir()}
	type got struct {
		ID, Key string
		Joined  bool
	}
	var jobs []got
	each := func(tk workspace.Ticket, ref tracker.Ref, e Enqueued) {
		jobs = append(jobs, got{tk.ID, ref.Key(), e.Coalesced})
	}
	tickets := []workspace.Ticket{
		{ID: "a", Ref: "github:acme/shop#1"}, {ID: "b", Ref: "jira:SHOP-7"}, {ID: "c", Ref: "github:acme/shop#1"},
	}
	if err := EnqueueBacklog(t.Context(), o, tickets, 3, "test", each); err != nil {
		t.Fatal(err)
	}
	want := []got{{"a", "github:acme/shop#1", false}, {"b", "jira:SHOP-7", false}, {"c", "github:acme/shop#1", true}}
	if diff := cmp.Diff(want, jobs); diff != "" {
		t.Errorf("jobs (-want +got):\n%s", diff)
	}
	for _, bad := range []workspace.Ticket{{ID: "x"}, {ID: "y", Ref: "gitlab:1"}} {
		jobs = nil
		err := EnqueueBacklog(t.Context(), o, []workspace.Ticket{tickets[1], bad}, 3, "test", each)
		var te *TicketError
		if !errors.As(err, &te) || te.ID != bad.ID || errors.Is(err, ErrNoRef) != (bad.Ref == "") || len(jobs) != 0 {
			t.Errorf("ticket %+v: %v, %d jobs; want a TicketError naming it and nothing enqueued", bad, err, len(jobs))
		}
	}
}
