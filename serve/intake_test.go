package serve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

// post sends a signed delivery and returns the status, body and
// Retry-After header.
func post(t *testing.T, base string, p testPayload) (int, string, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(signedRequest(t, base+sourcePath(p), p))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header.Get("Retry-After")
}

// TestServeKeyNormalized: ACME/A#7 and acme/a#7 are one issue, and so
// are shop-1 and SHOP-1: the second trigger joins the first one's job.
func TestServeKeyNormalized(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			q, err := OpenQueue(t.Context(), QueueOptions{URL: queueURL(t, backend), StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			pairs := [][2]tracker.Ref{
				{{Source: tracker.GitHub, Repo: "ACME/Shop", Number: "7"}, {Source: tracker.GitHub, Repo: "acme/shop", Number: "7"}},
				{{Source: tracker.Jira, Repo: "shop", Number: "shop-1"}, {Source: tracker.Jira, Repo: "SHOP", Number: "SHOP-1"}},
			}
			for i, p := range pairs {
				a, err := q.Enqueue(t.Context(), tracker.Trigger{Ref: p[0], DeliveryID: "a" + string(rune('0'+i))}, 3)
				if err != nil {
					t.Fatal(err)
				}
				b, err := q.Enqueue(t.Context(), tracker.Trigger{Ref: p[1], DeliveryID: "b" + string(rune('0'+i))}, 3)
				if err != nil {
					t.Fatal(err)
				}
				if !b.Coalesced || b.JobID != a.JobID {
					t.Errorf("%s then %s: jobs %d and %d (coalesced %v); want one job", p[0].Key(), p[1].Key(), a.JobID, b.JobID, b.Coalesced)
				}
			}
			// Active finds the queued job by its normalised key (the rate
			// limit lets a trigger for it through).
			for id, want := range map[string]bool{"a0": true, "b1": true, "c9": false} {
				src := tracker.GitHub
				if id == "b1" {
					src = tracker.Jira
				}
				if got, err := q.Seen(t.Context(), src, id); err != nil || got != want {
					t.Errorf("Seen(%s, %s) = %v, %v; want %v", src, id, got, err, want)
				}
			}
			for key, want := range map[string]bool{"github:acme/shop#7": true, "jira:SHOP-1": true, "github:acme/shop#8": false} {
				if got, err := q.Active(t.Context(), key); err != nil || got != want {
					t.Errorf("Active(%s) = %v, %v; want %v", key, got, err, want)
				}
			}
		})
	}
}

// TestServeRateLimit: an author gets author_per_hour new jobs, then 429
// with Retry-After; a repeated delivery and a trigger that joins a queued
// job take no token, and a redelivery over the limit is answered as a
// duplicate; other authors are not held back until the
// repository's own limit. On both queues.
func TestServeRateLimit(t *testing.T) {
	needGit(t)
	repos := newTestRepos(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) { checkRateLimit(t, repos, backend) })
	}
}

func checkRateLimit(t *testing.T, repos testRepos, backend string) {
	cfg := testConfig(t, repos)
	cfg.Limits = Limits{AuthorPerHour: 2, RepositoryPerHour: 3}
	gh := newFakeTracker(tracker.GitHub)
	block := make(chan struct{})
	defer close(block)
	svc := startService(t, cfg, serviceDeps{
		queueURL: queueURL(t, backend),
		trackers: map[string]tracker.Tracker{tracker.GitHub: gh},
		scoper:   &fakeScoper{running: map[string]int{}, err: func(ScopeInput) error { <-block; return nil }},
	})
	ref := func(n string) tracker.Ref { return tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: n} }
	steps := []struct {
		p      testPayload
		status int
		result string
	}{
		{testPayload{Delivery: "1", Ref: ref("1"), Actor: "mallory"}, 202, ResultAccepted},
		{testPayload{Delivery: "1", Ref: ref("1"), Actor: "mallory"}, 200, ResultDuplicate},
		{testPayload{Delivery: "2", Ref: ref("1"), Actor: "mallory"}, 202, ResultCoalesced},
		{testPayload{Delivery: "3", Ref: ref("2"), Actor: "mallory"}, 202, ResultAccepted},
		{testPayload{Delivery: "4", Ref: ref("3"), Actor: "Mallory"}, 429, ResultRateLimited},
		{testPayload{Delivery: "5", Ref: ref("4"), Actor: "ada"}, 202, ResultAccepted},
		{testPayload{Delivery: "6", Ref: ref("5"), Actor: "grace"}, 429, ResultRateLimited},
		// A redelivery over the limit is still the duplicate it is.
		{testPayload{Delivery: "3", Ref: ref("2"), Actor: "mallory"}, 200, ResultDuplicate},
	}
	for i, s := range steps {
		code, body, retry := post(t, svc.url, s.p)
		if code != s.status || !strings.Contains(body, `"result":"`+s.result+`"`) {
			t.Fatalf("step %d: %d %s; want %d %s", i, code, body, s.status, s.result)
		}
		if code == 429 && retry == "" {
			t.Errorf("step %d: 429 without Retry-After", i)
		}
	}
}

