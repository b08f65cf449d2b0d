package serve

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// The durability probes run the bot as separate processes — this test
// binary re-executed with RELAY_SERVE_TEST_HELPER set — so that one can be
// killed with SIGKILL mid-burst and two can share one PostgreSQL. The
// helper's tracker and scoper report over HTTP to a recorder in the test,
// which sees every process.

func TestMain(m *testing.M) {
	if spec := os.Getenv("RELAY_SERVE_TEST_HELPER"); spec != "" {
		if err := helperMain(spec); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// helperSpec is what a helper process runs.
type helperSpec struct {
	Config   Config `json:"config"`
	QueueURL string `json:"queue_url"`
	Recorder string `json:"recorder"`
	AddrFile string `json:"addr_file"`
	// ScopeDelay is how long each scope takes; default 40ms.
	ScopeDelay time.Duration `json:"scope_delay,omitempty"`
	// GitLabEnv, when set, is the environment of the configuration's
	// gitlab section: the helper then runs the real GitLab tracker and
	// parser (BuildTrackers) instead of the recorder's tracker.
	GitLabEnv map[string]string `json:"gitlab_env,omitempty"`
}

func helperMain(specPath string) error {
	b, err := os.ReadFile(specPath)
	if err != nil {
		return err
	}
	var spec helperSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	rec := &remoteRecorder{url: spec.Recorder, pid: os.Getpid(), delay: cmp.Or(spec.ScopeDelay, 40*time.Millisecond)}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	spec.Config.path = "helper.yaml"
	o := Options{
		Config: &spec.Config, QueueURL: spec.QueueURL, Log: log,
		Trackers: map[string]tracker.Tracker{tracker.GitHub: rec.tracker(tracker.GitHub), tracker.Jira: rec.tracker(tracker.Jira)},
		Parsers:  map[string]tracker.WebhookParser{tracker.GitHub: hmacParser{testSecret}, tracker.Jira: hmacParser{testSecret}},
		Scoper:   rec, Indexer: &fakeIndexer{},
	}
	if spec.GitLabEnv != nil {
		getenv := func(k string) string { return spec.GitLabEnv[k] }
		if o.Trackers, o.Parsers, err = BuildTrackers(&spec.Config, getenv); err != nil {
			return err
		}
		o.Permissions, o.Secret = Permissions(&spec.Config, o.Trackers), getenv
	}
	s, err := New(ctx, o)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	if err := os.WriteFile(spec.AddrFile, []byte(l.Addr().String()), 0o644); err != nil {
		return err
	}
	return s.Run(ctx, l)
}

// remoteRecorder is the helper side: tracker and scoper calls become POSTs.
type remoteRecorder struct {
	url   string
	pid   int
	delay time.Duration
}

func (r *remoteRecorder) post(path string, v any) error {
	b, _ := json.Marshal(v)
	resp, err := http.Post(r.url+path, "application/json", bytes.NewReader(b))
	if err != nil {
		return &tracker.RetryableError{Err: err}
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("recorder %s: %s", path, resp.Status)
	}
	return nil
}

type recordedCall struct {
	Key  string `json:"key"`
	Body string `json:"body,omitempty"`
	PID  int    `json:"pid"`
}

type remoteTracker struct {
	r      *remoteRecorder
	source string
}

func (r *remoteRecorder) tracker(source string) tracker.Tracker { return remoteTracker{r, source} }

func (t remoteTracker) Source() string { return t.source }
func (t remoteTracker) Fetch(ctx context.Context, ref tracker.Ref) (tracker.Issue, error) {
	return tracker.Issue{Ref: ref, Title: "Issue " + ref.Number, Body: "body"}, nil
}
func (t remoteTracker) UpsertReport(ctx context.Context, ref tracker.Ref, body string) (string, error) {
	return "c", t.r.post("/upsert", recordedCall{Key: ref.Key(), Body: body, PID: t.r.pid})
}

func (r *remoteRecorder) Scope(ctx context.Context, in ScopeInput) (Report, error) {
	key := in.Issue.Ref.Key()
	if err := r.post("/start", recordedCall{Key: key, PID: r.pid}); err != nil {
		return Report{}, err
	}
	select {
	case <-time.After(r.delay):
	case <-ctx.Done():
	}
	if err := r.post("/end", recordedCall{Key: key, PID: r.pid}); err != nil {
		return Report{}, err
	}
	return Report{Markdown: "report " + key}, ctx.Err()
}

// recorder is the test side: it counts reports and running scopes per
// issue over every process.
type recorder struct {
	mu      sync.Mutex
	reports map[string]int
	running map[string]map[int]bool // key → processes scoping it now
	overlap []string
	pids    map[int]int // scopes per process
}

func newRecorder(t testing.TB) (*recorder, string) {
	rec := &recorder{reports: map[string]int{}, running: map[string]map[int]bool{}, pids: map[int]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var c recordedCall
		if err := json.NewDecoder(r.Body).Decode(&c); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		switch r.URL.Path {
		case "/upsert":
			if c.Body != placeholder {
				rec.reports[c.Key]++
			}
		case "/start":
			if len(rec.running[c.Key]) > 0 {
				rec.overlap = append(rec.overlap, c.Key)
			}
			if rec.running[c.Key] == nil {
				rec.running[c.Key] = map[int]bool{}
			}
			rec.running[c.Key][c.PID] = true
			rec.pids[c.PID]++
		case "/end":
			delete(rec.running[c.Key], c.PID)
		}
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// forget drops the scopes of a killed process: they never end.
func (r *recorder) forget(pid int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, pids := range r.running {
		delete(pids, pid)
	}
}

// runningCount is how many issues are being scoped now.
func (r *recorder) runningCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, pids := range r.running {
		if len(pids) > 0 {
			n++
		}
	}
	return n
}

func (r *recorder) snapshot() (reports map[string]int, overlap []string, pids map[int]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	reports, pids = map[string]int{}, map[int]int{}
	for k, v := range r.reports {
		reports[k] = v
	}
	for k, v := range r.pids {
		pids[k] = v
	}
	return reports, append([]string(nil), r.overlap...), pids
}

// helperProc is one running helper process.
type helperProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *syncWriter
}

func startHelper(t *testing.T, cfg *Config, queueURL, recorderURL string) *helperProc {
	t.Helper()
	return startHelperSpec(t, helperSpec{Config: *cfg, QueueURL: queueURL, Recorder: recorderURL})
}

func startHelperSpec(t *testing.T, spec helperSpec) *helperProc {
	t.Helper()
	dir := t.TempDir()
	spec.AddrFile = filepath.Join(dir, "addr")
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	specPath := filepath.Join(dir, "spec.json")
	if err := os.WriteFile(specPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RELAY_SERVE_TEST_HELPER="+specPath)
	stderr := &syncWriter{w: &bytes.Buffer{}}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &helperProc{cmd: cmd, stderr: stderr}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
		if t.Failed() {
			t.Logf("helper %d stderr:\n%s", cmd.Process.Pid, lastLines(stderr.String(), 30))
		}
	})
	waitFor(t, 60*time.Second, "the helper to listen", func() bool {
		a, err := os.ReadFile(spec.AddrFile)
		if err == nil && len(a) > 0 {
			h.url = "http://" + string(a)
			return true
		}
		return false
	})
	return h
}

type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// deliver posts payloads to the URL that base returns at the time of each
// post, from 8 goroutines, and returns the payloads that got no 2xx answer
// (a webhook sender redelivers those).
func deliver(t testing.TB, base func() string, payloads []testPayload, sent func(n int)) []testPayload {
	return deliverAll(base, payloads, func(base string, p testPayload) *http.Request {
		return signedRequest(t, base+sourcePath(p), p)
	}, sent)
}

// deliverAll is deliver for any kind of delivery: req builds the request
// of one for the base URL.
func deliverAll[T any](base func() string, payloads []T, req func(base string, p T) *http.Request, sent func(n int)) []T {
	var mu sync.Mutex
	var failed []T
	n := 0
	var wg sync.WaitGroup
	ch := make(chan T)
	client := &http.Client{Timeout: time.Minute} // a hang guard: a slow answer is not a lost delivery
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range ch {
				resp, err := client.Do(req(base(), p))
				ok := err == nil && resp.StatusCode/100 == 2
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				mu.Lock()
				if !ok {
					failed = append(failed, p)
				}
				n++
				if sent != nil {
					sent(n)
				}
				mu.Unlock()
			}
		}()
	}
	for _, p := range payloads {
		ch <- p
	}
	close(ch)
	wg.Wait()
	return failed
}

