package serve

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

func TestOverlap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b Localization
		want float64
	}{
		{"same ranking", Localization{Files: []string{"a.go", "b.go"}}, Localization{Files: []string{"a.go", "b.go"}}, 1},
		{"disjoint", Localization{Files: []string{"a.go"}}, Localization{Files: []string{"b.go"}}, 0},
		{"empty", Localization{}, Localization{Files: []string{"b.go"}}, 0},
		// a: a=1, b=1/2; b: b=1, a=1/2 → min 1/2+1/2, max 1+1.
		{"swapped ranks", Localization{Files: []string{"a.go", "b.go"}}, Localization{Files: []string{"b.go", "a.go"}}, 0.5},
		// shared first file (1 of 1 + 1/2) beats a shared second one.
		{"first shared", Localization{Files: []string{"a.go", "x.go"}}, Localization{Files: []string{"a.go"}}, 1 / 1.5},
		{"second shared", Localization{Files: []string{"x.go", "a.go"}}, Localization{Files: []string{"a.go"}}, 0.5 / 2},
		// functions averaged in when both have them: files 1, functions 0.
		{"functions differ", Localization{Files: []string{"a.go"}, Functions: []string{"a.go:F"}}, Localization{Files: []string{"a.go"}, Functions: []string{"a.go:G"}}, 0.5},
		{"one without functions", Localization{Files: []string{"a.go"}, Functions: []string{"a.go:F"}}, Localization{Files: []string{"a.go"}}, 1},
		{"repeat keeps best rank", Localization{Files: []string{"a.go", "a.go"}}, Localization{Files: []string{"a.go"}}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, back := Overlap(tt.a, tt.b), Overlap(tt.b, tt.a)
			if math.Abs(got-tt.want) > 1e-9 || math.Abs(back-got) > 1e-9 {
				t.Errorf("Overlap = %v (reversed %v), want %v", got, back, tt.want)
			}
		})
	}
}

// TestRelatedIssuesQueue: localizations kept in either database come back
// ranked, within the repository, without the issue itself, and a second
// save of an issue replaces its first.
func TestRelatedIssuesQueue(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			q, err := OpenQueue(t.Context(), QueueOptions{URL: queueURL(t, backend), StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(q.Close)
			ref := func(repo, n string) tracker.Ref { return tracker.Ref{Source: tracker.GitHub, Repo: repo, Number: n} }
			saved := []LocalizedIssue{
				{Ref: ref("acme/a", "1"), Title: "old", Localization: Localization{Files: []string{"z.go"}}},
				{Ref: ref("acme/a", "1"), Title: "crash in parse", Localization: Localization{Files: []string{"parse.go", "lex.go"}}},
				{Ref: ref("acme/a", "2"), Title: "lexer", Localization: Localization{Files: []string{"lex.go"}}},
				{Ref: ref("acme/a", "3"), Title: "docs", Localization: Localization{Files: []string{"doc.go"}}},
				{Ref: ref("acme/b", "4"), Title: "other repo", Localization: Localization{Files: []string{"parse.go"}}},
				{Ref: ref("acme/a", "5"), Title: "this one", Localization: Localization{Files: []string{"parse.go"}}},
			}
			for _, s := range saved {
				if err := q.SaveLocalization(t.Context(), s); err != nil {
					t.Fatal(err)
				}
			}
			got, err := q.RelatedIssues(t.Context(), saved[5], 5)
			if err != nil {
				t.Fatal(err)
			}
			want := []RelatedIssue{{LocalizedIssue: saved[1], Score: 1 / 1.5}}
			if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); diff != "" {
				t.Errorf("RelatedIssues (-want +got):\n%s", diff)
			}
		})
	}
}

// locScoper is fakeScoper with a localization per issue number.
type locScoper struct {
	fakeScoper
	loc map[string]Localization
}

func (s *locScoper) Scope(ctx context.Context, in ScopeInput) (Report, error) {
	rep, err := s.fakeScoper.Scope(ctx, in)
	rep.Localization = s.loc[in.Issue.Ref.Number]
	return rep, err
}

// TestRelatedInReport: the bot's second report on the same code says it
// may duplicate the first, with a live link; one on partly the same code
// lists both without that line; one on other code lists nothing.
func TestRelatedInReport(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			gh := newFakeTracker(tracker.GitHub)
			sc := &locScoper{fakeScoper: fakeScoper{running: map[string]int{}}, loc: map[string]Localization{
				"1": {Files: []string{"sms/send.go", "sms/queue.go"}, Functions: []string{"sms/send.go:Send"}},
				"2": {Files: []string{"sms/send.go", "sms/queue.go"}, Functions: []string{"sms/send.go:Send", "sms/send.go:retry"}},
				"3": {Files: []string{"web/page.go", "sms/send.go"}},
				"4": {Files: []string{"docs/gen.go"}},
			}}
			svc := startService(t, testConfig(t, repos), serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, queueURL: queueURL(t, backend), scoper: sc})
			for i, n := range []string{"1", "2", "3", "4"} {
				sendBurst(t, svc.url, []testPayload{{Delivery: "r-" + n, Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: n}}})
				waitFor(t, time.Minute, "job "+n, func() bool {
					jobs, err := svc.queue.Jobs(t.Context(), rivertype.JobStateCompleted)
					return err == nil && len(jobs) == i+1
				})
			}
			tests := []struct {
				issue       string
				want, never []string
			}{
				{"1", nil, []string{"Related issues"}},
				// files 1, functions 1/1.5: 0.83, above DuplicateThreshold.
				{"2", []string{"**Possible duplicate of #1**", "- #1 Issue 1 — 0.83"}, nil},
				// files only, 0.5 of 2.5 with each: related, no duplicate.
				{"3", []string{"- #1 Issue 1 — 0.20", "- #2 Issue 2 — 0.20"}, []string{"Possible duplicate"}},
				{"4", nil, []string{"Related issues"}},
			}
			for _, tt := range tests {
				got := gh.current("github:acme/a#" + tt.issue)
				for _, w := range tt.want {
					if !strings.Contains(got, w) {
						t.Errorf("the report on #%s lacks %q:\n%s", tt.issue, w, got)
					}
				}
				for _, w := range tt.never {
					if strings.Contains(got, w) {
						t.Errorf("the report on #%s says %q:\n%s", tt.issue, w, got)
					}
				}
			}
		})
	}
}

// TestRelatedPublished: the titles of other issues are published with the
// report: no raw HTML, no live mentions.
func TestRelatedPublished(t *testing.T) {
	q, err := OpenQueue(t.Context(), QueueOptions{StateDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(q.Close)
	loc := Localization{Files: []string{"a.go"}}
	earlier := LocalizedIssue{Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "7"}, Title: `<img src="https://evil.example/x.png"> ping @octocat`, Localization: loc}
	if err := q.SaveLocalization(t.Context(), earlier); err != nil {
		t.Fatal(err)
	}
	w := &Worker{queue: q}
	issue := tracker.Issue{Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "8"}, Title: "new"}
	got := w.withRelated(t.Context(), issue, Report{Markdown: "## Report", Localization: loc}, slog.New(slog.DiscardHandler))
	if !strings.Contains(got, "Possible duplicate of #7") || strings.Contains(got, "<img") || strings.Contains(got, " @octocat") {
		t.Errorf("the related section is not published safely:\n%s", got)
	}
}