// TestServeIntakeBudget: while one large body is being read, a second that
// does not fit the intake budget is answered 503 with Retry-After, unread;
// a small one still fits; once the first is done the budget is free again.
func TestServeIntakeBudget(t *testing.T) {
	needGit(t)
	cfg := testConfig(t, newTestRepos(t))
	cfg.MaxBodyBytes, cfg.IntakeBytes = 4000, 5000
	svc := startService(t, cfg, serviceDeps{
		trackers: map[string]tracker.Tracker{tracker.GitHub: newFakeTracker(tracker.GitHub)},
		scoper:   &fakeScoper{running: map[string]int{}},
	})
	// A body of 3900 bytes, sent slowly: the first byte, then nothing.
	pr, pw := io.Pipe()
	slow, _ := http.NewRequest(http.MethodPost, svc.url+"/webhooks/github", pr)
	slow.ContentLength = 3900
	slow.Header.Set("X-Test-Signature", "sha256=00")
	done := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(slow)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	pw.Write([]byte("x"))
	big := bytes.Repeat([]byte("y"), 3000)
	var code int
	var retry string
	waitFor(t, 60*time.Second, "a large delivery refused while the first is read", func() bool {
		req, _ := http.NewRequest(http.MethodPost, svc.url+"/webhooks/github", bytes.NewReader(big))
		req.Header.Set("X-Test-Signature", sign(testSecret, big))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		code, retry = resp.StatusCode, resp.Header.Get("Retry-After")
		return code == http.StatusServiceUnavailable
	})
	if retry == "" {
		t.Errorf("503 without Retry-After")
	}
	if c, _, _ := post(t, svc.url, testPayload{Delivery: "small", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}, Actor: "ada"}); c != 202 {
		t.Errorf("a small delivery beside the large one: %d, want 202", c)
	}
	pw.Write(bytes.Repeat([]byte("x"), 3899))
	pw.Close()
	if c := <-done; c != http.StatusUnauthorized {
		t.Errorf("the slow delivery (bad signature): %d, want 401", c)
	}
	if c, body, _ := post(t, svc.url, testPayload{Delivery: "after", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "2"}, Actor: strings.Repeat("a", 2900)}); c != 202 {
		t.Errorf("a large delivery after the first was read: %d %s, want 202", c, body)
	}
}

