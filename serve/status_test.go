package serve

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/riverqueue/river/rivertype"

	"github.com/relayhq/relay/tracker"
)

const statusTestToken = "status-test-token"

// statusTestReport is a posted report whose markup the page must show as
// text, never run.
const statusTestReport = "## Report for Issue 9\n<script>document.title = 'ran'</script>"

// startStatusService runs a Service with the status page on, one worker,
// and a scoper that fails issue 2 for good and holds every other issue
// until the test ends: #2 fails for good (cancelled) with its error, #4
// fails once and waits for its retry, #1 runs, #3 waits in the queue.
func startStatusService(t *testing.T, backend string) *testService {
	t.Helper()
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	cfg.Workers = 1
	cfg.RetryBackoff, cfg.RetryMax = 10*time.Minute, 10*time.Minute // #4 waits for its retry
	cfg.Status = StatusConfig{Enabled: true, TokenEnv: "RELAY_STATUS_TOKEN"}
	gh := newFakeTracker(tracker.GitHub)
	sc := &fakeScoper{running: map[string]int{}, delay: 10 * time.Minute, err: func(in ScopeInput) error {
		switch in.Issue.Ref.Number {
		case "2":
			return &Permanent{errors.New("index: the checkout has no source files")}
		case "4":
			return errors.New("git fetch: connection reset by peer")
		}
		return nil
	}}
	secret := func(name string) string {
		if name == "RELAY_STATUS_TOKEN" {
			return statusTestToken
		}
		return ""
	}
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, queueURL: queueURL(t, backend), scoper: sc, secret: secret})
	send := func(n string) {
		sendBurst(t, svc.url, []testPayload{{Delivery: "st-" + n, Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: n}}})
	}
	jobsIn := func(state rivertype.JobState, n int) func() bool {
		return func() bool {
			jobs, err := svc.queue.Jobs(t.Context(), state)
			return err == nil && len(jobs) == n
		}
	}
	send("2")
	waitFor(t, time.Minute, "issue 2's job to fail", jobsIn(rivertype.JobStateCancelled, 1))
	send("4")
	waitFor(t, time.Minute, "issue 4's job to wait for a retry", jobsIn(rivertype.JobStateRetryable, 1))
	send("1")
	waitFor(t, time.Minute, "issue 1's job to run", jobsIn(rivertype.JobStateRunning, 1))
	send("3")
	waitFor(t, time.Minute, "issue 3's job to wait", jobsIn(rivertype.JobStateAvailable, 1))
	if err := svc.queue.SaveReport(t.Context(), "github:acme/a#9", statusTestReport); err != nil {
		t.Fatal(err)
	}
	return svc
}

// TestStatusAuth: the page answers only with the token, and not at all
// unless the configuration enables it.
func TestStatusAuth(t *testing.T) {
	svc := startStatusService(t, "")
	tests := []struct {
		name string
		set  func(*http.Request)
		want int
	}{
		{"no credentials", func(*http.Request) {}, http.StatusUnauthorized},
		{"wrong bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer nope") }, http.StatusUnauthorized},
		{"bearer", func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+statusTestToken) }, http.StatusOK},
		{"basic auth", func(r *http.Request) { r.SetBasicAuth("ops", statusTestToken) }, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, svc.url+"/", nil)
			if err != nil {
				t.Fatal(err)
			}
			tt.set(req)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Errorf("status %d, want %d", resp.StatusCode, tt.want)
			}
		})
	}
	off := startService(t, testConfig(t, newTestRepos(t)), serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: newFakeTracker(tracker.GitHub)}, scoper: &fakeScoper{running: map[string]int{}}})
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, off.url+"/", nil)
	req.Header.Set("Authorization", "Bearer "+statusTestToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("status page off by default: got %d, want 404", resp.StatusCode)
	}
}

// TestStatusPageBrowser opens the page in headless Chromium: it shows the
// failed job with its error and issue link, the one waiting for its retry
// with its error, the running one and the queued one, and the last report
// as text (its markup not run), and its screenshot is written to the test's artifact
// directory (go test -artifacts keeps it) and logged.
func TestStatusPageBrowser(t *testing.T) {
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed: scripts/setup.sh installs Debian's chromium")
		}
		t.Skip("chromium not installed")
	}
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			svc := startStatusService(t, backend)
			opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium), chromedp.NoSandbox)
			actx, cancel := chromedp.NewExecAllocator(t.Context(), opts...)
			defer cancel()
			ctx, cancel := chromedp.NewContext(actx)
			defer cancel()
			ctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
			defer cancel()
			err := chromedp.Do(ctx,
				chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
						return err
					}
					_, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": "Bearer " + statusTestToken}})
					return err
				}),
				chromedp.Navigate(svc.url+"/"),
				chromedp.WaitVisible("#jobs"),
			)
			if err != nil {
				t.Fatalf("load the status page in chromium: %v", err)
			}
			jobs, err := chromedp.Run(ctx, chromedp.Text("#jobs"))
			if err != nil {
				t.Fatal(err)
			}
			failedLink, err := chromedp.Run(ctx, chromedp.AttributeValue("tr.cancelled a", "href"))
			if err != nil {
				t.Fatal(err)
			}
			report, err := chromedp.Run(ctx, chromedp.Text("pre"))
			if err != nil {
				t.Fatal(err)
			}
			if report != statusTestReport {
				t.Errorf("the last report shows %q, want its text %q", report, statusTestReport)
			}
			if title, err := chromedp.Run(ctx, chromedp.Title()); err != nil || title != "relay status" {
				t.Errorf("page title %q (%v): the report's script ran", title, err)
			}
			shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.ArtifactDir(), "status.png")
			if err := os.WriteFile(path, shot, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("screenshot: %s (%d bytes)", path, len(shot))
			for _, want := range []string{"github:acme/a#2", "cancelled", "index: the checkout has no source files", "github:acme/a#1", "running", "github:acme/a#3", "available",
				"github:acme/a#4", "retryable", "git fetch: connection reset by peer", "1 of 3"} {
				if !strings.Contains(jobs, want) {
					t.Errorf("the queue table lacks %q:\n%s", want, jobs)
				}
			}
			if failedLink.Value != "https://github.com/acme/a/issues/2" {
				t.Errorf("failed job's issue link %q", failedLink.Value)
			}
		})
	}
}
