package serve

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// TestServeRateLimitShared: simultaneous deliveries cannot pass the rate
// limits, and two processes on one PostgreSQL queue share them: 24 new
// issues posted at once (on PostgreSQL half to each of two processes)
// start exactly the limit's number of jobs and the rest are answered 429.
// Each process kept its own buckets and checked before it took, so on
// PostgreSQL all 24 were accepted.
func TestServeRateLimitShared(t *testing.T) {
	needGit(t)
	repos := newTestRepos(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) { checkRateLimitAtOnce(t, repos, backend) })
	}
}

func checkRateLimitAtOnce(t *testing.T, repos testRepos, backend string) {
	url, processes := queueURL(t, backend), 1
	if backend == "postgres" {
		processes = 2
	}
	for _, tc := range []struct {
		name, repo string
		limits     Limits
		actor      func(i int) string
	}{
		{"author", "acme/a", Limits{AuthorPerHour: 5, RepositoryPerHour: 1000}, func(int) string { return "mallory" }},
		{"repository", "acme/b", Limits{AuthorPerHour: 1000, RepositoryPerHour: 7}, func(i int) string { return fmt.Sprintf("user%d", i) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			block := make(chan struct{})
			defer close(block)
			var svcs []*testService
			for range processes {
				cfg := testConfig(t, repos)
				cfg.Limits = tc.limits
				svcs = append(svcs, startService(t, cfg, serviceDeps{
					queueURL: url,
					trackers: map[string]tracker.Tracker{tracker.GitHub: newFakeTracker(tracker.GitHub)},
					scoper:   &fakeScoper{running: map[string]int{}, err: func(ScopeInput) error { <-block; return nil }},
				}))
			}
			const n = 24
			reqs := make([]*http.Request, n)
			for i := range reqs {
				p := testPayload{Delivery: tc.name + fmt.Sprint(i), Ref: tracker.Ref{Source: tracker.GitHub, Repo: tc.repo, Number: fmt.Sprint(i + 1)}, Actor: tc.actor(i)}
				reqs[i] = signedRequest(t, svcs[i%processes].url+sourcePath(p), p)
			}
			var mu sync.Mutex
			got := map[string]int{}
			var wg sync.WaitGroup
			for _, r := range reqs {
				wg.Go(func() {
					resp, err := http.DefaultClient.Do(r)
					res := "error"
					if err == nil {
						b, _ := io.ReadAll(resp.Body)
						resp.Body.Close()
						res = fmt.Sprint(resp.StatusCode)
						for _, want := range []string{ResultAccepted, ResultRateLimited} {
							if strings.Contains(string(b), `"result":"`+want+`"`) {
								res += " " + want
							}
						}
					}
					mu.Lock()
					got[res]++
					mu.Unlock()
				})
			}
			wg.Wait()
			limit := int(min(tc.limits.AuthorPerHour, tc.limits.RepositoryPerHour))
			want := map[string]int{"202 " + ResultAccepted: limit, "429 " + ResultRateLimited: n - limit}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("answers %v; want %v", got, want)
			}
		})
	}
}

// BenchmarkRateLimitTake: one take (and give-back) of a delivery's two
// tokens, in memory (the embedded queue) and in relay_rate (PostgreSQL):
//
//	RELAY_TEST_POSTGRES_URL=… go test -run '^$' -bench RateLimitTake -count 5 ./serve/
func BenchmarkRateLimitTake(b *testing.B) {
	lim := Limits{AuthorPerHour: 1e9, RepositoryPerHour: 1e9}
	trig := func(i int) tracker.Trigger {
		return tracker.Trigger{Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}, Actor: fmt.Sprint("user", i%100)}
	}
	run := func(b *testing.B, l rateLimiter) {
		for i := 0; b.Loop(); i++ {
			refund, wait, _, err := l.take(b.Context(), trig(i), time.Now())
			if err != nil || wait != 0 {
				b.Fatalf("take: %v, wait %s", err, wait)
			}
			if i%2 == 0 {
				refund(b.Context())
			}
		}
	}
	b.Run("memory", func(b *testing.B) { run(b, newMemLimiter(lim)) })
	b.Run("postgres", func(b *testing.B) {
		q, err := OpenQueue(b.Context(), QueueOptions{URL: freshPostgres(b), StateDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer q.Close()
		run(b, &sharedLimiter{limits: lim, q: q, log: slog.New(slog.DiscardHandler)})
	})
}
