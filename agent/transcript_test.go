package agent_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/tools"
)

// hugeReplyServer answers every chat completion with one assistant message
// of size bytes, written from a buffer built before the test measures
// anything, so the server's own allocations stay out of the figures.
func hugeReplyServer(t *testing.T, size int) *httptest.Server {
	t.Helper()
	head := []byte(`{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`)
	tail := []byte(`"}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	chunk := []byte(strings.Repeat("word ", 64<<10/5))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if _, err := w.Write(head); err != nil {
			return
		}
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return // the client stopped reading
			}
		}
		_, _ = w.Write(tail)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestHugeReplyIsRefused: a 30 MB model reply (the probe of the issue) is
// refused while it is received; the retriever ends incomplete with the
// cap named as its reason; memory and the transcript stay small. Not parallel: it measures the process's
// allocations.
func TestHugeReplyIsRefused(t *testing.T) {
	srv := hugeReplyServer(t, 30<<20)
	runs := t.TempDir()
	client := agent.NewOpenAIClient(srv.URL+"/v1", "test", nil)
	r := newRunner(t, agent.NewRetryClient(client, agent.RetryOptions{}), tools.NewRegistry(), func(o *agent.Options) { o.RunsDir = runs })

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep, _, err := r.Retrieve(t.Context(), "where are SMS sent")
	runtime.ReadMemStats(&after)

	if err != nil || !rep.Incomplete || !strings.Contains(rep.Reason, "reply is larger than 8 MiB") {
		t.Fatalf("err = %v, report %+v; want an incomplete report naming the reply cap", err, rep)
	}
	// TotalAlloc only grows, so it bounds the peak from above.
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 200<<20 {
		t.Errorf("receiving the reply allocated %d MiB, want < 200 MiB", grown>>20)
	} else {
		t.Logf("allocated %d MiB while refusing a 30 MiB reply", grown>>20)
	}
	assertSmallTranscripts(t, runs, 1<<20)
}

// TestTranscriptClipsEvents: a large reply flows through the whole run —
// report, planner turn, gap detector — but the transcript records at most
// 64 KiB of each text. The reply is 2 MiB, twice the cap of a whole request
// event; RELAY_TEST_FULL=1 uses the largest reply the client accepts (just
// under MaxReplyBytes), which takes about 30 s under -race on a busy
// machine. (A 30 MB reply cannot get this far: TestHugeReplyIsRefused.)
func TestTranscriptClipsEvents(t *testing.T) {
	t.Parallel()
	size := 2 << 20
	if os.Getenv("RELAY_TEST_FULL") != "" {
		size = agent.MaxReplyBytes - 1<<10
	}
	huge := strings.Repeat("lorem ipsum ", size/12)
	c := agenttest.NewClient(func(_ context.Context, req openai.ChatCompletionRequest, _ int) (openai.ChatCompletionResponse, error) {
		switch req.Model {
		case "planner-model":
			if agenttest.Turns(req) == 0 {
				return agenttest.Calls(agenttest.Call("p1", "retrieve", `{"query":"q"}`)), nil
			}
			return agenttest.Text("done"), nil
		case "retriever-model":
			return agenttest.Text(huge), nil
		}
		return agenttest.Text(validScope), nil
	})
	runs := t.TempDir()
	r := newRunner(t, c, tools.NewRegistry(), func(o *agent.Options) { o.RunsDir = runs })
	s, err := r.Scope(t.Context(), "issue")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Retrievals) != 1 || len(s.Retrievals[0].Text) < len(huge)-1 {
		t.Fatalf("the report lost the reply: %d retrievals", len(s.Retrievals))
	}
	assertSmallTranscripts(t, runs, 1<<20)
	evs := readTranscript(t, s.Transcript)
	var clipped int
	for _, e := range evs {
		if e.Type == "response" && e.Response != nil && len(e.Response.Choices) > 0 {
			if content := e.Response.Choices[0].Message.Content; strings.HasSuffix(content, fmt.Sprintf("… (%d bytes dropped)", len(huge)-64<<10)) {
				clipped++
				if len(content) > 64<<10+64 {
					t.Errorf("response recorded %d bytes of content", len(content))
				}
			}
		}
	}
	if clipped != 1 {
		t.Errorf("%d response events carry the clipped reply, want 1", clipped)
	}
}

func assertSmallTranscripts(t *testing.T, dir string, limit int64) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcript in %s (%v)", dir, err)
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= limit {
			t.Errorf("transcript %s is %d bytes, want < %d", filepath.Base(f), fi.Size(), limit)
		}
	}
}

func TestReplyNotJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ctype   string
		body    string
		wantErr string
	}{
		{"html page", "text/html; charset=utf-8", "<!doctype html><html><body>Open WebUI</body></html>",
			"the model endpoint at http://HOST/v1 answered with HTML, not JSON (status 200, content-type text/html; charset=utf-8); the base URL of an OpenAI-compatible API usually ends in /v1"},
		{"html as json", "application/json", "\n  <html>hi</html>", "answered with HTML, not JSON (status 200, content-type application/json)"},
		{"plain text", "text/plain", "hello from the proxy", `answered with something that is not JSON (status 200, content-type text/plain, starting "hello from the proxy")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var calls int
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls++
				w.Header().Set("Content-Type", tc.ctype)
				fmt.Fprint(w, tc.body)
			}))
			t.Cleanup(srv.Close)
			runs := t.TempDir()
			client := agent.NewRetryClient(agent.NewOpenAIClient(srv.URL+"/v1", "sk-test-key", nil), agent.RetryOptions{Sleep: func(context.Context, time.Duration) error { return nil }})
			r := newRunner(t, client, tools.NewRegistry(), func(o *agent.Options) { o.RunsDir = runs })
			_, err := r.Scope(t.Context(), "issue")
			var re *agent.ReplyError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want a *agent.ReplyError", err)
			}
			got := strings.ReplaceAll(err.Error(), strings.TrimPrefix(srv.URL, "http://"), "HOST")
			if !strings.Contains(got, tc.wantErr) || strings.Contains(got, "invalid character") || strings.Contains(got, "Post ") {
				t.Errorf("err = %s\nwant it to contain %s", got, tc.wantErr)
			}
			if calls != 1 {
				t.Errorf("endpoint called %d times; a reply that is not JSON is not worth retrying", calls)
			}
		})
	}
}

