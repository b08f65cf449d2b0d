package serve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/relayhq/relay/tracker"
)

// testRepos are the repositories of the test configuration: two GitHub
// repositories and a Jira project, on two git remotes.
type testRepos struct {
	a, b         string // remote paths
	headA, headB string
}

func newTestRepos(t testing.TB) testRepos {
	a, ha := gitRepo(t, nil)
	b, hb := gitRepo(t, map[string]string{"README.md": "# b\n", "main.go": "package main\n"})
	return testRepos{a: a, b: b, headA: ha, headB: hb}
}

func testConfig(t testing.TB, r testRepos) *Config {
	t.Helper()
	opened := true
	c := &Config{
		StateDir:      t.TempDir(),
		Workers:       4,
		JobTimeout:    30 * time.Second,
		RescueAfter:   40 * time.Second,
		MaxAttempts:   3,
		RetryBackoff:  50 * time.Millisecond,
		RetryMax:      200 * time.Millisecond,
		DrainTimeout:  5 * time.Second,
		ShutdownDelay: 50 * time.Millisecond,
		GitTimeout:    time.Minute,
		GitHub:        &GitHubConfig{WebhookSecretEnv: "S", TokenEnv: "T", BotLogin: "relay-bot"},
		Jira:          &JiraConfig{BaseURL: "https://x.atlassian.net", Cloud: true, Email: "a@b", APITokenEnv: "J"},
		Triggers:      Triggers{Opened: &opened},
		// The bursts come from one author to two repositories.
		Limits: Limits{AuthorPerHour: 1e6, RepositoryPerHour: 1e6},
		Repositories: []Repository{
			{GitHub: "acme/a", Remote: r.a},
			{GitHub: "acme/b", Remote: r.b},
			{Jira: "SHOP", Remote: r.a},
		},
		path: "test.yaml",
	}
	c.SetDefaults()
	return c
}

// backends lists the queue backends to test: the embedded one always,
// PostgreSQL when RELAY_TEST_POSTGRES_URL is set (required under CI).
func backends(t *testing.T) []string {
	out := []string{""}
	if os.Getenv("RELAY_TEST_POSTGRES_URL") != "" {
		out = append(out, "postgres")
	} else if os.Getenv("CI") == "true" {
		t.Fatal("RELAY_TEST_POSTGRES_URL is not set under CI: scripts/test.sh exports it after scripts/setup.sh starts PostgreSQL")
	}
	return out
}

func backendName(b string) string {
	if b == "" {
		return "sqlite"
	}
	return b
}

// freshPostgres creates a database of its own for one test on the server
// of RELAY_TEST_POSTGRES_URL and drops it afterwards.
func freshPostgres(t testing.TB) string {
	t.Helper()
	base := os.Getenv("RELAY_TEST_POSTGRES_URL")
	if base == "" {
		t.Skip("RELAY_TEST_POSTGRES_URL not set")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to RELAY_TEST_POSTGRES_URL: %v", err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "relay_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// queueURL returns the queue URL for a backend name.
func queueURL(t testing.TB, backend string) string {
	if backend == "postgres" {
		return freshPostgres(t)
	}
	return ""
}

// testService is a running Service on a loopback listener.
type testService struct {
	*Service
	url  string
	stop func() error // cancel Run and wait for it
}

type serviceDeps struct {
	trackers map[string]tracker.Tracker
	scoper   Scoper
	indexer  Indexer
	queueURL string
	log      io.Writer // also gets the service's log (warnings and errors)

	permissions map[string]PermissionCheck
	// parsers replace the test parsers (hmacParser) when set: the real
	// ones of BuildTrackers.
	parsers map[string]tracker.WebhookParser
	// secret reads the secrets the configuration names (status.token_env).
	secret func(string) string
	// verbose logs at Info, not only warnings and errors.
	verbose bool
}

func startService(t testing.TB, cfg *Config, d serviceDeps) *testService {
	t.Helper()
	if d.indexer == nil {
		d.indexer = &fakeIndexer{}
	}
	var out io.Writer = testWriter{t}
	if d.log != nil {
		out = io.MultiWriter(out, d.log)
	}
	level := slog.LevelWarn
	if d.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(out, &slog.HandlerOptions{Level: level}))
	parsers := d.parsers
	if parsers == nil {
		parsers = map[string]tracker.WebhookParser{tracker.GitHub: hmacParser{testSecret}, tracker.Jira: hmacParser{testSecret}}
	}
	s, err := New(context.Background(), Options{
		Config: cfg, QueueURL: d.queueURL, Trackers: d.trackers, Scoper: d.scoper, Indexer: d.indexer, Log: log, Permissions: d.permissions,
		Parsers: parsers, Secret: d.secret,
	})
	if err != nil {
		t.Fatalf("serve.New: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, l) }()
	var stopped bool
	var runErr error
	stop := func() error {
		if !stopped {
			stopped = true
			cancel()
			select {
			case runErr = <-done:
			case <-time.After(time.Minute):
				runErr = errors.New("Run did not return within a minute of cancel")
			}
		}
		return runErr
	}
	t.Cleanup(func() { stop() })
	return &testService{Service: s, url: "http://" + l.Addr().String(), stop: stop}
}

// testWriter sends log output to t.Log (warnings and errors only).
type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// waitFor polls cond until it holds or the timeout passes.
func waitFor(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
