package github

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/relayhq/relay/tracker"
)

var ref42 = tracker.Ref{Source: tracker.GitHub, Repo: "acme/shop", Number: "42"}

func newTokenClient(t *testing.T, f *fakeGitHub) *Client {
	t.Helper()
	c, err := New(Options{BaseURL: f.baseURL(), Token: f.token, BotLogin: "relay-bot"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// seed puts issue acme/shop#42 with seven comments (three pages of three):
// people, a bot, and relay's own report on the last page.
func seed(f *fakeGitHub) (reportID int64) {
	f.issues["acme/shop#42"] = fakeIssue{Title: "SMS sent twice", Body: "Customers get two SMS.", Author: "ada", Labels: []string{"bug", "relay"}}
	key := "acme/shop#42"
	f.addComment(key, "bob", "User", "Seen in prod too.")
	f.addComment(key, "renovate[bot]", "Bot", "Dependency update available.")
	f.addComment(key, "carol", "User", "Quoting an old report:\n> "+tracker.ReportMarker)
	f.addComment(key, "dave", "User", "Since Tuesday.")
	f.addComment(key, "erin", "User", "+1")
	f.addComment(key, "frank", "User", "Logs attached.")
	return f.addComment(key, "relay-bot", "User", "old report\n\n"+tracker.ReportMarker)
}

func TestFetchPaginatesAndSkipsTheReport(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	seed(f)
	c := newTokenClient(t, f)
	got, err := c.Fetch(t.Context(), ref42)
	if err != nil {
		t.Fatal(err)
	}
	comment := func(author string, bot bool, body string) tracker.Comment {
		return tracker.Comment{Author: author, Bot: bot, Body: body}
	}
	want := tracker.Issue{
		Ref: ref42, Title: "SMS sent twice", Body: "Customers get two SMS.", Author: "ada",
		URL: "https://github.example/acme/shop/issues/42", Labels: []string{"bug", "relay"},
		Comments: []tracker.Comment{
			comment("bob", false, "Seen in prod too."),
			comment("renovate[bot]", true, "Dependency update available."),
			// carol's comment quotes the marker: excluded like the report, as
			// text that carries the marker is relay's, never the reporter's.
			comment("dave", false, "Since Tuesday."),
			comment("erin", false, "+1"),
			comment("frank", false, "Logs attached."),
		},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(tracker.Comment{}, "ID", "Created")); diff != "" {
		t.Errorf("Fetch (-want +got):\n%s", diff)
	}
	pages := 0
	for _, c := range f.callLog() {
		if strings.HasPrefix(c, "GET /repos/acme/shop/issues/42/comments") {
			pages++
		}
	}
	if pages != 3 {
		t.Errorf("listed %d comment pages, want 3", pages)
	}
}

func TestUpsertReportEditsInPlace(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.issues["acme/shop#42"] = fakeIssue{Title: "t", Author: "ada"}
	for i := range 8 { // the report will sit on the fourth page
		f.addComment("acme/shop#42", "user"+strconv.Itoa(i), "User", "comment")
	}
	// Someone quoting the marker is not the report: BotLogin decides.
	f.addComment("acme/shop#42", "mallory", "User", "fake\n"+tracker.ReportMarker)
	c := newTokenClient(t, f)
	ctx := t.Context()

	id1, err := c.UpsertReport(ctx, ref42, "Scoping…")
	if err != nil {
		t.Fatal(err)
	}
	id2, err := c.UpsertReport(ctx, ref42, "# Report\n\nDone.")
	if err != nil {
		t.Fatal(err)
	}
	id3, err := c.UpsertReport(ctx, ref42, "# Report\n\nDone.")
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 || id2 != id3 {
		t.Errorf("report ids %s, %s, %s; want one comment edited in place", id1, id2, id3)
	}
	var reports []fakeComment
	for _, cm := range f.comments["acme/shop#42"] {
		if cm.Login == "relay-bot" {
			reports = append(reports, cm)
		}
	}
	if len(reports) != 1 {
		t.Fatalf("%d report comments, want 1", len(reports))
	}
	if want := "# Report\n\nDone.\n\n" + tracker.ReportMarker; reports[0].Body != want {
		t.Errorf("report body %q, want %q", reports[0].Body, want)
	}
	var posts, patches int
	for _, call := range f.callLog() {
		switch {
		case strings.HasPrefix(call, "POST "):
			posts++
		case strings.HasPrefix(call, "PATCH "):
			patches++
		}
	}
	// The third call found the same body and left it alone.
	if posts != 1 || patches != 1 {
		t.Errorf("%d POST and %d PATCH, want 1 and 1", posts, patches)
	}
}

func TestUpsertReportRecreatesADeletedReport(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	f.issues["acme/shop#42"] = fakeIssue{Title: "t"}
	old := f.addComment("acme/shop#42", "relay-bot", "User", "old\n\n"+tracker.ReportMarker)
	f.failNext(fakeFailure{match: "PATCH /repos/acme/shop/issues/comments/", status: 404, body: `{"message":"Not Found"}`})
	id, err := newTokenClient(t, f).UpsertReport(t.Context(), ref42, "new")
	if err != nil {
		t.Fatal(err)
	}
	if id == strconv.FormatInt(old, 10) {
		t.Errorf("kept the deleted comment's id %s", id)
	}
}

func TestReportBodyHasOneMarker(t *testing.T) {
	t.Parallel()
	got := reportBody("report\n\n" + tracker.ReportMarker + "\n")
	if want := "report\n\n" + tracker.ReportMarker; got != want {
		t.Errorf("reportBody = %q, want %q", got, want)
	}
}

func TestReportBodyTruncatesToGitHubsLimit(t *testing.T) {
	t.Parallel()
	body := reportBody(strings.Repeat("é", 70000))
	if n := len([]rune(body)); n > maxCommentRunes {
		t.Errorf("body has %d characters, over GitHub's %d", n, maxCommentRunes)
	}
	if !strings.HasSuffix(body, tracker.ReportMarker) || !strings.Contains(body, "report truncated") {
		t.Errorf("truncated body lacks the note or the marker: …%s", body[len(body)-120:])
	}
}

func TestRateLimitsAndServerErrorsAreRetryable(t *testing.T) {
	t.Parallel()
	reset := time.Now().Add(2 * time.Minute).Truncate(time.Second)
	resetHeader := strconv.FormatInt(reset.Unix(), 10)
	tests := []struct {
		name       string
		failure    fakeFailure
		retryable  bool
		after      time.Duration // expected After, ±2s
		untilReset bool          // expected After: until reset
	}{
		{"secondary rate limit with Retry-After", fakeFailure{status: 403, header: map[string]string{"Retry-After": "30"},
			body: `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}, true, 30 * time.Second, false},
		{"secondary rate limit without Retry-After", fakeFailure{status: 403,
			body: `{"message":"You have exceeded a secondary rate limit.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}, true, time.Minute, false},
		{"primary rate limit (403, remaining 0)", fakeFailure{status: 403, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Limit": "5000", "X-RateLimit-Reset": resetHeader},
			body: `{"message":"API rate limit exceeded"}`}, true, 0, true},
		{"primary rate limit (429, remaining 0)", fakeFailure{status: 429, header: map[string]string{"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": resetHeader},
			body: `{"message":"API rate limit exceeded"}`}, true, 0, true},
		{"429 with Retry-After", fakeFailure{status: 429, header: map[string]string{"Retry-After": "7"}, body: `{"message":"slow down"}`}, true, 7 * time.Second, false},
		{"500", fakeFailure{status: 500, body: `{"message":"Server Error"}`}, true, 0, false},
		{"502 HTML", fakeFailure{status: 502, body: `<html>bad gateway</html>`}, true, 0, false},
		{"404", fakeFailure{status: 404, body: `{"message":"Not Found"}`}, false, 0, false},
		{"403 permission", fakeFailure{status: 403, body: `{"message":"Resource not accessible by integration"}`}, false, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFakeGitHub(t)
			seed(f)
			tt.failure.match = "GET /repos/acme/shop/issues/42"
			f.failNext(tt.failure)
			_, err := newTokenClient(t, f).Fetch(t.Context(), ref42)
			if err == nil {
				t.Fatal("Fetch succeeded through a failure")
			}
			ok, after := tracker.Retryable(err)
			if ok != tt.retryable {
				t.Fatalf("Retryable(%v) = %v, want %v", err, ok, tt.retryable)
			}
			want := tt.after
			if tt.untilReset {
				want = time.Until(reset)
			}
			if d := after - want; d < -2*time.Second || d > 2*time.Second {
				t.Errorf("After = %v, want about %v", after, want)
			}
			if strings.Contains(err.Error(), f.token) {
				t.Errorf("error reveals the token: %v", err)
			}
		})
	}
}

// TestSecondaryLimitHoldsLaterCalls: after a secondary rate limit go-github
// refuses further calls until Retry-After passes, without a request; those
// are retryable too.
func TestSecondaryLimitHoldsLaterCalls(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	seed(f)
	f.failNext(fakeFailure{match: "GET /repos/acme/shop/issues/42", status: 403, header: map[string]string{"Retry-After": "60"},
		body: `{"message":"secondary","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`})
	c := newTokenClient(t, f)
	if _, err := c.Fetch(t.Context(), ref42); err == nil {
		t.Fatal("first Fetch succeeded")
	}
	n := len(f.callLog())
	_, err := c.Fetch(t.Context(), ref42)
	if ok, after := tracker.Retryable(err); !ok || after <= 0 {
		t.Errorf("second Fetch: %v (retryable %v, after %v), want retryable with a wait", err, ok, after)
	}
	if len(f.callLog()) != n {
		t.Errorf("the second Fetch reached GitHub during the secondary limit")
	}
}

func TestBadCredentialsSayWhatToCheck(t *testing.T) {
	t.Parallel()
	f := newFakeGitHub(t)
	seed(f)
	c, err := New(Options{BaseURL: f.baseURL(), Token: "ghp_wrong_secret_value"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Fetch(t.Context(), ref42)
	if err == nil || !strings.Contains(err.Error(), "credentials were refused") || strings.Contains(err.Error(), "ghp_wrong_secret_value") {
		t.Errorf("Fetch with a bad token: %v", err)
	}
}

// testAppKey is one RSA key for every test: generating keys is slow under
// the race detector.
var testAppKey = sync.OnceValues(func() (*rsa.PrivateKey, []byte) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		panic(err)
	}
	return key, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
})

func TestGitHubAppInstallationTokens(t *testing.T) {
	t.Parallel()
	key, pemKey := testAppKey()
	f := newFakeGitHub(t)
	seed(f)
	f.appKey, f.appID, f.token = &key.PublicKey, 12345, "not-yet-issued"
	c, err := New(Options{BaseURL: f.baseURL(), AppID: 12345, PrivateKeyPEM: pemKey, BotLogin: "relay-app[bot]"})
	if err != nil {
		t.Fatal(err)
	}
	// No installation configured: found from the repository.
	for range 2 {
		if _, err := c.Fetch(t.Context(), ref42); err != nil {
			t.Fatal(err)
		}
	}
	calls := f.callLog()
	want := []string{"GET /repos/acme/shop/installation", "POST /app/installations/77/access_tokens"}
	if diff := cmp.Diff(want, calls[:2]); diff != "" {
		t.Errorf("first calls (-want +got):\n%s", diff)
	}
	if f.tokens != 1 {
		t.Errorf("%d installation tokens issued for two fetches, want 1 (cached)", f.tokens)
	}
	// The delivery's installation id.
	inst, err := c.ForInstallation(5)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := inst.Fetch(t.Context(), ref42); err != nil {
		t.Fatal(err)
	}
	if last := f.callLog(); !containsCall(last, "POST /app/installations/5/access_tokens") {
		t.Errorf("ForInstallation(5) did not exchange a token for installation 5: %v", last)
	}
	if again, _ := c.ForInstallation(5); again != inst {
		t.Error("ForInstallation does not reuse the installation's client")
	}
}

// TestGitHubAppGitToken: an app client hands git the installation token of
// the repository's installation (the one its API calls use, cached); a
// token client hands none.
func TestGitHubAppGitToken(t *testing.T) {
	t.Parallel()
	key, pemKey := testAppKey()
	f := newFakeGitHub(t)
	seed(f)
	f.appKey, f.appID, f.token = &key.PublicKey, 12345, "not-yet-issued"
	c, err := New(Options{BaseURL: f.baseURL(), AppID: 12345, PrivateKeyPEM: pemKey})
	if err != nil {
		t.Fatal(err)
	}
	repo := tracker.Ref{Source: tracker.GitHub, Repo: "acme/shop"}
	tok, err := c.GitToken(t.Context(), repo)
	if err != nil {
		t.Fatal(err)
	}
	if tok == "" || tok != f.token {
		t.Errorf("GitToken = %q, want the issued installation token %q", tok, f.token)
	}
	if _, err := c.Fetch(t.Context(), ref42); err != nil {
		t.Fatal(err)
	}
	if again, _ := c.GitToken(t.Context(), repo); again != tok || f.tokens != 1 {
		t.Errorf("GitToken again = %q after %d tokens issued: want the cached token", again, f.tokens)
	}
	if _, err := c.GitToken(t.Context(), tracker.Ref{Source: tracker.Jira, Repo: "SHOP"}); err == nil {
		t.Error("GitToken of a Jira project succeeded")
	}
	pat, err := New(Options{BaseURL: f.baseURL(), Token: "ghp_x"})
	if err != nil {
		t.Fatal(err)
	}
	if tok, err := pat.GitToken(t.Context(), repo); tok != "" || err != nil {
		t.Errorf("token client GitToken = %q, %v; want none", tok, err)
	}
}

func containsCall(calls []string, want string) bool {
	for _, c := range calls {
		if c == want {
			return true
		}
	}
	return false
}

func TestNewRejectsBadOptions(t *testing.T) {
	t.Parallel()
	_, pemKey := testAppKey()
	tests := []struct {
		name string
		o    Options
		want string
	}{
		{"no credentials", Options{}, "no credentials"},
		{"token and app", Options{Token: "x", AppID: 1, PrivateKeyPEM: pemKey}, "not both"},
		{"app without key", Options{AppID: 1}, "needs both"},
		{"key without app id", Options{PrivateKeyPEM: pemKey}, "needs both"},
		{"key not PEM", Options{AppID: 1, PrivateKeyPEM: []byte("-----BEGIN NOTHING-----")}, "private key"},
		{"bad enterprise URL", Options{Token: "x", BaseURL: "://nope"}, "invalid base url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.o)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New: %v, want an error containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), "BEGIN") {
				t.Errorf("error echoes the key: %v", err)
			}
		})
	}
}

func TestRefChecks(t *testing.T) {
	t.Parallel()
	c, err := New(Options{Token: "x"})
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []tracker.Ref{{Source: tracker.Jira, Repo: "P", Number: "P-1"}, {Source: tracker.GitHub, Repo: "noslash", Number: "1"}, {Source: tracker.GitHub, Repo: "a/b", Number: "x"}} {
		if _, err := c.Fetch(t.Context(), ref); err == nil {
			t.Errorf("Fetch(%v) accepted a bad reference", ref)
		}
	}
	if c.Source() != tracker.GitHub {
		t.Errorf("Source = %q", c.Source())
	}
}

// TestHTMLAnswerSaysWhatToCheck: an API URL that answers with a web page
// (a proxy's or login portal's) read "invalid character '<' looking for
// beginning of value"; it now says to check the API URL.
func TestHTMLAnswerSaysWhatToCheck(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!DOCTYPE html><html><body>Sign in</body></html>")
	}))
	defer srv.Close()
	c, err := New(Options{BaseURL: srv.URL + "/api/v3/", Token: "ghp_token"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Fetch(t.Context(), ref42)
	want := "likely an HTML page: check GITHUB_API_URL or base_url (the API, e.g. https://ghe.example.com/api/v3/)"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Fetch from an HTML page: %v; want %q", err, want)
	}
	if ok, _ := tracker.Retryable(err); ok {
		t.Errorf("an HTML answer is retried: %v", err)
	}
}
