package serve

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// The figures of issue 10's targets. They take about half a minute per
// backend, so they run only with RELAY_SERVE_BENCH=1:
//
//	RELAY_SERVE_BENCH=1 RELAY_TEST_POSTGRES_URL=… go test -run 'TestServeBench' -v ./serve/

func needBench(t *testing.T) {
	if os.Getenv("RELAY_SERVE_BENCH") == "" {
		t.Skip("set RELAY_SERVE_BENCH=1 to measure")
	}
}

func percentile(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// TestServeBenchAccept: webhook accept latency (request sent → 202 with the
// job committed) at 100 requests/s for 10 s, while 4 workers run jobs
// (each job: placeholder, git fetch, worktree, a 300 ms scope, report).
func TestServeBenchAccept(t *testing.T) {
	needBench(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			cfg := testConfig(t, repos)
			gh := newFakeTracker(tracker.GitHub)
			svc := startService(t, cfg, serviceDeps{
				trackers: map[string]tracker.Tracker{tracker.GitHub: gh},
				scoper:   &fakeScoper{delay: 300 * time.Millisecond, running: map[string]int{}},
				queueURL: queueURL(t, backend),
			})
			const n = 1000
			lat := make([]time.Duration, n)
			var wg sync.WaitGroup
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for i := range n {
				<-tick.C
				wg.Add(1)
				go func() {
					defer wg.Done()
					p := testPayload{Delivery: fmt.Sprintf("b-%d", i), Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: fmt.Sprint(i + 1)}}
					req := signedRequest(t, svc.url+"/webhooks/github", p)
					start := time.Now()
					resp, err := http.DefaultClient.Do(req)
					if err != nil {
						t.Error(err)
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					lat[i] = time.Since(start)
					if resp.StatusCode != http.StatusAccepted {
						t.Errorf("status %d", resp.StatusCode)
					}
				}()
			}
			wg.Wait()
			busy := len(gh.reports())
			t.Logf("%s: accept latency at 100 req/s with 4 busy workers: p50 %s p99 %s max %s (%d jobs finished meanwhile)",
				backendName(backend), percentile(lat, 0.5), percentile(lat, 0.99), slices.Max(lat), busy)
			svc.stop()
		})
	}
}

// TestServeBenchQueueOverhead: enqueue (202 received, job committed) →
// worker start (its placeholder posted), with idle workers, 200 jobs one
// at a time.
func TestServeBenchQueueOverhead(t *testing.T) {
	needBench(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			cfg := testConfig(t, repos)
			gh := newFakeTracker(tracker.GitHub)
			started := make(chan time.Time, 1)
			gh.fail = func(op string, ref tracker.Ref) error {
				if op == "upsert" && gh.current(ref.Key()) == "" {
					started <- time.Now()
				}
				return nil
			}
			svc := startService(t, cfg, serviceDeps{
				trackers: map[string]tracker.Tracker{tracker.GitHub: gh},
				scoper:   &fakeScoper{running: map[string]int{}},
				queueURL: queueURL(t, backend),
			})
			var waits []time.Duration
			for i := range 200 {
				p := testPayload{Delivery: fmt.Sprintf("q-%d", i), Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: fmt.Sprint(i + 1)}}
				resp, err := http.DefaultClient.Do(signedRequest(t, svc.url+"/webhooks/github", p))
				if err != nil {
					t.Fatal(err)
				}
				accepted := time.Now()
				resp.Body.Close()
				waits = append(waits, (<-started).Sub(accepted))
				key := p.Ref.Key()
				waitFor(t, 90*time.Second, "the job to finish", func() bool { return gh.reports()[key] == 1 })
			}
			t.Logf("%s: queue overhead enqueue→worker start: p50 %s p90 %s p99 %s",
				backendName(backend), percentile(waits, 0.5), percentile(waits, 0.9), percentile(waits, 0.99))
		})
	}
}
