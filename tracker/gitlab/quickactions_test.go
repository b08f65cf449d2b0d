package gitlab

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
)

// TestReportBodyRunsNoQuickAction: a report line starting with "/" would
// run as a quick action when the bot posts or edits the note (a model
// told by an issue to write "/close" closes it); it is escaped, except in
// fenced code, where GitLab runs none. Merge request references lose their
// link.
func TestReportBodyRunsNoQuickAction(t *testing.T) {
	tests := []struct{ in, want string }{
		{"/close", `\/close`},
		{"## Report\n/label ~bug\n  /assign @me\ntext /close", "## Report\n\\/label ~bug\n  \\/assign @me\ntext /close"},
		{"```sh\n/close\n```\n/close", "```sh\n/close\n```\n\\/close"},
		{"~~~~\n/close\n~~~\n/lock\n~~~~\n/close", "~~~~\n/close\n~~~\n/lock\n~~~~\n\\/close"},
		{"see !12 and acme/shop!7, `!3`, wow!", "see !" + zwj + "12 and acme/shop!" + zwj + "7, `!3`, wow!"},
		{"```\n!12\n```", "```\n!12\n```"},
	}
	for _, tc := range tests {
		got := inert(tc.in)
		if d := cmp.Diff(tc.want, got); d != "" {
			t.Errorf("inert(%q) (-want +got):\n%s", tc.in, d)
		}
	}
	body := reportBody("Intro\n/close\n")
	if strings.Contains("\n"+body, "\n/close") || !strings.HasSuffix(body, tracker.ReportMarker) {
		t.Errorf("report body %q: a quick action survives or the marker is missing", body)
	}
}
