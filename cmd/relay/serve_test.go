package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relayhq/relay/serve"
	"github.com/relayhq/relay/tracker"
)

// serveGitRepo turns examples/sample into a git repository with one commit
// on main: the remote the bot mirrors.
func serveGitRepo(t *testing.T) string {
	t.Helper()
	return commitRepo(t, sampleRepo(t))
}

// commitRepo makes dir a git repository with one commit of all its files.
func commitRepo(t *testing.T, dir string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("git is required under CI")
		}
		t.Skip("git not installed")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "sample"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// cmdTracker keeps one report per issue in memory.
type cmdTracker struct {
	mu     sync.Mutex
	report map[string]string
}

func (c *cmdTracker) Source() string { return tracker.GitHub }
func (c *cmdTracker) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	body := "When the SMS provider is slow, notify sends the message again."
	if ref.Number == "2" {
		// The audit's 28 MB issue: the bot reads its first 256 KiB.
		body += "\n" + strings.Repeat("gateway timeout while sending the SMS, retrying\n", 28<<20/48)
	}
	return tracker.Issue{Ref: ref, Title: "Customers receive the same SMS twice", Body: body}, nil
}
func (c *cmdTracker) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.report[ref.Key()] = body
	return "1", nil
}
func (c *cmdTracker) get(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.report[key]
}

// cmdParser reads {"delivery","number"} signed with X-Test-Signature.
type cmdParser struct{ secret []byte }

func cmdSign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// SignatureHeader implements serve.SignedParser.
func (p cmdParser) SignatureHeader() string { return "X-Test-Signature" }

