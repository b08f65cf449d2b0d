package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEndpointSecretsNeverShown runs scope and batch against model
// endpoints that fail in different ways, with a password in
// OPENAI_BASE_URL and debug logging on, and checks that neither the
// password nor the API key appears in stdout, stderr, the transcripts or
// the batch's error files.
func TestEndpointSecretsNeverShown(t *testing.T) {
	t.Parallel()
	const password, apiKey = "pw-s3cret-9f8e", "sk-key-7d6c5b"
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	servers := map[string]string{"connection refused": closed.URL}
	for name, h := range map[string]http.HandlerFunc{
		"HTTP 500": func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, fmt.Sprintf(`{"error":{"message":"upstream %s failed"}}`, r.URL), http.StatusInternalServerError)
		},
		"HTML page": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, "<html>%s</html>", r.URL)
		},
		"error naming the URL": func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, "bad request to http://admin:%s@internal/v1", password)
		},
	} {
		srv := httptest.NewServer(h)
		t.Cleanup(srv.Close)
		servers[name] = srv.URL
	}
	for name, base := range servers {
		for _, cmd := range []string{"scope", "batch"} {
			t.Run(name+"/"+cmd, func(t *testing.T) {
				t.Parallel()
				u, err := url.Parse(base + "/v1")
				if err != nil {
					t.Fatal(err)
				}
				u.User = url.UserPassword("relay", password)
				env := func(k string) string {
					return map[string]string{"OPENAI_BASE_URL": u.String(), "OPENAI_API_KEY": apiKey}[k]
				}
				root := agentRepo(t)
				args := append([]string{"--repo", root, "--log-level", "debug", cmd, "--retries", "2"}, modelFlags...)
				out := filepath.Join(t.TempDir(), "reports")
				if cmd == "batch" {
					in := filepath.Join(t.TempDir(), "t.jsonl")
					if err := os.WriteFile(in, []byte(`{"id":"t1","title":"SMS","body":"sent twice"}`+"\n"), 0o644); err != nil {
						t.Fatal(err)
					}
					args = append(args, "--in", in, "--out", out)
				} else {
					args = append(args, "SMS sent twice")
				}
				code, stdout, stderr := relayAgent(t, env, "", args...)
				if code == 0 {
					t.Fatalf("exit 0 against a failing endpoint; stderr:\n%s", stderr)
				}
				if named := name == "connection refused" || name == "HTML page"; named && !strings.Contains(stderr, "relay:***@") {
					t.Errorf("stderr does not name the (redacted) endpoint:\n%s", stderr)
				}
				if name == "HTML page" && !strings.Contains(stderr, "answered with HTML, not JSON (status 200, content-type text/html); the base URL of an OpenAI-compatible API usually ends in /v1\ncheck --base-url / OPENAI_BASE_URL") {
					t.Errorf("an HTML reply is not named as such:\n%s", stderr)
				}
				texts := map[string]string{"stdout": stdout, "stderr": stderr}
				for _, dir := range []string{filepath.Join(root, ".relay", "runs"), out} {
					files, _ := filepath.Glob(filepath.Join(dir, "*"))
					for _, f := range files {
						b, err := os.ReadFile(f)
						if err != nil {
							t.Fatal(err)
						}
						texts[f] = string(b)
					}
				}
				for where, text := range texts {
					for _, secret := range []string{password, apiKey} {
						if strings.Contains(text, secret) {
							t.Errorf("%s shows %q:\n%s", where, secret, text)
						}
					}
				}
			})
		}
	}
}
