package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// vmHWM reads a process's peak resident set size (VmHWM) in bytes.
func vmHWM(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/<pid>/status")
	return 0
}

// flood posts n bodies of body at once to url with the given headers and
// returns the status codes by count (0: the server closed the connection
// before the body was sent, which is how an unread body ends).
func flood(url string, n int, body []byte, header http.Header) map[int]int {
	client := &http.Client{Timeout: 5 * time.Minute, Transport: &http.Transport{MaxConnsPerHost: 0, DisableKeepAlives: true}}
	var mu sync.Mutex
	codes := map[int]int{}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
			req.Header = header.Clone()
			code := 0
			if resp, err := client.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				code = resp.StatusCode
			}
			mu.Lock()
			codes[code]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return codes
}

// TestServeUnsignedLoadRSS: 100 concurrent 24 MB bodies without a
// signature, then 100 with a signature that does not match, against a bot
// process (max_body_bytes 25 MB, intake_bytes the default 50 MB): its peak
// resident set (VmHWM) grows by less than 200 MB over its size at start.
// Before the intake was bounded,
// each body was read whole first: 20 such requests took the process to
// ~900 MB. The figures are in BENCHMARKS.md.
func TestServeUnsignedLoadRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("sends 4.8 GB over loopback")
	}
	needGit(t)
	cfg := processConfig(t, newTestRepos(t))
	rec, recURL := newRecorder(t)
	_ = rec
	h := startHelper(t, cfg, "", recURL)
	pid := h.cmd.Process.Pid
	base := vmHWM(t, pid)
	body := bytes.Repeat([]byte("u"), 24<<20)
	unsigned := flood(h.url+"/webhooks/github", 100, body, http.Header{})
	afterUnsigned := vmHWM(t, pid)
	forged := flood(h.url+"/webhooks/github", 100, body, http.Header{"X-Test-Signature": {"sha256=0000"}})
	afterForged := vmHWM(t, pid)
	t.Logf("VmHWM: %d MB at start, %d MB after 100 unsigned 24 MB bodies (answers %v), %d MB after 100 with a forged signature (answers %v)",
		base>>20, afterUnsigned>>20, unsigned, afterForged>>20, forged)
	if unsigned[http.StatusOK]+unsigned[http.StatusAccepted] > 0 {
		t.Errorf("an unsigned delivery was accepted: %v", unsigned)
	}
	// The intake budget bounds what the load adds; the process's size at
	// start is the binary's (the race detector doubles it), not the
	// load's, so the bound is on the growth.
	if grew := afterForged - base; grew > 200<<20 {
		t.Errorf("RSS grew by %d MB under the unsigned load (%d MB at start), want under 200 MB", grew>>20, base>>20)
	}
}
