package serve

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/relayhq/relay/internal/egress/egresstest"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/gitlab/gitlabtest"
)

// TestServeGitLabE2E runs the bot with the real GitLab client and webhook
// parser against a fake GitLab REST API, the real pipeline (index and
// offline report) and a real git remote over HTTP that wants the GitLab
// token, and sends it GitLab's published Issue Hook (opened, then a
// trigger label added) and Note Hook (a developer's /relay scope)
// payloads for one issue. The issue ends with one note, edited into each
// report in turn; a redelivery is a duplicate, a guest's command is
// refused, and deliveries without the secret token are refused.
func TestServeGitLabE2E(t *testing.T) {
	needGit(t)
	dir, head := gitRepo(t, map[string]string{
		"README.md":     "# shop\n",
		"notify/sms.py": "def send_sms(to, text):\n    \"\"\"Send an SMS; the provider is retried when it is slow.\"\"\"\n    return provider.send(to, text)\n",
	})
	remote, fetches := gitHTTPRemote(t, dir, glToken)
	api := gitlabtest.New(t, glToken, glBot)
	api.AddProject("acme/shop", 30)
	api.AddMember("acme/shop", 42, 30) // a developer
	api.AddMember("acme/shop", 43, 10) // a guest
	api.AddIssue("acme/shop", 7, "Customers receive the same SMS twice", "When the SMS provider is slow, send_sms sends the message again.")
	cfg := glConfig(t, api.URL(), Repository{GitLab: "Acme/Shop", Remote: remote})
	trackers, parsers, err := BuildTrackers(cfg, glEnv)
	if err != nil {
		t.Fatal(err)
	}
	pipe := &Pipeline{KeyFile: filepath.Join(t.TempDir(), "store.key")}
	logs := &syncWriter{w: &bytes.Buffer{}}
	svc := startService(t, cfg, serviceDeps{trackers: trackers, parsers: parsers, permissions: Permissions(cfg, trackers),
		scoper: pipe, indexer: pipe, log: logs})

	steps := []glDelivery{
		glOpened(t, "d-open", "acme/shop", 7),
		glLabeled(t, "d-label", "acme/shop", 7, "Relay-Scope"),
		glNote(t, "d-note", "acme/shop", 7, "/relay scope please", 42),
	}
	for i, d := range steps {
		if code, body := d.post(t, svc.url); code != http.StatusAccepted {
			t.Fatalf("delivery %s: %d %s", d.ID, code, body)
		}
		waitFor(t, 2*time.Minute, fmt.Sprintf("report %d", i+1), func() bool {
			_, reports := reportsOn(api, "acme/shop", 7)
			return reports == i+1 && idleQueue(t, svc.Service)
		})
	}
	notes := api.Notes("acme/shop", 7)
	if len(notes) != 1 {
		t.Fatalf("%d notes on the issue, want one", len(notes))
	}
	v := notes[0].Versions
	if !strings.Contains(v[0], "relay is scoping this issue") {
		t.Errorf("the note's first version is not the placeholder: %q", v[0])
	}
	last := v[len(v)-1]
	for _, want := range []string{tracker.ReportMarker, "notify/sms.py", "No model was used"} {
		if !strings.Contains(last, want) {
			t.Errorf("report lacks %q:\n%s", want, last)
		}
	}
	// The first line says the commit and how fresh the index was: built
	// cold by the first job, already up to date for the later ones.
	var reportsSeen []string
	for _, b := range v {
		if strings.Contains(b, "Scoped by relay") {
			reportsSeen = append(reportsSeen, b)
		}
	}
	wantHead := "<sub>Computed at `" + head[:12] + "` (main) · "
	if first := reportsSeen[0]; !strings.HasPrefix(first, wantHead+"index built cold for this run") {
		t.Errorf("first report's first line: %q", strings.SplitN(first, "\n", 2)[0])
	}
	if !strings.HasPrefix(last, wantHead+"index already up to date (no file changed), last written") {
		t.Errorf("last report's first line: %q", strings.SplitN(last, "\n", 2)[0])
	}
	if fetches.Load() == 0 {
		t.Error("the git remote served no request with the GitLab token")
	}

	refused := []struct {
		d      glDelivery
		code   int
		result string
	}{
		{steps[0], http.StatusOK, ResultDuplicate},
		{glNote(t, "d-guest", "acme/shop", 7, "/relay scope", 43), http.StatusOK, ResultForbidden},
		{glNote(t, "d-outsider", "acme/shop", 7, "/relay scope", 44), http.StatusOK, ResultForbidden},
		{glDelivery{Event: "Issue Hook", ID: "d-bad", Token: "guessed", Payload: steps[0].Payload}, http.StatusUnauthorized, ResultBadSignature},
		{glDelivery{Event: "Issue Hook", ID: "d-none", Token: "-", Payload: steps[0].Payload}, http.StatusUnauthorized, ResultUnsigned},
		{glOpened(t, "d-other", "acme/other", 1), http.StatusOK, ResultIgnored},
	}
	for _, r := range refused {
		code, body := r.d.post(t, svc.url)
		if code != r.code || !strings.Contains(body, `"result":"`+r.result+`"`) {
			t.Errorf("delivery %s: %d %s, want %d %s", r.d.ID, code, body, r.code, r.result)
		}
	}
	if !idleQueue(t, svc.Service) {
		t.Error("a refused delivery queued a job")
	}
	if _, reports := reportsOn(api, "acme/shop", 7); reports != len(steps) {
		t.Errorf("%d reports after the refused deliveries, want %d", reports, len(steps))
	}
	svc.stop()
	for _, s := range []string{glToken, glSecret} {
		if strings.Contains(logs.String(), s) {
			t.Errorf("a secret appears in the log")
		}
	}
}

