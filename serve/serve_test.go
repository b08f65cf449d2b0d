package serve

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

// burstPayloads are the 200 deliveries of the durability probes: 160
// distinct issues (two GitHub repositories and a Jira project) and 40
// redeliveries (a fifth) of earlier deliveries with the same delivery id.
func burstPayloads() (all []testPayload, keys []string) {
	var distinct []testPayload
	for i := 1; i <= 160; i++ {
		var ref tracker.Ref
		switch {
		case i <= 80:
			ref = tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: fmt.Sprint(i)}
		case i <= 140:
			ref = tracker.Ref{Source: tracker.GitHub, Repo: "acme/b", Number: fmt.Sprint(i)}
		default:
			ref = tracker.Ref{Source: tracker.Jira, Repo: "SHOP", Number: fmt.Sprintf("SHOP-%d", i)}
		}
		distinct = append(distinct, testPayload{Delivery: fmt.Sprintf("d-%d", i), Ref: ref})
		keys = append(keys, ref.Key())
	}
	for i, p := range distinct {
		all = append(all, p)
		if i%4 == 3 { // 40 duplicates, interleaved
			all = append(all, p)
		}
	}
	return all, keys
}

func sourcePath(p testPayload) string { return "/webhooks/" + p.Ref.Source }

// sendBurst posts the payloads from 16 goroutines and returns the status
// codes by result.
func sendBurst(t testing.TB, base string, payloads []testPayload) map[int]int {
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	ch := make(chan testPayload)
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range ch {
				resp, err := http.DefaultClient.Do(signedRequest(t, base+sourcePath(p), p))
				if err != nil {
					t.Errorf("post %s: %v", p.Delivery, err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				codes[resp.StatusCode]++
				mu.Unlock()
			}
		}()
	}
	for _, p := range payloads {
		ch <- p
	}
	close(ch)
	wg.Wait()
	return codes
}

// TestServeBurst: 200 signed deliveries in a burst, a fifth of them
// duplicates, 4 workers → exactly one report per distinct issue, and no
// issue scoped by two workers at once; on both queue backends.
func TestServeBurst(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			cfg := testConfig(t, repos)
			gh, jira := newFakeTracker(tracker.GitHub), newFakeTracker(tracker.Jira)
			scoper := &fakeScoper{delay: 5 * time.Millisecond, running: map[string]int{}}
			svc := startService(t, cfg, serviceDeps{
				trackers: map[string]tracker.Tracker{tracker.GitHub: gh, tracker.Jira: jira},
				scoper:   scoper, queueURL: queueURL(t, backend),
			})
			payloads, keys := burstPayloads()
			codes := sendBurst(t, svc.url, payloads)
			if diff := cmp.Diff(map[int]int{http.StatusAccepted: 160, http.StatusOK: 40}, codes); diff != "" {
				t.Errorf("status codes (-want +got):\n%s", diff)
			}
			count := func() int { return len(gh.reports()) + len(jira.reports()) }
			waitFor(t, 2*time.Minute, "160 reports", func() bool { return count() >= 160 })
			if err := svc.stop(); err != nil {
				t.Fatalf("Run: %v", err)
			}
			want := map[string]int{}
			for _, k := range keys {
				want[k] = 1
			}
			got := gh.reports()
			for k, n := range jira.reports() {
				got[k] = n
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("reports per issue (-want +got):\n%s", diff)
			}
			if len(scoper.overlap) > 0 {
				t.Errorf("issues scoped twice at once: %v", scoper.overlap)
			}
			if r := gh.current("github:acme/b#100"); !strings.Contains(r, repos.headB) || !strings.Contains(r, "Scoped by relay at `"+repos.headB[:12]) {
				t.Errorf("report of acme/b#100 does not name the head of b %s:\n%s", repos.headB, r)
			}
			ents, _ := os.ReadDir(filepath.Join(cfg.StateDir, "worktrees", slug(cfg.Repositories[0])))
			if len(ents) != 0 {
				t.Errorf("%d worktrees left after the jobs", len(ents))
			}
		})
	}
}

