package serve

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// testSecret signs the test deliveries.
var testSecret = []byte("test-webhook-secret")

// testPayload is the body the fake parser reads.
type testPayload struct {
	Delivery string      `json:"delivery"`
	Ref      tracker.Ref `json:"ref"`
	Ignore   string      `json:"ignore,omitempty"`
	Actor    string      `json:"actor,omitempty"`
	Reason   string      `json:"reason,omitempty"` // default opened
	Event    string      `json:"event,omitempty"`  // default issues.opened
}

// hmacParser is a WebhookParser over testPayload, signed like GitHub's
// X-Hub-Signature-256: enough to drive the HTTP layer without a tracker
// package.
type hmacParser struct{ secret []byte }

func sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// SignatureHeader implements SignedParser.
func (p hmacParser) SignatureHeader() string { return "X-Test-Signature" }

func (p hmacParser) Parse(h http.Header, body []byte) (tracker.Trigger, error) {
	if !hmac.Equal([]byte(h.Get("X-Test-Signature")), []byte(sign(p.secret, body))) {
		return tracker.Trigger{}, tracker.ErrBadSignature
	}
	var pl testPayload
	if err := json.Unmarshal(body, &pl); err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %v", tracker.ErrMalformed, err)
	}
	if pl.Ignore != "" {
		return tracker.Trigger{}, &tracker.Ignored{Reason: pl.Ignore}
	}
	reason := pl.Reason
	if reason == "" {
		reason = tracker.ReasonOpened
	}
	event := pl.Event
	if event == "" {
		event = "issues.opened"
	}
	return tracker.Trigger{Ref: pl.Ref, DeliveryID: pl.Delivery, Event: event, Reason: reason, Actor: pl.Actor, ActorID: pl.Actor}, nil
}

// signedRequest builds a signed test delivery.
func signedRequest(t testing.TB, url string, pl testPayload) *http.Request {
	body, err := json.Marshal(pl)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Test-Signature", sign(testSecret, body))
	return req
}

// fakeTracker keeps one report comment per issue, as a real tracker does by
// its marker, and records every edit.
type fakeTracker struct {
	source string
	mu     sync.Mutex
	report map[string]string   // key → current comment body
	edits  map[string][]string // key → every body posted, in order
	// fail, when set, is called before each UpsertReport and Fetch.
	fail func(op string, ref tracker.Ref) error
}

func newFakeTracker(source string) *fakeTracker {
	return &fakeTracker{source: source, report: map[string]string{}, edits: map[string][]string{}}
}

func (f *fakeTracker) Source() string { return f.source }

func (f *fakeTracker) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	if f.fail != nil {
		if err := f.fail("fetch", ref); err != nil {
			return tracker.Issue{}, err
		}
	}
	return tracker.Issue{Ref: ref, Title: "Issue " + ref.Number, Body: "The SMS is sent twice."}, nil
}

func (f *fakeTracker) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	if f.fail != nil {
		if err := f.fail("upsert", ref); err != nil {
			return "", err
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.report[ref.Key()] = body
	f.edits[ref.Key()] = append(f.edits[ref.Key()], body)
	return "c-" + ref.Key(), nil
}

// reports returns, per key, how many edits were final reports (not the
// placeholder).
func (f *fakeTracker) reports() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]int{}
	for k, es := range f.edits {
		for _, e := range es {
			if e != placeholder {
				out[k]++
			}
		}
	}
	return out
}

func (f *fakeTracker) current(key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.report[key]
}

// fakeScoper reports the issue title and the commit; it records how many
// jobs of one key run at once.
type fakeScoper struct {
	delay   time.Duration
	mu      sync.Mutex
	running map[string]int
	overlap []string // keys seen running twice at once
	calls   int
	err     func(in ScopeInput) error
	cost    float64 // each report's model cost
}

func (s *fakeScoper) Scope(ctx context.Context, in ScopeInput) (Report, error) {
	key := in.Issue.Ref.Key()
	s.mu.Lock()
	s.calls++
	s.running[key]++
	if s.running[key] > 1 {
		s.overlap = append(s.overlap, key)
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running[key]--
		s.mu.Unlock()
	}()
	if s.err != nil {
		if err := s.err(in); err != nil {
			return Report{Cost: s.cost}, err // what the failed model run cost
		}
	}
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return Report{}, ctx.Err()
	}
	if _, err := os.Stat(filepath.Join(in.Root, "README.md")); err != nil {
		return Report{}, fmt.Errorf("worktree: %w", err)
	}
	return Report{Markdown: "## Report for " + in.Issue.Title + "\ncommit " + in.Commit, Tokens: map[string]int64{"gap": 10}, Cost: s.cost}, nil
}

// fakeIndexer counts calls.
type fakeIndexer struct {
	mu    sync.Mutex
	calls int
}

func (x *fakeIndexer) Index(ctx context.Context, root, storeDir string) (IndexStats, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.calls++
	return IndexStats{Unchanged: x.calls > 1}, os.MkdirAll(storeDir, 0o755)
}

// needGit skips without git locally and fails under CI.
func needGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is required under CI")
		}
		t.Skip("git not installed")
	}
}

// gitRepo makes a repository with one commit on main and returns its path
// and head.
func gitRepo(t testing.TB, files map[string]string) (string, string) {
	t.Helper()
	needGit(t)
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	run("init", "-q", "-b", "main")
	if files == nil {
		files = map[string]string{"README.md": "# sample\n"}
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("add", "-A")
	run("commit", "-q", "-m", "init")
	return dir, run("rev-parse", "HEAD")
}

// gitCommit adds a commit to repo and returns the new head.
func gitCommit(t testing.TB, repo, name, body string) string {
	t.Helper()
	if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "change " + name}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	out, err := exec.Command("git", "-C", repo, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