// glBurst is a burst of GitLab deliveries over two projects: every
// issue opened, each opening delivered three times under one
// Idempotency-Key (GitLab's retries), and a third of the issues also
// commanded by a developer under their own ids; shuffled.
func glBurst(t testing.TB, perProject int) (all []glDelivery, issues map[string][]int64, dups int) {
	issues = map[string][]int64{}
	for _, project := range []string{"acme/shop", "acme/platform/api"} {
		for i := 1; i <= perProject; i++ {
			issues[project] = append(issues[project], int64(i))
			open := glOpened(t, fmt.Sprintf("open-%s-%d", project, i), project, i)
			all = append(all, open, open, open)
			dups += 2
			if i%3 == 0 {
				all = append(all, glNote(t, fmt.Sprintf("note-%s-%d", project, i), project, i, "/relay scope", 42))
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	return all, issues, dups
}

// glAPI is a fake GitLab with the burst's projects and issues and user 42
// a developer on both.
func glAPI(t testing.TB, issues map[string][]int64) *gitlabtest.Fake {
	api := gitlabtest.New(t, glToken, glBot)
	for project, iids := range issues {
		api.AddProject(project, 30)
		api.AddMember(project, 42, 30)
		for _, iid := range iids {
			api.AddIssue(project, iid, fmt.Sprintf("Issue %d", iid), "body")
		}
	}
	return api
}

// TestServeGitLabBurst: a burst of GitLab deliveries with duplicates,
// sent from 8 goroutines, ends with exactly one note per issue holding
// its report; every retry of a delivery is answered as a duplicate.
func TestServeGitLabBurst(t *testing.T) {
	needGit(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			payloads, issues, dups := glBurst(t, 12)
			api := glAPI(t, issues)
			remoteA, _ := gitRepo(t, nil)
			remoteB, _ := gitRepo(t, nil)
			cfg := glConfig(t, api.URL(), Repository{GitLab: "acme/shop", Remote: remoteA}, Repository{GitLab: "acme/platform/api", Remote: remoteB})
			trackers, parsers, err := BuildTrackers(cfg, glEnv)
			if err != nil {
				t.Fatal(err)
			}
			svc := startService(t, cfg, serviceDeps{trackers: trackers, parsers: parsers, permissions: Permissions(cfg, trackers),
				scoper: &fakeScoper{running: map[string]int{}, delay: 20 * time.Millisecond}, queueURL: queueURL(t, backend)})
			failed := deliverAll(func() string { return svc.url }, payloads, func(base string, d glDelivery) *http.Request { return d.request(t, base) }, nil)
			if len(failed) > 0 {
				t.Fatalf("%d deliveries got no 2xx", len(failed))
			}
			waitFor(t, 2*time.Minute, "a report on every issue", func() bool {
				for project, iids := range issues {
					for _, iid := range iids {
						if _, reports := reportsOn(api, project, iid); reports == 0 {
							return false
						}
					}
				}
				return idleQueue(t, svc.Service)
			})
			for project, iids := range issues {
				for _, iid := range iids {
					if notes, _ := reportsOn(api, project, iid); notes != 1 {
						t.Errorf("%s#%d: %d bot notes, want one", project, iid, notes)
					}
				}
			}
			var m dto.Metric
			if err := svc.Metrics().Deliveries.WithLabelValues(tracker.GitLab, ResultDuplicate).Write(&m); err != nil {
				t.Fatal(err)
			}
			if got := m.GetCounter().GetValue(); int(got) != dups {
				t.Errorf("%v deliveries answered as duplicates, want the %d retries", got, dups)
			}
		})
	}
}

// TestServeGitLabKill9: the GitLab burst against a bot process, with the
// real GitLab client and parser, that is killed with SIGKILL mid-burst and
// restarted on the same state directory. Every delivery answered 2xx (and
// every one redelivered after a failed answer) ends in its issue's report,
// on one note per issue: a job running at the kill runs again, editing
// the same note, never posting a second one.
func TestServeGitLabKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for River's lease on the killed process's jobs (~30 s)")
	}
	needGit(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			payloads, issues, _ := glBurst(t, 20)
			api := glAPI(t, issues)
			remoteA, _ := gitRepo(t, nil)
			remoteB, _ := gitRepo(t, nil)
			cfg := glConfig(t, api.URL(), Repository{GitLab: "acme/shop", Remote: remoteA}, Repository{GitLab: "acme/platform/api", Remote: remoteB})
			cfg.JobTimeout, cfg.RescueAfter, cfg.RetryBackoff, cfg.MaxAttempts, cfg.Heartbeat = 10*time.Second, 11*time.Second, 100*time.Millisecond, 10, 3*time.Second
			qurl := queueURL(t, backend)
			rec, recURL := newRecorder(t)
			spec := helperSpec{Config: *cfg, QueueURL: qurl, Recorder: recURL, GitLabEnv: map[string]string{"GL_TOKEN": glToken, "GL_SECRET": glSecret}}
			a := startHelperSpec(t, spec)
			var mu sync.Mutex
			current := a.url
			base := func() string { mu.Lock(); defer mu.Unlock(); return current }
			req := func(base string, d glDelivery) *http.Request { return d.request(t, base) }
			var once sync.Once
			killed := make(chan struct{})
			failed := deliverAll(base, payloads, req, func(n int) {
				if n == len(payloads)/2 {
					once.Do(func() {
						a.cmd.Process.Kill() // SIGKILL
						a.cmd.Wait()
						rec.forget(a.cmd.Process.Pid)
						close(killed)
					})
				}
			})
			<-killed
			b := startHelperSpec(t, spec)
			mu.Lock()
			current = b.url
			mu.Unlock()
			if left := deliverAll(base, failed, req, nil); len(left) > 0 {
				t.Fatalf("%d redeliveries failed on the restarted process", len(left))
			}
			t.Logf("%d deliveries redelivered after the kill", len(failed))
			total := 0
			waitFor(t, 90*time.Second, "a report on every issue", func() bool {
				for project, iids := range issues {
					for _, iid := range iids {
						if _, reports := reportsOn(api, project, iid); reports == 0 {
							return false
						}
					}
				}
				return true
			})
			time.Sleep(500 * time.Millisecond)
			for project, iids := range issues {
				for _, iid := range iids {
					notes, reports := reportsOn(api, project, iid)
					if notes != 1 {
						t.Errorf("%s#%d: %d bot notes, want one", project, iid, notes)
					}
					total += reports
				}
			}
			// A job that ran at the kill, or a command that came after an
			// issue's first job ended, edits its note once more.
			if extra := total - 2*20; extra > cfg.Workers+2*20/3 {
				t.Errorf("%d report edits beyond one per issue, want at most %d", extra, cfg.Workers+2*20/3)
			}
			if _, overlap, _ := rec.snapshot(); len(overlap) > 0 {
				t.Errorf("issues scoped twice at once: %v", overlap)
			}
		})
	}
}

