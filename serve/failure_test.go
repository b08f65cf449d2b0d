package serve

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// TestServeFailureKeepsReport: a good run posts its report; a later run of
// the same issue that fails with an internal error (a path, a host) leaves
// the good report in the comment with a short failure note below it, and
// no version of the comment shows the error; the log has it, with the job
// id the note gives.
func TestServeFailureKeepsReport(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.MaxAttempts = 1
	gh := newFakeTracker(tracker.GitHub)
	var failing atomic.Bool
	internal := "fatal: '/srv/relay/state/mirrors/git.internal.example/acme/a.git' does not appear to be a git repository"
	scoper := &fakeScoper{running: map[string]int{}, err: func(in ScopeInput) error {
		if failing.Load() {
			return errors.New(internal)
		}
		return nil
	}}
	logs := &syncLog{}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: scoper, log: logs})
	key := "github:acme/a#5"
	ref := tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "5"}
	sendBurst(t, svc.url, []testPayload{{Delivery: "k-1", Ref: ref}})
	waitFor(t, time.Minute, "the good report", func() bool { return strings.Contains(gh.current(key), "## Report for Issue 5") })
	good := gh.current(key)

	failing.Store(true)
	// The first job may still be marked running for a moment (the trigger
	// would join it): trigger again until a new job is accepted.
	for n := 2; ; n++ {
		resp, err := http.DefaultClient.Do(signedRequest(t, svc.url+"/webhooks/github", testPayload{Delivery: fmt.Sprintf("k-%d", n), Ref: ref}))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(b), `"result":"`+ResultAccepted+`"`) {
			break
		}
		if n > 600 {
			t.Fatalf("no new job accepted: %s", b)
		}
		time.Sleep(100 * time.Millisecond)
	}
	waitFor(t, time.Minute, "the failure note", func() bool { return strings.Contains(gh.current(key), "could not scope") })
	got := gh.current(key)
	if !strings.HasPrefix(got, good+"\n\n---\n\n") {
		t.Errorf("the good report is not kept above the failure note:\n--- good\n%s\n--- now\n%s", good, got)
	}
	id := regexp.MustCompile(`job id (\d+)`).FindStringSubmatch(got)
	if id == nil || !strings.Contains(got, "scoping failed; the operator's log has the details") {
		t.Fatalf("the failure note lacks the job id:\n%s", got)
	}
	gh.mu.Lock()
	edits := append([]string(nil), gh.edits[key]...)
	gh.mu.Unlock()
	for i, e := range edits {
		for _, leak := range []string{"/srv/relay", "git.internal.example", "does not appear to be a git repository"} {
			if strings.Contains(e, leak) {
				t.Errorf("edit %d of the comment publishes %q:\n%s", i+1, leak, e)
			}
		}
		if i > 1 && e != placeholder && !strings.HasPrefix(e, good) {
			t.Errorf("edit %d of the comment is neither the placeholder nor the good report with a note:\n%s", i+1, e)
		}
	}
	if l := logs.String(); !strings.Contains(l, internal) || !strings.Contains(l, "job_id="+id[1]) {
		t.Errorf("the log lacks the error with job_id=%s:\n%s", id[1], l)
	}
}

// syncLog collects log output from the workers' goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