// processConfig is the configuration of the helper processes: a lease
// short enough that a killed worker's jobs come back within the test, and
// a job timeout long enough that a job on a loaded machine (two cores,
// the race detector, other tests) is not timed out and run again, which
// would be one more report edit than the kill explains. The heartbeat is
// as patient for the same reason: a live process reclaimed after missing
// three beats (9 s) while the machine is loaded would run its job twice.
func processConfig(t *testing.T, repos testRepos) *Config {
	cfg := testConfig(t, repos)
	cfg.JobTimeout = 10 * time.Second
	cfg.RescueAfter = 11 * time.Second
	cfg.RetryBackoff = 100 * time.Millisecond
	cfg.MaxAttempts = 10
	cfg.Heartbeat = 3 * time.Second
	return cfg
}

func wantOneReportEach(t *testing.T, keys []string, reports map[string]int, maxExtra int) {
	t.Helper()
	extra := 0
	for _, k := range keys {
		switch n := reports[k]; {
		case n == 0:
			t.Errorf("%s: no report (the delivery was lost)", k)
		case n > 1:
			extra += n - 1
		}
	}
	if len(reports) != len(keys) {
		t.Errorf("%d issues have reports, want %d", len(reports), len(keys))
	}
	if extra > maxExtra {
		t.Errorf("%d report edits beyond one per issue, want at most %d", extra, maxExtra)
	}
}

