package main

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent/agenttest"
)

// openedDelivery is a minimal signed issues.opened delivery for
// owner/name#number.
func openedDelivery(delivery, repo string, number int, secret []byte) (http.Header, []byte) {
	body := fmt.Appendf(nil, `{"action":"opened","issue":{"number":%d,"title":"t","user":{"login":"ada","type":"User"}},"repository":{"full_name":%q,"name":"sample","owner":{"login":"acme"}},"sender":{"login":"ada","type":"User"}}`, number, repo)
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	h := http.Header{}
	h.Set("X-GitHub-Event", "issues")
	h.Set("X-GitHub-Delivery", delivery)
	h.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(m.Sum(nil)))
	return h, body
}

// metricValues reads the Prometheus text of /metrics into name{labels} →
// value.
func metricValues(t *testing.T, addr string) map[string]float64 {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			continue
		}
		if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
			out[line[:i]] = v
		}
	}
	return out
}

// startServeGitHub writes a configuration serving acme/sample from remote
// through the real GitHub client pointed at api, with extra appended, and
// starts relay serve on it.
func startServeGitHub(t *testing.T, remote string, api *ghAPI, extra string, getenv func(string) string) *serveRun {
	t.Helper()
	cfg := writeServeConfig(t, remote, extra)
	b, _ := os.ReadFile(cfg)
	b = []byte(strings.Replace(string(b), "  bot_login: relay-bot\n", "  bot_login: relay-bot\n  base_url: "+api.baseURL()+"\n", 1))
	if err := os.WriteFile(cfg, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return startServe(t, cfg, getenv)
}

// scopeOpened posts a signed "opened" delivery (id delivery) for
// acme/sample#7 and waits (a two-minute hang guard) until the issue's
// comment is a report, which it returns.
func (s *serveRun) scopeOpened(t *testing.T, api *ghAPI, delivery, what string) string {
	t.Helper()
	h, body := openedDelivery(delivery, "acme/sample", 7, []byte(serveEnv["RELAY_TEST_GH_SECRET"]))
	s.post(t, "/webhooks/github", h, body)
	var report string
	waitUntil(t, 2*time.Minute, what, s, func() bool {
		report, _ = api.lastVersion("acme/sample#7")
		return strings.Contains(report, "Scoped by relay")
	})
	return report
}

// lastVersion is the current body of the issue's single comment, or "".
func (f *ghAPI) lastVersion(key string) (string, int) {
	ids, versions := f.commentsOf(key)
	if len(ids) == 0 {
		return "", 0
	}
	v := versions[ids[0]]
	return v[len(v)-1], len(ids)
}

// TestServeModel runs relay serve with a model section pointing at the
// scripted OpenAI-compatible server, whose first answer is a 500: the
// request is retried, and the report posted through the real GitHub
// client is the gap detector's; the token and cost metrics grow. Then
// `relay scope --issue … --post` with the same model edits the same
// comment into the very same body.
func TestServeModel(t *testing.T) {
	needRgFd(t)
	remote := serveGitRepo(t)
	fm := startFakeModel(t)
	var fails atomic.Int32
	srvModel := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		if n == 1 {
			fails.Add(1)
			return agenttest.Error(500, "the model is overloaded")
		}
		return fm.handle(req, n)
	})
	t.Cleanup(srvModel.Close)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again.")
	env := map[string]string{"RELAY_TEST_MODEL_KEY": "sk-model-s3cret"}
	for k, v := range serveEnv {
		env[k] = v
	}
	getenv := func(k string) string { return env[k] }
	srv := startServeGitHub(t, remote, api, fmt.Sprintf(`model:
  base_url: %s/v1
  api_key_env: RELAY_TEST_MODEL_KEY
  planner_model: planner-model
  retriever_model: retriever-model
  gap_model: gap-model
  prices:
    planner-model: "1/2"
    retriever-model: "1/2"
    gap-model: "3/6"
  retries: 3
`, srvModel.URL()), getenv)
	report := srv.scopeOpened(t, api, "m-1", "the model's report")
	for _, want := range []string{"# Scoping:", "| notify.Send | notify/sms.go:4 | retries |", "**Size:** S — one function"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q (the gap detector's report):\n%s", want, report)
		}
	}
	if strings.Contains(report, "No model was used") {
		t.Errorf("a model report says no model was used:\n%s", report)
	}
	if fails.Load() != 1 || len(srvModel.Requests()) < 4 {
		t.Errorf("model saw %d requests, %d answered 500: want the 500 retried and the pipeline run", len(srvModel.Requests()), fails.Load())
	}
	m := metricValues(t, srv.addr)
	for _, stage := range []string{"planner", "retriever", "gap"} {
		if v := m[`relay_llm_tokens_total{stage="`+stage+`"}`]; v <= 0 {
			t.Errorf("relay_llm_tokens_total{stage=%q} = %v, want > 0 (metrics: %v)", stage, v, m)
		}
	}
	if v := m["relay_llm_cost_total"]; v <= 0 {
		t.Errorf("relay_llm_cost_total = %v, want > 0", v)
	}
	srv.stop(t)
	if strings.Contains(srv.stderr.String(), "sk-model-s3cret") {
		t.Error("the model's API key appears in the log")
	}

	// The CLI, on a checkout of the same commit, posts the same body.
	code, _, errOut := relayAgent(t, func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": fm.srv.URL() + "/v1", "OPENAI_API_KEY": "test",
			"GITHUB_TOKEN": serveEnv["RELAY_TEST_GH_TOKEN"], "GITHUB_API_URL": api.baseURL()}[k]
	}, "", append([]string{"scope", "--repo", remote, "--issue", "github:acme/sample#7", "--post"}, modelFlags...)...)
	if code != 0 {
		t.Fatalf("relay scope --post exit %d:\n%s", code, errOut)
	}
	cli, n := api.lastVersion("acme/sample#7")
	if n != 1 {
		t.Errorf("%d comments after relay scope --post, want the bot's one edited", n)
	}
	if cli != withoutHead(report) {
		t.Errorf("relay scope --post posted a different body than the bot:\n--- bot\n%s\n--- scope --post\n%s", report, cli)
	}
}

