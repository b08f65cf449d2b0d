package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// TestServeFailedRerunKeepsReport is the audit's failed re-run: the issue
// gets a good report; then its repository's remote vanishes and a re-run
// fails in git ("fatal: '/…/repo' does not appear to be a git
// repository"). The comment keeps the good report with a short failure
// note and the job id below it; no version of the comment shows the error
// or the remote's path, and the log has both.
func TestServeFailedRerunKeepsReport(t *testing.T) {
	remote := serveGitRepo(t)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again.")
	srv := startServeGitHub(t, remote, api, "max_attempts: 1\n", serveGetenv)
	secret := []byte(serveEnv["RELAY_TEST_GH_SECRET"])
	// trigger posts deliveries until one starts a new job (a trigger
	// joins a job still marked running).
	trigger := func(prefix string) {
		t.Helper()
		for n := 1; ; n++ {
			h, body := openedDelivery(fmt.Sprintf("%s-%d", prefix, n), "acme/sample", 7, secret)
			req, _ := http.NewRequest(http.MethodPost, "http://"+srv.addr+"/webhooks/github", bytes.NewReader(body))
			req.Header = h
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if strings.Contains(string(b), `"result":"accepted"`) {
				return
			}
			if n > 600 {
				t.Fatalf("no new job accepted: %s %s", resp.Status, b)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	trigger("good")
	var good string
	waitUntil(t, 2*time.Minute, "the good report", srv, func() bool {
		good, _ = api.lastVersion("acme/sample#7")
		return strings.Contains(good, "Scoped by relay")
	})
	if err := os.RemoveAll(remote); err != nil {
		t.Fatal(err)
	}
	trigger("rerun")
	var now string
	waitUntil(t, 2*time.Minute, "the failure note", srv, func() bool {
		now, _ = api.lastVersion("acme/sample#7")
		return strings.Contains(now, "could not scope")
	})
	srv.stop(t)
	unmarked := func(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, tracker.ReportMarker, "")) }
	if !strings.HasPrefix(unmarked(now), unmarked(good)+"\n\n---\n\n") {
		t.Errorf("the good report is not kept above the failure note:\n--- good\n%s\n--- now\n%s", good, now)
	}
	id := regexp.MustCompile(`scoping failed; the operator's log has the details, job id (\d+)`).FindStringSubmatch(now)
	if id == nil {
		t.Fatalf("the failure note lacks the job id:\n%s", now)
	}
	ids, versions := api.commentsOf("acme/sample#7")
	for _, cid := range ids {
		for v, body := range versions[cid] {
			for _, leak := range []string{remote, "fatal:", "does not appear to be a git repository"} {
				if strings.Contains(body, leak) {
					t.Errorf("version %d of the comment publishes %q:\n%s", v+1, leak, body)
				}
			}
		}
	}
	if log := srv.stderr.String(); !strings.Contains(log, "does not appear to be a git repository") || !regexp.MustCompile(`"job_id":`+id[1]+`,[^\n]*does not appear to be a git repository`).MatchString(log) {
		t.Errorf("the log lacks the git error under job_id=%s:\n%s", id[1], log)
	}
}