// TestTranscriptRetention: the runs directory keeps the newest transcripts
// (by count, then by size), private to the user; transcripts left readable
// by an older relay are made private.
func TestTranscriptRetention(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		keep int
		// maxBytes is in transcripts' sizes (all runs write the same
		// amount); pruning happens as a run starts, when its own
		// transcript is still empty.
		maxBytes float64
		runs     int
		want     []string
	}{
		{"by count", 3, -1, 5, []string{"run3", "run4", "run5"}},
		{"by size", -1, 2.5, 5, []string{"run3", "run4", "run5"}},
		{"no limits", -1, -1, 4, []string{"run1", "run2", "run3", "run4"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join(t.TempDir(), "runs")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			// Left by an older relay: world-readable, and not a transcript.
			if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644); err != nil {
				t.Fatal(err)
			}
			c := agenttest.NewClient(func(context.Context, openai.ChatCompletionRequest, int) (openai.ChatCompletionResponse, error) {
				return agenttest.Text(strings.Repeat("report ", 200)), nil
			})
			maxBytes := int64(-1)
			for i := 1; i <= tc.runs; i++ {
				r := newRunner(t, c, tools.NewRegistry(), func(o *agent.Options) {
					o.RunsDir, o.RunsKeep, o.RunsMaxBytes = dir, tc.keep, maxBytes
					o.NewID = func() string { return fmt.Sprintf("run%d", i) }
					o.Now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, i, 0, time.UTC) }
				})
				if _, _, err := r.Retrieve(t.Context(), "q"); err != nil {
					t.Fatal(err)
				}
				if i == 1 {
					first := filepath.Join(dir, "20260102T030401Z-run1.jsonl")
					fi, err := os.Stat(first)
					if err != nil {
						t.Fatal(err)
					}
					if tc.maxBytes > 0 {
						maxBytes = int64(tc.maxBytes * float64(fi.Size()))
					}
					// As if written by an older relay.
					if err := os.Chmod(first, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range entries {
				fi, err := e.Info()
				if err != nil {
					t.Fatal(err)
				}
				if id, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok {
					got = append(got, id[len("20260102T030401Z-"):])
					if fi.Mode().Perm() != 0o600 {
						t.Errorf("%s has mode %v, want 0600", e.Name(), fi.Mode().Perm())
					}
				}
			}
			sort.Strings(got)

			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("kept %v, want %v", got, tc.want)
			}
			if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
				t.Errorf("retention removed a file that is not a transcript: %v", err)
			}
			if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
				t.Errorf("runs directory mode = %v, %v; want 0700", fi.Mode().Perm(), err)
			}
		})
	}
}