func (p cmdParser) Parse(h http.Header, body []byte) (tracker.Trigger, error) {
	if !hmac.Equal([]byte(h.Get("X-Test-Signature")), []byte(cmdSign(p.secret, body))) {
		return tracker.Trigger{}, tracker.ErrBadSignature
	}
	var v struct{ Delivery, Number string }
	if err := json.Unmarshal(body, &v); err != nil {
		return tracker.Trigger{}, fmt.Errorf("%w: %v", tracker.ErrMalformed, err)
	}
	return tracker.Trigger{Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/sample", Number: v.Number}, DeliveryID: v.Delivery, Reason: tracker.ReasonOpened}, nil
}

func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func writeServeConfig(t *testing.T, remote string, extra string) string {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`state_dir: %s
workers: 2
shutdown_delay: 10ms
triggers:
  opened: true
github:
  webhook_secret_env: RELAY_TEST_GH_SECRET
  token_env: RELAY_TEST_GH_TOKEN
  bot_login: relay-bot
repositories:
  - github: acme/sample
    remote: %s
    branch: main
%s`, filepath.Join(dir, "state"), remote, extra)
	p := filepath.Join(dir, "relay.yaml")
	if err := os.WriteFile(p, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

var serveEnv = map[string]string{"RELAY_TEST_GH_SECRET": "hook-s3cret-value", "RELAY_TEST_GH_TOKEN": "ghp_t0ken-value"}

func serveGetenv(k string) string { return serveEnv[k] }

// TestServeOffline runs `relay serve` with no model configured against a
// real git remote: a signed delivery gets the offline context report posted,
// saying no model was used; a second job on the unchanged repository
// re-indexes nothing.
func TestServeOffline(t *testing.T) {
	remote := serveGitRepo(t)
	cfgPath := writeServeConfig(t, remote, "")
	trk := &cmdTracker{report: map[string]string{}}
	secret := []byte(serveEnv["RELAY_TEST_GH_SECRET"])
	old := newServeTrackers
	newServeTrackers = func(cfg *serve.Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
		return map[string]tracker.Tracker{tracker.GitHub: trk}, map[string]tracker.WebhookParser{tracker.GitHub: cmdParser{[]byte(getenv(cfg.GitHub.WebhookSecretEnv))}}, nil
	}
	t.Cleanup(func() { newServeTrackers = old })
	addr := freePort(t)
	ctx, cancel := context.WithCancel(t.Context())
	var stderr syncBuf
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--config", cfgPath, "--listen", addr, "--log-level", "info"}, strings.NewReader(""), io.Discard, &stderr, serveGetenv)
	}()
	post := func(delivery, number string) {
		t.Helper()
		body := fmt.Appendf(nil, `{"delivery":%q,"number":%q}`, delivery, number)
		var resp *http.Response
		var err error
		for range 100 { // until the listener is up
			req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhooks/github", bytes.NewReader(body))
			req.Header.Set("X-Test-Signature", cmdSign(secret, body))
			if resp, err = http.DefaultClient.Do(req); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil {
			t.Fatalf("post: %v\n%s", err, stderr.String())
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			t.Fatalf("post: %s", resp.Status)
		}
	}
	wait := func(key string) string {
		t.Helper()
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) {
			if r := trk.get(key); strings.Contains(r, "Scoped by relay") || strings.Contains(r, "could not scope") {
				return r
			}
			time.Sleep(50 * time.Millisecond)
		}
		t.Fatalf("no report for %s\n%s", key, stderr.String())
		return ""
	}
	post("d-1", "1")
	r1 := wait("github:acme/sample#1")
	for _, want := range []string{"no model was used", "notify/", "No model was used"} {
		if !strings.Contains(r1, want) {
			t.Errorf("report lacks %q:\n%s", want, r1)
		}
	}
	post("d-2", "2")
	if r2 := wait("github:acme/sample#2"); !strings.Contains(r2, "The issue text was cut here") || !strings.Contains(r2, "notify/") || strings.Contains(r2, "kib") {
		t.Errorf("the report of a 28 MB issue does not say it was cut, or searched the note's words:\n%.3000s", r2)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("relay serve exited %d:\n%s", code, stderr.String())
	}
	var steps []map[string]any
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, `"msg":"index step"`) {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err == nil {
				steps = append(steps, m)
			}
		}
	}
	if len(steps) != 2 {
		t.Fatalf("%d index steps logged, want 2:\n%s", len(steps), stderr.String())
	}
	if steps[0]["unchanged"] != false || steps[1]["unchanged"] != true {
		t.Errorf("index steps %v: want the first to index and the second to find nothing changed", steps)
	}
	first, _ := steps[0]["dur"].(float64) // nanoseconds, as slog's JSON writes a duration
	second, _ := steps[1]["dur"].(float64)
	// The speed of an unchanged step is measured in BENCHMARKS.md; here
	// only that nothing was re-indexed.
	t.Logf("index steps: first %s, second %s", time.Duration(first), time.Duration(second))
	for _, s := range []string{serveEnv["RELAY_TEST_GH_SECRET"], serveEnv["RELAY_TEST_GH_TOKEN"]} {
		if strings.Contains(stderr.String(), s) {
			t.Errorf("a secret appears in the log")
		}
	}
}

