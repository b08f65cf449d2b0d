package tracker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/egress/egresstest"
	"github.com/relayhq/relay/tracker"
)

type postTracker struct {
	posted []string
	token  string
}

func (p *postTracker) Source() string { return tracker.GitHub }
func (p *postTracker) Fetch(context.Context, tracker.Ref) (tracker.Issue, error) {
	return tracker.Issue{}, nil
}
func (p *postTracker) UpsertReport(_ context.Context, _ tracker.Ref, body string) (string, error) {
	p.posted = append(p.posted, body)
	return "1", nil
}

type tokenTracker struct{ postTracker }

func (t *tokenTracker) GitToken(context.Context, tracker.Ref) (string, error) { return t.token, nil }

func TestFilteredRedactsReports(t *testing.T) {
	inner := &tokenTracker{postTracker{token: "tok"}}
	tr := tracker.Filtered(inner, nil)
	if tracker.Filtered(tr, nil) != tr {
		t.Error("wrapping twice made a second wrapper")
	}
	var b strings.Builder
	for name, data := range egresstest.Files() {
		b.WriteString(name + ":\n" + data + "\n")
	}
	if _, err := tr.UpsertReport(t.Context(), tracker.Ref{}, b.String()); err != nil {
		t.Fatal(err)
	}
	if len(inner.posted) != 1 || len(egresstest.Leaks(inner.posted[0])) > 0 || !strings.Contains(inner.posted[0], "[redacted: ") {
		t.Errorf("posted:\n%s", inner.posted)
	}
	gc, ok := tr.(tracker.GitCredentials)
	if !ok {
		t.Fatal("the wrapper lost GitCredentials")
	}
	if tok, err := gc.GitToken(t.Context(), tracker.Ref{}); err != nil || tok != "tok" {
		t.Errorf("GitToken = %q, %v", tok, err)
	}
	m := tracker.FilteredAll(map[string]tracker.Tracker{tracker.GitHub: &postTracker{}}, nil)
	if _, err := m[tracker.GitHub].UpsertReport(t.Context(), tracker.Ref{}, "token ghp_R8kq2LmN4pXv7TzW1yB3cD5eF6gH9jK0lMnQ"); err != nil {
		t.Fatal(err)
	}
}