// TestServeReadyzDraining: on shutdown /readyz answers 503 for
// shutdown_delay while the listener still answers, then the listener
// closes.
func TestServeReadyzDraining(t *testing.T) {
	needGit(t)
	cfg := testConfig(t, newTestRepos(t))
	// The window in which /readyz must be seen answering 503: long
	// enough that a busy machine's pauses between polls cannot miss it.
	cfg.ShutdownDelay = 10 * time.Second
	svc := startService(t, cfg, serviceDeps{
		trackers: map[string]tracker.Tracker{tracker.GitHub: newFakeTracker(tracker.GitHub)},
		scoper:   &fakeScoper{running: map[string]int{}},
	})
	stopped := make(chan error, 1)
	go func() { stopped <- svc.stop() }()
	saw503 := false
	waitFor(t, 60*time.Second, "/readyz to answer 503 before the listener closes", func() bool {
		resp, err := http.Get(svc.url + "/readyz")
		if err != nil {
			return true // closed
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusServiceUnavailable {
			saw503 = true
		}
		return false
	})
	if !saw503 {
		t.Errorf("/readyz never answered 503 before the listener closed")
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
}

// TestServeCommandPermission: a comment command, or a Jira issue created
// with a trigger label, from an account the source's permission check
// refuses starts nothing; an allowed one does; a label added to an
// existing issue is not checked; a failing check asks for a redelivery.
func TestServeCommandPermission(t *testing.T) {
	needGit(t)
	cfg := testConfig(t, newTestRepos(t))
	// With opened on, a new issue is scoped whoever creates it, trigger
	// label or not (TestServeRepoTriggerSwitches); the check is for
	// projects that scope new issues by label only.
	off := false
	cfg.Triggers.Opened = &off
	check := func(ctx context.Context, tr tracker.Trigger) (bool, error) {
		switch tr.ActorID {
		case "ada":
			return true, nil
		case "broken":
			return false, errors.New("jira is down")
		}
		return false, nil
	}
	svc := startService(t, cfg, serviceDeps{
		trackers:    map[string]tracker.Tracker{tracker.Jira: newFakeTracker(tracker.Jira)},
		scoper:      &fakeScoper{running: map[string]int{}},
		permissions: map[string]PermissionCheck{tracker.Jira: check},
	})
	ref := tracker.Ref{Source: tracker.Jira, Repo: "SHOP", Number: "SHOP-1"}
	for _, tc := range []struct {
		actor, reason, event string
		status               int
		result               string
	}{
		{"mallory", tracker.ReasonCommand, "comment_created", 200, ResultForbidden},
		{"broken", tracker.ReasonCommand, "comment_created", 503, ResultError},
		// A label set on the create screen needs only Create Issues.
		{"mallory", tracker.ReasonLabeled, "jira:issue_created", 200, ResultForbidden},
		{"mallory", tracker.ReasonLabeled, "jira:issue_updated", 202, ResultAccepted}, // adding a label needs Edit Issues
		{"ada", tracker.ReasonCommand, "comment_created", 202, ResultCoalesced},
	} {
		code, body, _ := post(t, svc.url, testPayload{Delivery: tc.actor + tc.reason + tc.event, Ref: ref, Actor: tc.actor, Reason: tc.reason, Event: tc.event})
		if code != tc.status || !strings.Contains(body, `"result":"`+tc.result+`"`) {
			t.Errorf("%s %s: %d %s; want %d %s", tc.actor, tc.reason, code, body, tc.status, tc.result)
		}
	}
}

// TestServeCostBudget: reservations of max_cost fill the hourly cap; a
// settled attempt gives back what it did not spend; the refusal says when
// room comes back.
func TestServeCostBudget(t *testing.T) {
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			q, err := OpenQueue(t.Context(), QueueOptions{URL: queueURL(t, backend), StateDir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			now := time.Unix(1_800_000_000, 0)
			b := Budget{PerHour: 1, PerDay: 5, Reserve: 0.4}
			for i, want := range []bool{true, true, false} {
				ok, retry, err := q.ReserveCost(t.Context(), int64(i+1), 1, b, now.Add(time.Duration(i)*time.Minute))
				if err != nil {
					t.Fatal(err)
				}
				if ok != want {
					t.Fatalf("reservation %d: %v, want %v", i+1, ok, want)
				}
				if !ok && !retry.Equal(now.Add(time.Hour+time.Second)) {
					t.Errorf("retry at %s, want an hour after the oldest cost", retry)
				}
			}
			if err := q.SettleCost(t.Context(), 1, 1, 0.05); err != nil {
				t.Fatal(err)
			}
			if ok, _, _ := q.ReserveCost(t.Context(), 3, 1, b, now.Add(3*time.Minute)); !ok {
				t.Errorf("no room after the first attempt cost 0.05 of its 0.4")
			}
			// An hour later the window is empty again, the day's is not.
			b.PerDay = 0.9
			if ok, _, _ := q.ReserveCost(t.Context(), 4, 1, b, now.Add(2*time.Hour)); ok {
				t.Errorf("the daily cap let a job through")
			}
		})
	}
}

// TestServeCostBudgetDefers: with cost_per_hour 1 and jobs that cost 0.6
// (max_cost 0.6), the first job runs and the second waits in the queue
// unscoped, counted in relay_jobs_budget_deferred_total, its comment a
// short note saying it waits for the hourly budget and until when.
func TestServeCostBudgetDefers(t *testing.T) {
	needGit(t)
	cfg := testConfig(t, newTestRepos(t))
	cfg.Limits.CostPerHour = 1
	cfg.Model = ModelConfig{BaseURL: "http://model.invalid/v1", MaxCost: 0.6}
	gh := newFakeTracker(tracker.GitHub)
	sc := &fakeScoper{running: map[string]int{}, cost: 0.6}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: sc})
	ref := func(n string) tracker.Ref { return tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: n} }
	if c, b, _ := post(t, svc.url, testPayload{Delivery: "c1", Ref: ref("1"), Actor: "ada"}); c != 202 {
		t.Fatalf("first: %d %s", c, b)
	}
	waitFor(t, 90*time.Second, "the first report", func() bool { return gh.reports()["github:acme/a#1"] == 1 })
	if c, b, _ := post(t, svc.url, testPayload{Delivery: "c2", Ref: ref("2"), Actor: "ada"}); c != 202 {
		t.Fatalf("second: %d %s", c, b)
	}
	var jobs []*rivertype.JobRow
	waitFor(t, 90*time.Second, "the second job deferred", func() bool {
		var err error
		jobs, err = svc.queue.Jobs(t.Context(), rivertype.JobStateScheduled)
		return err == nil && len(jobs) == 1
	})
	sc.mu.Lock()
	calls := sc.calls
	sc.mu.Unlock()
	if calls != 1 {
		t.Errorf("%d scopes, want 1: the second job ran past the budget", calls)
	}
	if jobs[0].ScheduledAt.Before(time.Now().Add(50 * time.Minute)) {
		t.Errorf("the deferred job is scheduled at %s; want about an hour from now", jobs[0].ScheduledAt)
	}
	// The issue says why nothing happens and until when: the job is
	// scheduled at the time the note gives, or a moment after it.
	waitFor(t, 90*time.Second, "the budget note", func() bool {
		for _, at := range []time.Time{jobs[0].ScheduledAt, jobs[0].ScheduledAt.Add(-2 * time.Second)} {
			if strings.Contains(gh.current("github:acme/a#2"), "waiting for the hourly model budget**; it will run by "+at.UTC().Format("15:04")+" UTC.") {
				return true
			}
		}
		return false
	})
	resp, err := http.Get(svc.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), "relay_jobs_budget_deferred_total 1") {
		t.Errorf("/metrics does not count the deferred start")
	}
}