// TestServeScopePostOffline: without a model, `relay scope --issue …
// --post` on a checkout of the commit the bot scoped posts the body the
// bot posted.
func TestServeScopePostOffline(t *testing.T) {
	remote := serveGitRepo(t)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again.")
	srv := startServeGitHub(t, remote, api, "", serveGetenv)
	report := srv.scopeOpened(t, api, "o-1", "the offline report")
	srv.stop(t)
	// A clone, so the CLI's index does not land in the remote's tree.
	clone := filepath.Join(t.TempDir(), "clone")
	gitRun(t, "", "clone", "-q", remote, clone)
	code, _, errOut := relayAgent(t, func(k string) string {
		return map[string]string{"GITHUB_TOKEN": serveEnv["RELAY_TEST_GH_TOKEN"], "GITHUB_API_URL": api.baseURL()}[k]
	}, "", "scope", "--repo", clone, "--issue", "github:acme/sample#7", "--post")
	if code != 0 {
		t.Fatalf("relay scope --post exit %d:\n%s", code, errOut)
	}
	cli, n := api.lastVersion("acme/sample#7")
	if n != 1 {
		t.Errorf("%d comments after relay scope --post, want the bot's one edited", n)
	}
	if cli != withoutHead(report) {
		t.Errorf("relay scope --post posted a different body than the bot:\n--- bot\n%s\n--- scope --post\n%s", report, cli)
	}
}

func gitRun(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// gitHTTPRemote serves the bare repositories under root over smart HTTP
// (git http-backend through net/http/cgi), answering 401 unless the
// request carries basic auth x-access-token:<want()>. seen counts the
// authorized requests.
func gitHTTPRemote(t *testing.T, root string, want func() string, seen *atomic.Int32) *httptest.Server {
	t.Helper()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	backend := &cgi.Handler{Path: gitPath, Args: []string{"http-backend"}, InheritEnv: []string{"PATH"},
		Env: []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if tok := want(); !ok || user != "x-access-token" || tok == "" || pass != tok {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		seen.Add(1)
		backend.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestServeGitHubAppGit: with GitHub App credentials and no token_env on
// the repository, the mirror fetches the remote with an installation token
// the tracker obtained from (the fake) GitHub; the token never reaches a
// log line.
func TestServeGitHubAppGit(t *testing.T) {
	sample := serveGitRepo(t)
	root := t.TempDir()
	gitRun(t, "", "clone", "-q", "--bare", sample, filepath.Join(root, "acme", "sample.git"))
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	api := newGHAPI(t, "")
	api.appKey, api.appID = &key.PublicKey, 4242
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again.")
	var seen atomic.Int32
	remote := gitHTTPRemote(t, root, func() string { tok, _ := api.installationToken(); return tok }, &seen)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "relay.yaml")
	err = os.WriteFile(cfg, fmt.Appendf(nil, `state_dir: %s
workers: 2
shutdown_delay: 10ms
triggers:
  opened: true
github:
  webhook_secret_env: RELAY_TEST_GH_SECRET
  app_id: 4242
  installation_id: 77
  private_key_env: RELAY_TEST_GH_KEY
  base_url: %s
  bot_login: relay-bot
repositories:
  - github: acme/sample
    remote: %s/acme/sample.git
    branch: main
`, filepath.Join(dir, "state"), api.baseURL(), remote.URL), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"RELAY_TEST_GH_SECRET": serveEnv["RELAY_TEST_GH_SECRET"], "RELAY_TEST_GH_KEY": string(pemKey)}
	srv := startServe(t, cfg, func(k string) string { return env[k] })
	h, body := openedDelivery("app-1", "acme/sample", 7, []byte(serveEnv["RELAY_TEST_GH_SECRET"]))
	srv.post(t, "/webhooks/github", h, body)
	var report string
	waitUntil(t, 2*time.Minute, "the report", srv, func() bool {
		report, _ = api.lastVersion("acme/sample#7")
		return strings.Contains(report, "Scoped by relay") || strings.Contains(report, "could not scope")
	})
	if !strings.Contains(report, "notify/") {
		t.Errorf("report:\n%s", report)
	}
	tok, issued := api.installationToken()
	if issued == 0 || seen.Load() == 0 {
		t.Errorf("%d installation tokens issued, %d authorized git requests: want git to fetch with an installation token", issued, seen.Load())
	}
	srv.stop(t)
	if strings.Contains(srv.stderr.String(), tok) {
		t.Error("the installation token appears in the log")
	}
	// --check-config reaches the remote with the app's token too.
	var out, errb bytes.Buffer
	code := run(t.Context(), []string{"serve", "--config", cfg, "--check-config"}, strings.NewReader(""), &out, &errb, func(k string) string { return env[k] })
	if all := out.String() + errb.String(); code != 0 || !strings.Contains(all, "main at ") || strings.Contains(all, "ghs_") {
		t.Errorf("--check-config exit %d:\n%s", code, all)
	}
}

// withoutHead is a report of the bot without its first line
// (serve.ReportHead: the index's freshness, which relay scope --post does
// not know); the rest is what relay scope --post posts.
func withoutHead(report string) string {
	head, rest, ok := strings.Cut(report, "\n\n")
	if !ok || !strings.HasPrefix(head, "<sub>Computed at ") {
		return report
	}
	return rest
}
