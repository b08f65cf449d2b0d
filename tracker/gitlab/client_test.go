package gitlab

import (
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

const (
	testToken   = "glpat-test-token"
	testProject = "acme/platform/shop"
)

var bot = gitlabtest.User{ID: 77, Username: "project_12_bot_ab12"}

func newFake(t *testing.T) *gitlabtest.Fake {
	f := gitlabtest.New(t, testToken, bot)
	f.AddProject(testProject, 30)
	f.AddIssue(testProject, 7, "SMS sent twice", "When the provider is slow, notify sends again.", "bug", "sms")
	return f
}

func newClient(t *testing.T, f *gitlabtest.Fake) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: f.URL(), Token: testToken, BotUsername: bot.Username})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var ref7 = tracker.Ref{Source: tracker.GitLab, Repo: testProject, Number: "7"}

func TestFetchPaginatesAndSkipsTheReport(t *testing.T) {
	f := newFake(t)
	f.AddNote(testProject, 7, "alice", "It happens on retries.", false)
	f.AddNote(testProject, 7, "alice", "added ~bug label", true)
	f.AddNote(testProject, 7, bot.Username, "old report\n"+tracker.ReportMarker, false)
	f.AddNote(testProject, 7, "bob", "Seen in prod too.", false)
	f.AddInternalNote(testProject, 7, "carol", "Customer ACME-42's phone is 555-0100.")
	f.AddNote(testProject, 7, bot.Username, "a note of the bot's", false)
	got, err := newClient(t, f).Fetch(t.Context(), ref7)
	if err != nil {
		t.Fatal(err)
	}
	var comments []string
	for _, c := range got.Comments {
		comments = append(comments, c.Author+": "+c.Body)
		if c.Created.IsZero() {
			t.Errorf("note %s has no creation time", c.ID)
		}
		if c.Bot != (c.Author == bot.Username) {
			t.Errorf("note by %s marked bot=%v", c.Author, c.Bot)
		}
	}
	want := []string{"alice: It happens on retries.", "bob: Seen in prod too.", bot.Username + ": a note of the bot's"}
	if d := cmp.Diff(want, comments); d != "" {
		t.Errorf("comments, oldest first, without system notes, internal notes and the report (-want +got):\n%s", d)
	}
	if got.Title != "SMS sent twice" || !strings.Contains(got.Body, "provider is slow") || got.Author != "alice" ||
		!cmp.Equal(got.Labels, []string{"bug", "sms"}) || !strings.HasSuffix(got.URL, "/acme/platform/shop/-/issues/7") {
		t.Errorf("issue fields: %+v", got)
	}
}

func TestUpsertReportEditsInPlace(t *testing.T) {
	f := newFake(t)
	for range 3 {
		f.AddNote(testProject, 7, "alice", "chatter", false) // the report is found on a later page
	}
	f.AddNote(testProject, 7, "mallory", "fake report "+tracker.ReportMarker, false)
	c := newClient(t, f)
	id1, err := c.UpsertReport(t.Context(), ref7, "placeholder")
	if err != nil {
		t.Fatal(err)
	}
	id2, err := c.UpsertReport(t.Context(), ref7, "## Report\nnotify/sms.go")
	if err != nil {
		t.Fatal(err)
	}
	before := len(f.Calls())
	id3, err := c.UpsertReport(t.Context(), ref7, "## Report\nnotify/sms.go")
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 || id2 != id3 {
		t.Errorf("note ids %s, %s, %s: want one note", id1, id2, id3)
	}
	for _, call := range f.Calls()[before:] {
		if strings.HasPrefix(call, "PUT") || strings.HasPrefix(call, "POST") {
			t.Errorf("an unchanged report was written again: %s", call)
		}
	}
	var reports []gitlabtest.Note
	for _, n := range f.Notes(testProject, 7) {
		if n.Author == bot.Username {
			reports = append(reports, n)
		}
	}
	if len(reports) != 1 || len(reports[0].Versions) != 2 {
		t.Fatalf("bot notes %+v: want one note with two versions", reports)
	}
	if v := reports[0].Versions[1]; strings.Count(v, tracker.ReportMarker) != 1 || !strings.HasPrefix(v, "## Report") {
		t.Errorf("report body %q: want the report with one marker", v)
	}
	if n := f.Notes(testProject, 7)[3]; len(n.Versions) != 1 {
		t.Errorf("another account's note with the marker was edited: %+v", n)
	}
}