// TestServeKill9: the burst of TestServeBurst against a process that is
// killed with SIGKILL mid-burst and restarted on the same state directory:
// every delivery answered 2xx (and every one redelivered after a failed
// answer) ends in its issue's report. A job that was running at the kill
// runs again after its lease, so its issue may get its report edited a
// second time (at-least-once), never a second comment: at most as many
// extra edits as jobs the restarted process took back (or workers).
func TestServeKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for River's lease on the killed process's jobs (~30 s)")
	}
	needGit(t)
	for _, backend := range backends(t) {
		t.Run(backendName(backend), func(t *testing.T) {
			repos := newTestRepos(t)
			cfg := processConfig(t, repos)
			qurl := queueURL(t, backend)
			rec, recURL := newRecorder(t)
			a := startHelper(t, cfg, qurl, recURL)
			var mu sync.Mutex
			current := a.url
			base := func() string { mu.Lock(); defer mu.Unlock(); return current }
			payloads, keys := burstPayloads()
			var once sync.Once
			killed := make(chan struct{})
			failed := deliver(t, base, payloads, func(n int) {
				if n == 80 {
					once.Do(func() {
						a.cmd.Process.Kill() // SIGKILL
						a.cmd.Wait()
						rec.forget(a.cmd.Process.Pid)
						close(killed)
					})
				}
			})
			<-killed
			b := startHelper(t, cfg, qurl, recURL)
			mu.Lock()
			current = b.url
			mu.Unlock()
			if left := deliver(t, base, failed, nil); len(left) > 0 {
				t.Fatalf("%d redeliveries failed on the restarted process", len(left))
			}
			t.Logf("%d deliveries redelivered after the kill", len(failed))
			waitFor(t, 90*time.Second, "a report for every issue", func() bool {
				r, _, _ := rec.snapshot()
				return len(r) >= len(keys)
			})
			time.Sleep(500 * time.Millisecond)
			reports, overlap, _ := rec.snapshot()
			// The jobs running at the kill run again: the restarted process
			// takes them back (recover.go logs how many). River records a
			// completion in batches, so a job can have posted its report and
			// still count as running: more than workers may come back.
			wantOneReportEach(t, keys, reports, max(cfg.Workers, tookBack(b.stderr.String())))
			if len(overlap) > 0 {
				t.Errorf("issues scoped twice at once: %v", overlap)
			}
		})
	}
}

var tookBackRe = regexp.MustCompile(`took back the running jobs of a dead worker process[^\n]*count=(\d+)`)

// tookBack sums the jobs a process log says it took back from dead
// worker processes.
func tookBack(log string) int {
	n := 0
	for _, m := range tookBackRe.FindAllStringSubmatch(log, -1) {
		c, _ := strconv.Atoi(m[1])
		n += c
	}
	return n
}

// TestServeTwoProcesses: two processes with their own state directories
// share one PostgreSQL queue; the burst is split between them. Every issue
// gets exactly one report, both processes work, and no issue is ever scoped
// by both at once.
func TestServeTwoProcesses(t *testing.T) {
	qurl := freshPostgres(t)
	needGit(t)
	repos := newTestRepos(t)
	rec, recURL := newRecorder(t)
	a := startHelper(t, processConfig(t, repos), qurl, recURL)
	b := startHelper(t, processConfig(t, repos), qurl, recURL)
	payloads, keys := burstPayloads()
	var mu sync.Mutex
	i := 0
	base := func() string {
		mu.Lock()
		defer mu.Unlock()
		i++
		if i%2 == 0 {
			return a.url
		}
		return b.url
	}
	if failed := deliver(t, base, payloads, nil); len(failed) > 0 {
		t.Fatalf("%d deliveries failed", len(failed))
	}
	waitFor(t, 90*time.Second, "a report for every issue", func() bool {
		r, _, _ := rec.snapshot()
		return len(r) >= len(keys)
	})
	time.Sleep(500 * time.Millisecond)
	reports, overlap, pids := rec.snapshot()
	wantOneReportEach(t, keys, reports, 0)
	if len(overlap) > 0 {
		t.Errorf("issues scoped twice at once: %v", overlap)
	}
	if len(pids) != 2 {
		t.Errorf("scopes per process %v: want both processes working", pids)
	}
	for _, h := range []*helperProc{a, b} {
		if s := h.stderr.String(); strings.Contains(s, "level=ERROR") {
			t.Errorf("helper errors:\n%s", lastLines(s, 10))
		}
	}
}