// TestServeGitLabRedactsReports: a report quoting the canary secrets is
// posted on the GitLab issue, through the real client, with every value
// redacted, as on GitHub.
func TestServeGitLabRedactsReports(t *testing.T) {
	needGit(t)
	api := glAPI(t, map[string][]int64{"acme/shop": {1}})
	remote, _ := gitRepo(t, nil)
	cfg := glConfig(t, api.URL(), Repository{GitLab: "acme/shop", Remote: remote})
	trackers, parsers, err := BuildTrackers(cfg, glEnv)
	if err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg, serviceDeps{trackers: trackers, parsers: parsers, scoper: quotingScoper{}})
	if code, body := glOpened(t, "d-1", "acme/shop", 1).post(t, svc.url); code != http.StatusAccepted {
		t.Fatalf("%d %s", code, body)
	}
	waitFor(t, time.Minute, "the report", func() bool { _, r := reportsOn(api, "acme/shop", 1); return r == 1 })
	notes := api.Notes("acme/shop", 1)
	body := notes[0].Versions[len(notes[0].Versions)-1]
	if leaks := egresstest.Leaks(body); len(leaks) > 0 {
		t.Errorf("the posted note leaked %v:\n%s", leaks, body)
	}
	if !strings.Contains(body, "[redacted: github-pat]") {
		t.Errorf("the posted note has no redaction:\n%s", body)
	}
}
