package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
	"github.com/relayhq/relay/udiff"
)

// realIssuesDir is the folder of the real-issue sets (instances.jsonl and
// git bundles): RELAY_REALISSUES, else the shared folder beside the
// checkout when there is one.
func realIssuesDir(t *testing.T) string {
	if d := os.Getenv("RELAY_REALISSUES"); d != "" {
		return d
	}
	d, _ := filepath.Abs(filepath.Join("..", "..", "shared", "realissues"))
	if _, err := os.Stat(filepath.Join(d, "instances.jsonl")); err != nil {
		t.Skip("set RELAY_REALISSUES=DIR (instances.jsonl and bundles) to run the review bot on a real fix")
	}
	return d
}

// realFix is one instance of instances.jsonl.
type realFix struct {
	ID     string `json:"instance_id"`
	Repo   string `json:"repo"`
	Bundle string `json:"bundle"`
	Ref    string `json:"ref"`
	Patch  string `json:"patch"`
}

func loadRealFix(t *testing.T, dir, id string) realFix {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "instances.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var fx realFix
		if err := json.Unmarshal(sc.Bytes(), &fx); err != nil {
			t.Fatal(err)
		}
		if fx.ID == id {
			return fx
		}
	}
	t.Fatalf("instance %s not in %s", id, dir)
	return realFix{}
}