// TestServeCheckConfig: --check-config reports unknown keys with their
// line, missing secrets by variable name and unreachable remotes, and
// prints the configuration without secret values.
func TestServeCheckConfig(t *testing.T) {
	remote := serveGitRepo(t)
	old := newServeTrackers
	newServeTrackers = func(cfg *serve.Config, getenv func(string) string) (map[string]tracker.Tracker, map[string]tracker.WebhookParser, error) {
		return map[string]tracker.Tracker{tracker.GitHub: &cmdTracker{}}, nil, nil
	}
	t.Cleanup(func() { newServeTrackers = old })
	tests := []struct {
		name  string
		extra string
		env   map[string]string
		code  int
		want  []string
	}{
		{"ok", "", serveEnv, 0, []string{"configuration OK", "webhook_secret_env: RELAY_TEST_GH_SECRET", "main at "}},
		{"unknown key", "wokers: 3\n", serveEnv, 1, []string{`relay.yaml:14: unknown key "wokers"`}},
		{"missing secret", "", map[string]string{}, 1, []string{"github.webhook_secret_env: environment variable RELAY_TEST_GH_SECRET is not set", "github.token_env: environment variable RELAY_TEST_GH_TOKEN is not set"}},
		{"unreachable remote", "  - github: acme/gone\n    remote: /nonexistent/repo.git\n", serveEnv, 1, []string{"github:acme/gone: remote /nonexistent/repo.git branch main"}},
		// The bot's model problems name relay.yaml's keys, not relay scope's flags.
		{"endpoint without a model", "model:\n  base_url: http://127.0.0.1:1/v1\n", serveEnv, 1, []string{"model: no model for endpoint http://127.0.0.1:1/v1: set model.model in relay.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeServeConfig(t, remote, tc.extra)
			var out, errb bytes.Buffer
			code := run(t.Context(), []string{"serve", "--config", p, "--check-config"}, strings.NewReader(""), &out, &errb, func(k string) string { return tc.env[k] })
			all := out.String() + errb.String()
			if code != tc.code {
				t.Errorf("exit %d, want %d:\n%s", code, tc.code, all)
			}
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("output lacks %q:\n%s", w, all)
				}
			}
			for _, s := range serveEnv {
				if strings.Contains(all, s) {
					t.Errorf("output shows a secret value:\n%s", all)
				}
			}
		})
	}
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestServeBatchQueue: relay batch --queue enqueues one job per ticket on
// the shared PostgreSQL queue, and a ticket whose issue already has a
// queued job joins it.
func TestServeBatchQueue(t *testing.T) {
	base := os.Getenv("RELAY_TEST_POSTGRES_URL")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("RELAY_TEST_POSTGRES_URL is not set under CI")
		}
		t.Skip("RELAY_TEST_POSTGRES_URL not set")
	}
	qurl := cmdFreshPostgres(t, base)
	in := filepath.Join(t.TempDir(), "backlog.jsonl")
	os.WriteFile(in, []byte(`{"id":"1","ref":"github:acme/shop#1"}
{"id":"2","title":"Slow search","ref":"jira:SHOP-2"}
{"id":"3","ref":"github:acme/shop#1"}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run(t.Context(), []string{"batch", "--in", in, "--queue", qurl}, strings.NewReader(""), &out, &errb, func(string) string { return "" }); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "3 tickets: 2 queued, 1 joined") {
		t.Errorf("output:\n%s", out.String())
	}
	q, err := serve.OpenQueue(t.Context(), serve.QueueOptions{URL: qurl})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	jobs, err := q.Jobs(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, j := range jobs {
		var a serve.ScopeArgs
		json.Unmarshal(j.EncodedArgs, &a)
		keys = append(keys, a.Key)
	}
	if strings.Join(keys, ",") != "github:acme/shop#1,jira:SHOP-2" {
		t.Errorf("queued jobs %v, want one per issue", keys)
	}
	// A ticket without a ref is refused before anything is enqueued.
	os.WriteFile(in, []byte(`{"id":"1","title":"no ref"}`), 0o644)
	errb.Reset()
	if code := run(t.Context(), []string{"batch", "--in", in, "--queue", qurl}, strings.NewReader(""), &out, &errb, func(string) string { return "" }); code == 0 || !strings.Contains(errb.String(), "has no ref") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// cmdFreshPostgres creates a database for one test and drops it after.
func cmdFreshPostgres(t *testing.T, base string) string {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatalf("connect to RELAY_TEST_POSTGRES_URL: %v", err)
	}
	defer conn.Close(context.Background())
	name := fmt.Sprintf("relay_cmd_test_%d", time.Now().UnixNano())
	if _, err := conn.Exec(t.Context(), "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err == nil {
			c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			c.Close(context.Background())
		}
	})
	u, _ := url.Parse(base)
	u.Path = "/" + name
	return u.String()
}

// TestServeWorkerNeedsSharedQueue: relay serve --worker on the embedded
// queue started, took no webhooks and could never be given a job; it is a
// usage error that says to pass a PostgreSQL queue.
func TestServeWorkerNeedsSharedQueue(t *testing.T) {
	p := writeServeConfig(t, serveGitRepo(t), "")
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"serve", "--config", p, "--worker"}, strings.NewReader(""), &out, &errb, func(k string) string { return serveEnv[k] })
	want := "--worker drains a shared PostgreSQL queue: pass --queue postgres://… (or set queue in the file)"
	if code != 2 || !strings.Contains(errb.String(), want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errb.String(), want)
	}
}