// TestServeHTTP covers the answers of the webhook endpoints to bad input.
func TestServeHTTP(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.Workers = 1
	gh := newFakeTracker(tracker.GitHub)
	svc := startService(t, cfg, serviceDeps{
		trackers: map[string]tracker.Tracker{tracker.GitHub: gh},
		scoper:   &fakeScoper{running: map[string]int{}},
	})
	ok := testPayload{Delivery: "x-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "7"}}
	raw := func(body []byte, sig string) *http.Request {
		r, _ := http.NewRequest(http.MethodPost, svc.url+"/webhooks/github", bytes.NewReader(body))
		if sig != "" {
			r.Header.Set("X-Test-Signature", sig)
		}
		return r
	}
	big := bytes.Repeat([]byte("x"), DefaultMaxBody+1)
	tests := []struct {
		name   string
		req    *http.Request
		status int
		result string
	}{
		{"accepted", signedRequest(t, svc.url+"/webhooks/github", ok), 202, ResultAccepted},
		{"replayed delivery", signedRequest(t, svc.url+"/webhooks/github", ok), 200, ResultDuplicate},
		{"missing signature", raw([]byte(`{}`), ""), 401, ResultUnsigned},
		{"wrong signature", raw([]byte(`{}`), sign([]byte("other"), []byte(`{}`))), 401, ResultBadSignature},
		{"malformed JSON", raw([]byte(`{"ref":`), sign(testSecret, []byte(`{"ref":`))), 400, ResultMalformed},
		{"oversized", raw(big, sign(testSecret, big)), 413, ResultTooLarge},
		{"ignored event", signedRequest(t, svc.url+"/webhooks/github", testPayload{Ignore: "event ping"}), 200, ResultIgnored},
		{"repository not served", signedRequest(t, svc.url+"/webhooks/github",
			testPayload{Delivery: "x-2", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "other/repo", Number: "1"}}), 200, ResultIgnored},
		{"source mismatch", signedRequest(t, svc.url+"/webhooks/github",
			testPayload{Delivery: "x-3", Ref: tracker.Ref{Source: tracker.Jira, Repo: "SHOP", Number: "SHOP-1"}}), 400, ResultMalformed},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.DefaultClient.Do(tc.req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || !strings.Contains(string(body), `"result":"`+tc.result+`"`) {
				t.Errorf("status %d body %s; want %d and result %s", resp.StatusCode, body, tc.status, tc.result)
			}
		})
	}
	for path, want := range map[string]int{"/healthz": 200, "/readyz": 200, "/metrics": 200} {
		resp, err := http.Get(svc.url + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
		if path == "/metrics" {
			for _, m := range []string{"relay_webhook_deliveries_total", "relay_jobs_enqueued_total", "relay_jobs_in_progress",
				"relay_jobs_completed_total", "relay_job_duration_seconds", "relay_queue_wait_seconds",
				"relay_llm_tokens_total", "relay_llm_cost_total"} {
				if !strings.Contains(string(body), m) {
					t.Errorf("/metrics lacks %s", m)
				}
			}
			if !strings.Contains(string(body), `relay_webhook_deliveries_total{result="bad_signature",source="github"} 1`) ||
				!strings.Contains(string(body), `relay_webhook_deliveries_total{result="unsigned",source="github"} 1`) {
				t.Errorf("/metrics does not count the bad and the missing signature")
			}
		}
	}
	waitFor(t, 90*time.Second, "the accepted job's report", func() bool { return gh.reports()["github:acme/a#7"] == 1 })
}

// TestServeRetry: a model error and a tracker's rate limit (RetryableError
// with After) are retried; the rate-limited retry waits at least After; the
// retries scope the commit the first attempt recorded although the branch
// moved on meanwhile.
func TestServeRetry(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	gh := newFakeTracker(tracker.GitHub)
	var upserts atomic.Int32
	var limitedAt, retriedAt atomic.Int64
	gh.fail = func(op string, ref tracker.Ref) error {
		if op != "upsert" {
			return nil
		}
		switch upserts.Add(1) {
		case 2: // attempt 2's placeholder
			limitedAt.Store(time.Now().UnixNano())
			return &tracker.RetryableError{Err: errors.New("403 secondary rate limit"), After: 700 * time.Millisecond}
		case 3: // attempt 3's placeholder
			retriedAt.Store(time.Now().UnixNano())
		}
		return nil
	}
	var scopes atomic.Int32
	scoper := &fakeScoper{running: map[string]int{}, err: func(in ScopeInput) error {
		if scopes.Add(1) == 1 {
			gitCommit(t, repos.a, "new.txt", "new\n") // the branch moves on
			return errors.New("model endpoint: 502 bad gateway")
		}
		return nil
	}}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: scoper})
	p := testPayload{Delivery: "r-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}}
	if n := sendBurst(t, svc.url, []testPayload{p})[202]; n != 1 {
		t.Fatalf("delivery not accepted")
	}
	waitFor(t, 90*time.Second, "the report", func() bool { return gh.reports()["github:acme/a#1"] == 1 })
	if wait := time.Duration(retriedAt.Load() - limitedAt.Load()); wait < 700*time.Millisecond {
		t.Errorf("retried %s after the rate limit, before its Retry-After of 700ms", wait)
	}
	if r := gh.current("github:acme/a#1"); !strings.Contains(r, "commit "+repos.headA) {
		t.Errorf("the retry scoped another commit than the recorded %s:\n%s", repos.headA, r)
	}
	if got := upserts.Load(); got != 4 {
		t.Errorf("%d comment edits, want 4 (3 placeholders, 1 report)", got)
	}
}