// gitIn runs git in dir and returns its trimmed output.
func gitIn(t *testing.T, dir string, stdin string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// fakeGitHubComments is an httptest fake of the GitHub REST API's issue
// comments (list, create, edit), served under /api/v3/ for the real
// go-github client of tracker/github.
type fakeGitHubComments struct {
	srv *httptest.Server

	mu       sync.Mutex
	comments map[string][]map[string]any // "owner/name#n" → comments
	nextID   int64
	creates  int
	edits    int
}

var (
	fakeListRE = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/issues/(\d+)/comments$`)
	fakeEditRE = regexp.MustCompile(`^/api/v3/repos/([^/]+/[^/]+)/issues/comments/(\d+)$`)
)

func newFakeGitHubComments(t *testing.T) *fakeGitHubComments {
	f := &fakeGitHubComments{comments: map[string][]map[string]any{}, nextID: 100}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeGitHubComments) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer gh-token" {
		http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
		return
	}
	var in struct {
		Body string `json:"body"`
	}
	if r.Method != http.MethodGet {
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if m := fakeListRE.FindStringSubmatch(r.URL.Path); m != nil {
		key := m[1] + "#" + m[2]
		switch r.Method {
		case http.MethodGet:
			json.NewEncoder(w).Encode(f.comments[key])
		case http.MethodPost:
			f.nextID++
			f.creates++
			c := map[string]any{"id": f.nextID, "body": in.Body, "user": map[string]any{"login": "relay-bot", "type": "User"}}
			f.comments[key] = append(f.comments[key], c)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(c)
		}
		return
	}
	if m := fakeEditRE.FindStringSubmatch(r.URL.Path); m != nil && r.Method == http.MethodPatch {
		id, _ := strconv.ParseInt(m[2], 10, 64)
		for key, cs := range f.comments {
			for _, c := range cs {
				if c["id"] == id && strings.HasPrefix(key, m[1]+"#") {
					f.edits++
					c["body"] = in.Body
					json.NewEncoder(w).Encode(c)
					return
				}
			}
		}
	}
	http.NotFound(w, r)
}

// bodies returns the comments' bodies on key.
func (f *fakeGitHubComments) bodies(key string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, c := range f.comments[key] {
		out = append(out, c["body"].(string))
	}
	return out
}

// postGitHub sends payload as a signed GitHub delivery of event and
// returns the status and the result the bot answered.
func postGitHub(t *testing.T, url, event, delivery string, payload any) (int, string) {
	t.Helper()
	body, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url+"/webhooks/github", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", delivery)
	req.Header.Set("X-Hub-Signature-256", sign(testSecret, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Result, Message string }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, out.Result + ": " + out.Message
}

// prEvent is a signed pull_request delivery as GitHub sends it.
func prEvent(t *testing.T, url, delivery, action, head string) {
	t.Helper()
	code, msg := postGitHub(t, url, "pull_request", delivery, map[string]any{
		"action": action, "number": 7,
		"pull_request": map[string]any{"number": 7, "state": "open",
			"head": map[string]any{"sha": head, "ref": "fix-nan"}, "base": map[string]any{"ref": "main"}},
		"repository": map[string]any{"full_name": "google/gson"},
		"sender":     map[string]any{"login": "alice", "type": "User"},
	})
	if code != http.StatusAccepted {
		t.Fatalf("pull_request.%s delivery %s: %d %s", action, delivery, code, msg)
	}
}

// realPR is a real fix pushed as a change request to a real git remote:
// gson's #1093 (JsonWriter.value(double) in lenient mode) on its base tree
// as the remote's main, under headRef; push2 pushes a second commit that
// changes another method of the file (nullValue) and returns it.
type realPR struct {
	remote, work, headRef, head1 string
}

func newRealPR(t *testing.T, headRef string) realPR {
	t.Helper()
	needGit(t)
	dir := realIssuesDir(t)
	fx := loadRealFix(t, dir, "google__gson-1093")
	remote := filepath.Join(t.TempDir(), "gson.git")
	gitIn(t, ".", "", "clone", "-q", "--bare", "--single-branch", "--branch", fx.Ref, filepath.Join(dir, fx.Bundle), remote)
	gitIn(t, remote, "", "branch", "-m", fx.Ref, "main")
	gitIn(t, remote, "", "symbolic-ref", "HEAD", "refs/heads/main")
	work := filepath.Join(t.TempDir(), "work")
	gitIn(t, ".", "", "clone", "-q", remote, work)
	gitIn(t, work, fx.Patch, "apply", "-")
	gitIn(t, work, "", "commit", "-q", "-am", "JsonWriter: NaN and infinities in lenient mode")
	gitIn(t, work, "", "push", "-q", "origin", "HEAD:"+headRef)
	return realPR{remote: remote, work: work, headRef: headRef, head1: gitIn(t, work, "", "rev-parse", "HEAD")}
}

func (pr realPR) push2(t *testing.T) string {
	t.Helper()
	file := filepath.Join(pr.work, "gson/src/main/java/com/google/gson/stream/JsonWriter.java")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	const from = "public JsonWriter nullValue() throws IOException {\n"
	if !bytes.Contains(src, []byte(from)) {
		t.Fatalf("JsonWriter.java has no %q", from)
	}
	src = bytes.Replace(src, []byte(from), []byte(from+"    // A null in lenient mode is written as it is.\n"), 1)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, pr.work, "", "commit", "-q", "-am", "JsonWriter: note on nullValue")
	gitIn(t, pr.work, "", "push", "-q", "origin", "HEAD:"+pr.headRef)
	return gitIn(t, pr.work, "", "rev-parse", "HEAD")
}

// wantReviewComment fails t unless body is the review context of the
// first push: the changed file and symbol, callers, the blast radius.
func wantReviewComment(t *testing.T, body string) {
	t.Helper()
	for _, want := range []string{
		"Review context", "gson/src/main/java/com/google/gson/stream/JsonWriter.java", "public JsonWriter value(double value)",
		"Blast radius", "### Direct callers", "testDoubles", tracker.ReportMarker,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the review comment lacks %q:\n%s", want, body)
		}
	}
}

// prComment is a signed issue_comment delivery of body on pull request 7
// by an author of association assoc; it returns the delivery's result.
func prComment(t *testing.T, url, delivery, body, assoc string) string {
	t.Helper()
	_, msg := postGitHub(t, url, "issue_comment", delivery, map[string]any{
		"action": "created",
		"issue":  map[string]any{"number": 7, "pull_request": map[string]any{"url": "https://api.github.com/repos/google/gson/pulls/7"}},
		"comment": map[string]any{"id": 1, "body": body, "author_association": assoc,
			"user": map[string]any{"login": "bob", "type": "User"}},
		"repository": map[string]any{"full_name": "google/gson"},
		"sender":     map[string]any{"login": "bob", "type": "User"},
	})
	result, _, _ := strings.Cut(msg, ":")
	return result
}

// TestReviewBotGitHub: a real fix (gson's #1093, JsonWriter.value(double)
// in lenient mode) pushed as pull request 7 to a real git remote gets one
// review comment with the changed symbol, its callers and the blast
// radius, through the real webhook parser and go-github client against a
// fake API; a second push edits the same comment in place to the new
// head, and a stale delivery of the first head posts nothing.
func TestReviewBotGitHub(t *testing.T) {
	pr := newRealPR(t, "refs/pull/7/head")
	remote, head1 := pr.remote, pr.head1
	api := newFakeGitHubComments(t)
	cfg := testConfig(t, newTestRepos(t))
	cfg.Repositories = []Repository{{GitHub: "google/gson", Remote: remote, Branch: "main", Review: true}}
	cfg.JobTimeout = 3 * time.Minute
	cfg.RescueAfter = 4 * time.Minute
	cfg.path = "test.yaml"
	gh, err := github.New(github.Options{BaseURL: api.srv.URL + "/api/v3/", Token: "gh-token", BotLogin: "relay-bot"})
	if err != nil {
		t.Fatal(err)
	}
	hook, err := github.NewWebhook(testSecret, cfg.Rules("relay-bot"))
	if err != nil {
		t.Fatal(err)
	}
	pipe := &Pipeline{KeyFile: filepath.Join(t.TempDir(), "store.key"), Log: slog.New(slog.DiscardHandler)}
	logs := &syncWriter{w: &bytes.Buffer{}}
	svc := startService(t, cfg, serviceDeps{
		trackers: map[string]tracker.Tracker{tracker.GitHub: gh},
		parsers:  map[string]tracker.WebhookParser{tracker.GitHub: hook},
		scoper:   pipe, indexer: pipe, log: logs, verbose: true,
	})

	prEvent(t, svc.url, "d-opened", "opened", head1)
	const key = "google/gson#7"
	waitFor(t, 3*time.Minute, "the review comment at the first head", func() bool {
		b := api.bodies(key)
		return len(b) == 1 && strings.Contains(b[0], head1[:12])
	})
	wantReviewComment(t, api.bodies(key)[0])
	// Until the first job is marked done, a delivery of its head joins it.
	waitFor(t, time.Minute, "the first job to end", func() bool { return idleQueue(t, svc.Service) })

	head2 := pr.push2(t)
	// A late delivery of the first head's push, then the second's.
	prEvent(t, svc.url, "d-sync-late", "synchronize", head1)
	prEvent(t, svc.url, "d-sync", "synchronize", head2)
	waitFor(t, 3*time.Minute, "the review comment edited to the second head", func() bool {
		b := api.bodies(key)
		return len(b) == 1 && strings.Contains(b[0], head2[:12])
	})
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })
	b := api.bodies(key)
	if len(b) != 1 || !strings.Contains(b[0], head2[:12]) || !strings.Contains(b[0], "nullValue") {
		t.Fatalf("want one comment at %s naming nullValue, got %d:\n%s", head2[:12], len(b), strings.Join(b, "\n----\n"))
	}
	// A /relay review comment from a member reviews the head of the
	// moment again, in the same comment; one from an outsider is ignored.
	for _, c := range []struct{ assoc, result string }{{"NONE", ResultIgnored}, {"MEMBER", ResultAccepted}} {
		if got := prComment(t, svc.url, "d-comment-"+c.assoc, "/relay review", c.assoc); got != c.result {
			t.Errorf("/relay review from %s: %s, want %s", c.assoc, got, c.result)
		}
	}
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })
	if !strings.Contains(logs.String(), "review:github:google/gson#7@ ") {
		t.Errorf("no review job ran for the comment command")
	}
	// A force-push replaces the second head; a late delivery of the
	// replaced head ends as superseded too, rather than failing and
	// replacing the review with a failure note.
	gitIn(t, pr.work, "", "commit", "-q", "--amend", "-m", "JsonWriter: note on nullValue, reworded")
	gitIn(t, pr.work, "", "push", "-q", "--force", "origin", "HEAD:"+pr.headRef)
	head3 := gitIn(t, pr.work, "", "rev-parse", "HEAD")
	prEvent(t, svc.url, "d-sync-forced", "synchronize", head3)
	waitFor(t, 3*time.Minute, "the review comment edited to the force-pushed head", func() bool {
		b := api.bodies(key)
		return len(b) == 1 && strings.Contains(b[0], head3[:12])
	})
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })
	prEvent(t, svc.url, "d-sync-replaced", "synchronize", head2)
	waitFor(t, time.Minute, "the queue to drain", func() bool { return idleQueue(t, svc.Service) })
	if b := api.bodies(key); len(b) != 1 || !strings.Contains(b[0], head3[:12]) {
		t.Errorf("after the late delivery of a force-pushed-away head, want the review at %s, got:\n%s", head3[:12], strings.Join(b, "\n----\n"))
	}
	if got := strings.Count(logs.String(), "review superseded by a newer push"); got != 2 {
		t.Errorf("%d jobs ended as superseded, want 2 (the late deliveries of the first and the force-pushed-away head)", got)
	}
	api.mu.Lock()
	creates, edits := api.creates, api.edits
	api.mu.Unlock()
	if creates != 1 || edits < 1 {
		t.Errorf("comments created %d, edited %d; want 1 created and the rest edits", creates, edits)
	}
	t.Logf("review comment at the second head:\n%s", b[0])
}

// TestReviewDiffBudget: a diff over the byte budget is cut before the
// first file diff that does not fit, and the files past the cut are named
// as left out; a diff within it is read whole.
func TestReviewDiffBudget(t *testing.T) {
	t.Parallel()
	one := func(name string) string {
		return "diff --git a/" + name + " b/" + name + "\n--- a/" + name + "\n+++ b/" + name + "\n@@ -1 +1 @@\n-old\n+new\n"
	}
	diff := one("a.go") + one("b.go") + one("c go.go")
	file := filepath.Join(t.TempDir(), "change.diff")
	if err := os.WriteFile(file, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		max  int
		left []string
	}{
		{len(diff), nil},
		{len(diff) - 1, []string{"c go.go"}},
		{len(one("a.go")) + 14, []string{"b.go", "c go.go"}},
		{10, []string{"a.go", "b.go", "c go.go"}},
	}
	for _, tt := range tests {
		raw, err := readDiffPrefix(file, tt.max)
		if err != nil {
			t.Fatal(err)
		}
		var diffs []udiff.FileDiff
		if len(raw) > 0 {
			if diffs, err = udiff.Parse(bytes.NewReader(raw)); err != nil {
				t.Fatalf("max %d: %v", tt.max, err)
			}
		}
		if got := leftOut(diffs, []string{"a.go", "b.go", "c go.go", ""}); !cmp.Equal(got, tt.left) {
			t.Errorf("max %d: left out %q, want %q", tt.max, got, tt.left)
		}
	}
}

// TestReviewDryRun: under dry_run the review comment goes through the
// filtered, dry-run tracker as a report does: counted, logged, not posted.
// A dry-run tracker without UpsertReview failed every review job.
func TestReviewDryRun(t *testing.T) {
	t.Parallel()
	fake := newFakeTracker(tracker.GitHub)
	m := NewMetrics()
	tr := tracker.FilteredAll(dryRunAll(map[string]tracker.Tracker{tracker.GitHub: fake}, slog.New(slog.DiscardHandler), m.DryRunPosts), nil)[tracker.GitHub]
	rv, ok := tr.(tracker.Reviewer)
	if !ok || !tracker.CanReview(tr) {
		t.Fatal("the dry-run tracker keeps no review comments")
	}
	ref := tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "7"}
	if _, err := rv.UpsertReview(t.Context(), ref, "## Review context"); err != nil {
		t.Fatal(err)
	}
	if n := len(fake.reports()); n != 0 {
		t.Errorf("dry run posted %d comment(s)", n)
	}
	if got := counter(t, m.DryRunPosts.WithLabelValues(tracker.GitHub, PostReport)); got != 1 {
		t.Errorf("dry-run posts counted %v, want 1", got)
	}
}

// TestReviewSwitch: review triggers start jobs only on repositories with
// review: true, and the parsers see review on when any repository has it.
func TestReviewSwitch(t *testing.T) {
	t.Parallel()
	on, off := Repository{GitHub: "acme/a", Review: true}, Repository{GitHub: "acme/b"}
	tests := []struct {
		repos      []Repository
		repo       Repository
		allows, rv bool
	}{
		{[]Repository{on, off}, on, true, true},
		{[]Repository{on, off}, off, false, true},
		{[]Repository{off}, off, false, false},
	}
	for _, tt := range tests {
		c := &Config{Repositories: tt.repos}
		c.SetDefaults()
		if got := c.Allows(tt.repo, tracker.ReasonReview); got != tt.allows {
			t.Errorf("%s: Allows(review) = %v, want %v", tt.repo.Key(), got, tt.allows)
		}
		if got := c.Rules("bot").Review; got != tt.rv {
			t.Errorf("%d repositories: Rules.Review = %v, want %v", len(tt.repos), got, tt.rv)
		}
	}
}