func TestUpsertReportRecreatesADeletedReport(t *testing.T) {
	f := newFake(t)
	c := newClient(t, f)
	id, err := c.UpsertReport(t.Context(), ref7, "first")
	if err != nil {
		t.Fatal(err)
	}
	n := f.Notes(testProject, 7)[0]
	f.DeleteNote(testProject, 7, n.ID)
	id2, err := c.UpsertReport(t.Context(), ref7, "second")
	if err != nil {
		t.Fatal(err)
	}
	if id2 == id || len(f.Notes(testProject, 7)) != 1 {
		t.Errorf("after deletion: note %s (was %s), %d notes; want one new note", id2, id, len(f.Notes(testProject, 7)))
	}
	// Deleted between the listing and the edit: the 404 of the edit posts anew.
	f.FailNext(gitlabtest.Failure{Match: "PUT /projects/", Status: 404, Body: `{"message":"404 Note Not Found"}`})
	if _, err := c.UpsertReport(t.Context(), ref7, "third"); err != nil {
		t.Fatal(err)
	}
	if got := len(f.Notes(testProject, 7)); got != 2 {
		t.Errorf("%d notes after an edit answered 404, want a new one beside the listed one", got)
	}
}

func TestReportBodyTruncatesToGitLabsLimit(t *testing.T) {
	got := reportBody(strings.Repeat("é", maxNoteRunes+10) + tracker.ReportMarker)
	if n := utf8.RuneCountInString(got); n > maxNoteRunes {
		t.Errorf("%d runes, over GitLab's %d", n, maxNoteRunes)
	}
	if !strings.Contains(got, "report truncated") || strings.Count(got, tracker.ReportMarker) != 1 || !utf8.ValidString(got) {
		t.Errorf("truncated body lacks the note or has %d markers", strings.Count(got, tracker.ReportMarker))
	}
}

func TestRateLimitsAndServerErrorsAreRetryable(t *testing.T) {
	reset := time.Now().Add(90 * time.Second).Unix()
	cases := []struct {
		name     string
		failure  gitlabtest.Failure
		minAfter time.Duration
	}{
		{"429 with Retry-After", gitlabtest.Failure{Status: 429, Header: map[string]string{"Retry-After": "120"}, Body: `{"message":"Retry later"}`}, 120 * time.Second},
		{"429 with RateLimit-Reset", gitlabtest.Failure{Status: 429, Header: map[string]string{"RateLimit-Reset": itoa(reset)}}, 80 * time.Second},
		{"429 bare", gitlabtest.Failure{Status: 429}, time.Minute},
		{"502", gitlabtest.Failure{Status: 502, Body: "bad gateway"}, 0},
		{"503 with Retry-After", gitlabtest.Failure{Status: 503, Header: map[string]string{"Retry-After": "7"}}, 7 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			tc.failure.Match = "GET /projects/acme/platform/shop/issues/7"
			f.FailNext(tc.failure)
			_, err := newClient(t, f).Fetch(t.Context(), ref7)
			ok, after := tracker.Retryable(err)
			if !ok || after < tc.minAfter {
				t.Errorf("got %v (retryable %v, after %s), want retryable after at least %s", err, ok, after, tc.minAfter)
			}
		})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func TestBadCredentialsSayWhatToCheck(t *testing.T) {
	cases := []struct {
		name    string
		token   string
		failure *gitlabtest.Failure
		want    string
	}{
		{"wrong token", "glpat-wrong", nil, "token was refused (401)"},
		{"forbidden", testToken, &gitlabtest.Failure{Match: "GET /projects/", Status: 403, Body: `{"message":"403 Forbidden"}`}, "api scope"},
		{"unknown project", testToken, &gitlabtest.Failure{Match: "GET /projects/", Status: 404, Body: `{"message":"404 Project Not Found"}`}, "not found, or the token cannot see it"},
		{"an HTML page", testToken, &gitlabtest.Failure{Match: "GET /projects/", Status: 200, Body: "<html>sign in</html>"}, "gitlab.base_url"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t)
			if tc.failure != nil {
				f.FailNext(*tc.failure)
			}
			c, err := New(Options{BaseURL: f.URL(), Token: tc.token})
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.Fetch(t.Context(), ref7)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want it to say %q", err, tc.want)
			}
			if ok, _ := tracker.Retryable(err); ok {
				t.Errorf("%v is retryable; retrying cannot fix it", err)
			}
			if strings.Contains(err.Error(), tc.token) {
				t.Errorf("the error names the token: %v", err)
			}
		})
	}
}

