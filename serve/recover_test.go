package serve

import (
	"fmt"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// TestServeRecoverAtOnce: a process is killed with SIGKILL while it scopes
// two issues whose scopes would never end. With rescue_after at 10 minutes
// River's own rescue cannot be what brings them back: the restarted
// embedded queue takes them back on start, and on PostgreSQL a second
// process takes them back once the dead one has missed 3 heartbeats (1s
// here). A new trigger for one of the issues after the kill ends in a
// report too. The time from the kill to both reports is logged (see
// BENCHMARKS.md); the bound is only a hang guard.
func TestServeRecoverAtOnce(t *testing.T) {
	needGit(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			cfg := processConfig(t, repos)
			cfg.JobTimeout, cfg.RescueAfter = 5*time.Minute, 10*time.Minute
			cfg.Heartbeat = time.Second // the time to recovery BENCHMARKS.md gives
			qurl := queueURL(t, backend)
			rec, recURL := newRecorder(t)
			a := startHelperSpec(t, helperSpec{Config: *cfg, QueueURL: qurl, Recorder: recURL, ScopeDelay: time.Hour})
			var keys []string
			for i := 1; i <= 2; i++ {
				p := testPayload{Delivery: fmt.Sprintf("r-%d", i), Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: fmt.Sprint(i)}, Actor: "ada"}
				if code, body, _ := post(t, a.url, p); code != 202 {
					t.Fatalf("delivery %d: %d %s", i, code, body)
				}
				keys = append(keys, p.Ref.Key())
			}
			waitFor(t, 60*time.Second, "both issues being scoped", func() bool { return rec.runningCount() == 2 })
			a.cmd.Process.Kill()
			a.cmd.Wait()
			killed := time.Now()
			rec.forget(a.cmd.Process.Pid)
			bcfg := *cfg
			if backend == "postgres" {
				bcfg.StateDir = t.TempDir() // another machine's process
			}
			b := startHelper(t, &bcfg, qurl, recURL)
			started := time.Since(killed)
			// A new trigger for an issue whose job the dead process held.
			p := testPayload{Delivery: "r-new", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}, Actor: "ada"}
			if code, body, _ := post(t, b.url, p); code != 202 {
				t.Fatalf("new trigger after the kill: %d %s", code, body)
			}
			waitFor(t, 90*time.Second, "reports for the issues the killed process was scoping", func() bool {
				r, _, _ := rec.snapshot()
				return r[keys[0]] >= 1 && r[keys[1]] >= 1
			})
			t.Logf("%s: both jobs reported %s after the kill (the new process was listening after %s)",
				backendName(backend), time.Since(killed).Round(10*time.Millisecond), started.Round(10*time.Millisecond))
		})
	}
}
