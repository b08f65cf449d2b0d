package serve

import (
	"context"
	"encoding/base64"
	"errors"
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
	// A hang guard only: the kill itself is what "killed after" says.
	if d := time.Since(start); d > time.Minute {
		t.Errorf("the killed clone took %s", d)
	}
}

// TestServeGitCredentials: a repository without token_env is fetched with
// the credentials function's token (a GitHub App's installation token);
// token_env, when set, wins; a failing credentials function fails the
// fetch with an error that says so.
func TestServeGitCredentials(t *testing.T) {
	needGit(t)
	var mu sync.Mutex
	var auth []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		http.Error(w, "no such repository", http.StatusNotFound)
	}))
	defer srv.Close()
	basic := func(tok string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte("x-access-token:"+tok))
	}
	tests := []struct {
		name     string
		tokenEnv string
		creds    GitTokenFunc
		want     string // Authorization the remote sees; "" for none
		wantErr  string
	}{
		{"app token", "", func(context.Context, Repository) (string, error) { return "ghs_app", nil }, basic("ghs_app"), ""},
		{"token_env wins", "TOK", func(context.Context, Repository) (string, error) { return "ghs_app", nil }, basic("ghp_env"), ""},
		{"no token", "", func(context.Context, Repository) (string, error) { return "", nil }, "", ""},
		{"credentials fail", "", func(context.Context, Repository) (string, error) { return "", errors.New("app not installed") }, "", "git credentials of github:acme/a: app not installed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			mu.Lock()
			auth = nil
			mu.Unlock()
			m := NewMirrors(t.TempDir(), 30*time.Second, func(k string) string { return map[string]string{"TOK": "ghp_env"}[k] }, nil)
			m.SetGitCredentials(tc.creds)
			_, err := m.Fetch(t.Context(), Repository{GitHub: "acme/a", Remote: srv.URL + "/acme/a.git", Branch: "main", TokenEnv: tc.tokenEnv, TokenUser: "x-access-token"})
			if err == nil {
				t.Fatal("fetch from a 404 remote succeeded")
			}
			if tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("err = %v, want %q", err, tc.wantErr)
			}
			mu.Lock()
			got := strings.Join(auth, ",")
			mu.Unlock()
			if tc.want != "" && !strings.Contains(got, tc.want) || tc.want == "" && strings.Contains(got, "Basic") {
				t.Errorf("the remote saw Authorization %q, want %q", got, tc.want)
			}
		})
	}
}

// TestServeLsRemoteBranch: --check-config's remote check said "git
// ls-remote: exit status 2:" for a branch the remote lacks; it now names
// the branch and what to set. A reachable branch gives its head.
func TestServeLsRemoteBranch(t *testing.T) {
	needGit(t)
	remote, head := gitRepo(t, map[string]string{"main.go": "package main\n"})
	m := NewMirrors(t.TempDir(), 30*time.Second, nil, nil)
	tests := []struct {
		branch, want, wantErr string
	}{
		{"main", head, ""},
		{"nobranch", "", `github:acme/a: remote ` + remote + ` has no branch "nobranch"; set the repository's branch to one it has (e.g. main or master)`},
	}
	for _, tc := range tests {
		sha, err := m.LsRemote(t.Context(), Repository{GitHub: "acme/a", Remote: remote, Branch: tc.branch})
		if tc.wantErr == "" {
			if err != nil || sha != tc.want {
				t.Errorf("branch %s: %q, %v; want %q", tc.branch, sha, err, tc.want)
			}
			continue
		}
		if err == nil || err.Error() != tc.wantErr {
			t.Errorf("branch %s: err = %v\nwant %s", tc.branch, err, tc.wantErr)
		}
	}
}
