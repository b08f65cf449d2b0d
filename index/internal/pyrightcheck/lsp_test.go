package pyrightcheck

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fakeServer answers each request on the other end of c: when the
// request's cancellation file appears (Pyright's file-based
// cancellation), with RequestCancelled; after answerAfter otherwise.
func fakeServer(t *testing.T, c *lsp, toServer io.Reader, fromServer io.WriteCloser, answerAfter time.Duration) {
	t.Helper()
	srv := &lsp{in: fromServer, out: bufio.NewReader(toServer)}
	go func() {
		defer fromServer.Close()
		for {
			m, err := srv.read()
			if err != nil {
				return
			}
			file := filepath.Join(c.cancelDir, "cancellation-"+string(m.ID)+".tmp")
			reply := rpcMsg{ID: m.ID, Result: json.RawMessage(`[]`)}
			for start := time.Now(); time.Since(start) < answerAfter; time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(file); err == nil {
					reply = rpcMsg{ID: m.ID}
					reply.Error = &struct {
						Code    int    `json:"code"`
						Message string `json:"message"`
					}{requestCancelled, "cancelled"}
					break
				}
			}
			if err := srv.write(reply); err != nil {
				return
			}
		}
	}()
}

// TestCallWithin checks the per-request budget: a request past it is
// cancelled through its file and reported as errCancelled; one that
// answers in time is not, and leaves no cancellation file behind.
func TestCallWithin(t *testing.T) {
	tests := []struct {
		name        string
		answerAfter time.Duration
		budget      time.Duration
		want        error
	}{
		{"past the budget", time.Minute, 50 * time.Millisecond, errCancelled},
		{"within the budget", 0, time.Minute, nil},
		{"no budget", 0, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			toServerR, toServerW := io.Pipe()
			fromServerR, fromServerW := io.Pipe()
			c := &lsp{in: toServerW, out: bufio.NewReader(fromServerR), cancelDir: t.TempDir()}
			fakeServer(t, c, toServerR, fromServerW, tc.answerAfter)
			defer toServerW.Close()
			start := time.Now()
			var out []inCall
			err := c.callWithin("callHierarchy/incomingCalls", map[string]any{}, &out, tc.budget)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("callWithin: %v, want %v", err, tc.want)
			}
			if tc.want != nil && time.Since(start) < tc.budget {
				t.Errorf("cancelled after %v, before the budget %v", time.Since(start), tc.budget)
			}
			if es, _ := os.ReadDir(c.cancelDir); len(es) != 0 {
				t.Errorf("cancellation files left behind: %v", es)
			}
		})
	}
}
