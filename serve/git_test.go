package serve

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestServeGitToken: the token reaches the remote as an HTTP header and
// appears nowhere else: not in the error, not in the mirror's files.
func TestServeGitToken(t *testing.T) {
	needGit(t)
	const token = "ghp_s3cret-token-value"
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no such repository", http.StatusNotFound)
	}))
	defer srv.Close()
	state := t.TempDir()
	m := NewMirrors(state, 30*time.Second, func(k string) string {
		if k == "TOK" {
			return token
		}
		return ""
	}, nil)
	repo := Repository{GitHub: "acme/a", Remote: srv.URL + "/acme/a.git", Branch: "main", TokenEnv: "TOK", TokenUser: "x-access-token"}
	_, err := m.Fetch(t.Context(), repo)
	if err == nil {
		t.Fatal("fetch from a 404 remote succeeded")
	}
	basic := base64.StdEncoding.EncodeToString([]byte("x-access-token:" + token))
	mu.Lock()
	got := strings.Join(auth, ",")
	mu.Unlock()
	if !strings.Contains(got, "Basic "+basic) {
		t.Errorf("the remote saw Authorization %q, want the token as basic auth", got)
	}
	if strings.Contains(err.Error(), token) || strings.Contains(err.Error(), basic) {
		t.Errorf("the error shows the token: %v", err)
	}
	filepath.Walk(state, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			if b, _ := os.ReadFile(p); strings.Contains(string(b), token) || strings.Contains(string(b), basic) {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}

// TestServeGitTimeout: a git command past git_timeout is killed.
func TestServeGitTimeout(t *testing.T) {
	needGit(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(2 * time.Second) // a remote that never answers in time
	}))
	defer srv.Close()
	m := NewMirrors(t.TempDir(), 300*time.Millisecond, nil, nil)
	start := time.Now()
	_, err := m.Fetch(t.Context(), Repository{GitHub: "acme/a", Remote: srv.URL + "/a.git", Branch: "main"})
	if err == nil || !strings.Contains(err.Error(), "killed after") {
		t.Errorf("err = %v, want the clone killed", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("the killed clone took %s", d)
	}
}