func TestMayCommand(t *testing.T) {
	f := newFake(t)
	f.AddMember(testProject, 101, 30) // Developer
	f.AddMember(testProject, 102, 20) // Reporter
	f.AddMember(testProject, 104, 40) // a Maintainer, blocked
	f.SetMemberState(testProject, 104, "blocked")
	f.AddMember(testProject, 105, 40) // a Maintainer awaiting approval
	f.SetMemberState(testProject, 105, "awaiting")
	c := newClient(t, f)
	dev, err := ParseAccessLevel("Developer")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		user string
		want bool
	}{{"101", true}, {"102", false}, {"103", false}, {"104", false}, {"105", false}, {"", false}, {"x", false}}
	for _, tc := range cases {
		got, err := c.MayCommand(t.Context(), testProject, tc.user, dev)
		if err != nil || got != tc.want {
			t.Errorf("user %q: %v, %v; want %v", tc.user, got, err, tc.want)
		}
	}
	f.FailNext(gitlabtest.Failure{Match: "members/all", Status: 503})
	if _, err := c.MayCommand(t.Context(), testProject, "101", dev); err == nil {
		t.Error("a 503 of the members API answered without an error")
	}
}

func TestParseAccessLevel(t *testing.T) {
	for _, s := range []string{"guest", "Planner", "REPORTER", "developer", "maintainer", "owner"} {
		l, err := ParseAccessLevel(s)
		if err != nil || !strings.EqualFold(l.String(), s) {
			t.Errorf("%s: %v %v", s, l, err)
		}
	}
	if _, err := ParseAccessLevel("admin"); err == nil || !strings.Contains(err.Error(), "developer") {
		t.Errorf("admin: %v, want an error listing the roles", err)
	}
}

func TestCheckProject(t *testing.T) {
	cases := []struct {
		name        string
		level       int
		botUsername string
		project     string
		want        string // "" for no error
	}{
		{"member", 30, bot.Username, testProject, ""},
		{"reporter is enough", 20, "", testProject, ""},
		{"guest", 10, "", testProject, "needs Reporter"},
		{"no member", 0, "", testProject, "not a member"},
		{"other bot", 30, "relay-bot", testProject, "set bot_username to " + bot.Username},
		{"unknown project", 30, "", "acme/nope", "not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := gitlabtest.New(t, testToken, bot)
			f.AddProject(testProject, tc.level)
			c, err := New(Options{BaseURL: f.URL(), Token: testToken, BotUsername: tc.botUsername})
			if err != nil {
				t.Fatal(err)
			}
			err = c.CheckProject(t.Context(), tc.project)
			if (tc.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestNewRejectsBadOptions(t *testing.T) {
	for _, o := range []Options{{}, {Token: "t", BaseURL: "gitlab.example.com"}, {Token: "t", BaseURL: "ftp://x"}} {
		if _, err := New(o); err == nil {
			t.Errorf("New(%+v) accepted", o)
		}
	}
}

func TestRefChecks(t *testing.T) {
	c, err := New(Options{Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []tracker.Ref{{Source: "github", Repo: "a/b", Number: "1"}, {Source: "gitlab", Repo: "ab", Number: "1"}, {Source: "gitlab", Repo: "a/b", Number: "x"}} {
		if _, err := c.Fetch(t.Context(), r); err == nil {
			t.Errorf("Fetch(%v) accepted", r)
		}
		if _, err := c.UpsertReport(t.Context(), r, "x"); err == nil {
			t.Errorf("UpsertReport(%v) accepted", r)
		}
	}
	if tok, err := c.GitToken(t.Context(), tracker.Ref{Source: "gitlab", Repo: "a/b"}); tok != "t" || err != nil {
		t.Errorf("GitToken: %q, %v; want the client's token", tok, err)
	}
}