// TestServeCostSettledOnFailure: an attempt that fails gives back the part
// of its reservation it did not spend: its relay_cost row holds what the
// failed model run cost (0.25), not max_cost (1), and one that fails
// before the model runs holds 0. On both queues.
func TestServeCostSettledOnFailure(t *testing.T) {
	needGit(t)
	repos := newTestRepos(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			cfg := testConfig(t, repos)
			cfg.Limits.CostPerHour = 10
			cfg.Model = ModelConfig{BaseURL: "http://model.invalid/v1", MaxCost: 1}
			gh := newFakeTracker(tracker.GitHub)
			gh.fail = func(op string, ref tracker.Ref) error {
				if op == "fetch" && ref.Number == "2" {
					return &Permanent{errors.New("no such issue")}
				}
				return nil
			}
			sc := &fakeScoper{running: map[string]int{}, cost: 0.25, err: func(ScopeInput) error { return &Permanent{errors.New("the model endpoint failed")} }}
			svc := startService(t, cfg, serviceDeps{queueURL: queueURL(t, backend), trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: sc})
			for _, n := range []string{"1", "2"} {
				if c, b, _ := post(t, svc.url, testPayload{Delivery: "f" + n, Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: n}, Actor: "ada"}); c != 202 {
					t.Fatalf("post %s: %d %s", n, c, b)
				}
			}
			var got string
			waitFor(t, 90*time.Second, "both jobs failed and settled", func() bool {
				jobs, err := svc.queue.Jobs(t.Context(), rivertype.JobStateCancelled)
				if err != nil || len(jobs) != 2 {
					return false
				}
				got, err = svc.queue.b.queryString(t.Context(), `SELECT CAST(CAST(sum(cost) AS DOUBLE PRECISION) AS TEXT) || ' ' || CAST(count(*) AS TEXT) FROM relay_cost`)
				return err == nil && got == "0.25 2"
			})
		})
	}
}