// TestServeFailure: a job that keeps failing, and one whose error is
// permanent, end with the comment saying that it failed and the job id
// under which the log has the error; the error itself is not published.
func TestServeFailure(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	gh := newFakeTracker(tracker.GitHub)
	gh.fail = func(op string, ref tracker.Ref) error {
		if op == "fetch" && ref.Number == "2" {
			return errors.New("GET /repos/acme/a/issues/2: 404 Not Found")
		}
		return nil
	}
	var attempts atomic.Int32
	scoper := &fakeScoper{running: map[string]int{}, err: func(in ScopeInput) error {
		attempts.Add(1)
		return errors.New("model endpoint: 503 overloaded")
	}}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: scoper})
	sendBurst(t, svc.url, []testPayload{
		{Delivery: "f-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}},
		{Delivery: "f-2", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "2"}},
	})
	failed := func(key string) bool { return strings.Contains(gh.current(key), "relay could not scope this issue") }
	waitFor(t, 90*time.Second, "both failures posted", func() bool {
		return failed("github:acme/a#1") && failed("github:acme/a#2")
	})
	if got := attempts.Load(); got != int32(cfg.MaxAttempts) {
		t.Errorf("%d attempts of the failing scope, want max_attempts %d", got, cfg.MaxAttempts)
	}
	for key, internal := range map[string]string{"github:acme/a#1": "503 overloaded", "github:acme/a#2": "404 Not Found"} {
		if r := gh.current(key); strings.Contains(r, internal) || !strings.Contains(r, "the operator's log has the details, job id ") {
			t.Errorf("%s: the failure comment publishes the error %q or lacks the job id:\n%s", key, internal, r)
		}
	}
	if r := gh.current("github:acme/a#2"); !strings.Contains(r, "It tried 1 time") {
		t.Errorf("the permanent failure was retried:\n%s", r)
	}
}

// TestServeDrain: on shutdown the listener closes, a running job that does
// not finish within drain_timeout goes back to the queue without losing an
// attempt, and the next start runs it.
func TestServeDrain(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.DrainTimeout = 300 * time.Millisecond
	gh := newFakeTracker(tracker.GitHub)
	slow := &fakeScoper{delay: time.Hour, running: map[string]int{}}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: slow})
	sendBurst(t, svc.url, []testPayload{{Delivery: "s-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}}})
	waitFor(t, 90*time.Second, "the job to start scoping", func() bool {
		slow.mu.Lock()
		defer slow.mu.Unlock()
		return slow.calls == 1
	})
	start := time.Now()
	if err := svc.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > time.Minute { // a hang guard; drain_timeout is 5s
		t.Errorf("drain took %s with drain_timeout %s", d, cfg.DrainTimeout)
	}
	if _, err := http.Get(svc.url + "/healthz"); err == nil {
		t.Errorf("the listener still accepts after shutdown")
	}
	fast := &fakeScoper{running: map[string]int{}}
	svc2 := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: fast})
	waitFor(t, 90*time.Second, "the handed-back job's report", func() bool { return gh.reports()["github:acme/a#1"] == 1 })
	svc2.stop()
	jobs, err := svc2.Queue().Jobs(t.Context(), rivertype.JobStateCompleted)
	if err == nil {
		t.Errorf("Jobs after Close: want an error, got %d jobs", len(jobs))
	}
}
