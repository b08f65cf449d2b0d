package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/tracker/github"
)

// TestServeAppInstallations: a GitHub App without installation_id serves
// the repositories of all its installations, none of them configured:
// listed at start, added and removed by installation_repositories and
// installation deliveries (GitHub's published payloads, signed), filtered
// by github.installations, each issue's report posted with its own
// installation's token (the real client against a fake of GitHub's API,
// the repositories real git remotes). A repositories: entry overrides the
// installation's remote. The same comment delivered by the repository's
// webhook and the App's, under two delivery ids, starts one job.
func TestServeAppInstallations(t *testing.T) {
	needGit(t)
	repos := newTestRepos(t)
	fake := newFakeApp(t)
	fake.install(1, "acme", fakeAppRepo{FullName: "acme/svc-a", Remote: repos.a})
	fake.install(2, "umbrella", fakeAppRepo{FullName: "umbrella/api", Remote: repos.b, Topics: []string{"go"}})

	cfg := testConfig(t, repos)
	cfg.Jira = nil
	cfg.GitHub = &GitHubConfig{WebhookSecretEnv: "S", AppID: 7, PrivateKeyEnv: "K", BotLogin: "relay[bot]",
		Installations: &AppInstallations{Deny: []RepoRule{{Name: "*-archive"}}}}
	// The override: acme/svc-a is read from another remote than GitHub's.
	cfg.Repositories = []Repository{{GitHub: "acme/svc-a", Remote: repos.b, Branch: "main", TokenUser: "x-access-token"}}
	secret := []byte("app secret")
	hook, err := github.NewWebhook(secret, cfg.Rules(cfg.GitHub.BotLogin))
	if err != nil {
		t.Fatal(err)
	}
	svc := startService(t, cfg, serviceDeps{
		trackers: map[string]tracker.Tracker{tracker.GitHub: fake.client(t, fake.appKey(t))},
		parsers:  map[string]tracker.WebhookParser{tracker.GitHub: hook},
		scoper:   &fakeScoper{running: map[string]int{}},
	})
	deliver := func(event, id string, payload map[string]any) (int, string) {
		t.Helper()
		resp, err := http.DefaultClient.Do(ghAppDelivery(t, svc.url, event, id, payload, secret))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out struct{ Result, Message string }
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out.Result + ": " + out.Message
	}
	n := 0
	opened := func(repo string, number int, inst int64) string {
		t.Helper()
		n++
		_, res := deliver("issues", "open-"+strings.Repeat("x", n), ghIssuePayload(t, "issues", "opened", repo, number, inst))
		return res
	}
	reported := func(key string, inst int64) {
		t.Helper()
		waitFor(t, time.Minute, "the report on "+key, func() bool { return strings.Contains(fake.lastBody(key), "Report for") })
		if by := fake.reportsBy(key); len(by) != 1 || by[inst] == 0 {
			t.Fatalf("%s: posts by installation %v, want installation %d only", key, by, inst)
		}
	}
	installation := func(event, action string, inst int64, field string, names ...string) {
		t.Helper()
		p := octokit(t, event, action)
		obj := p["installation"].(map[string]any)
		obj["id"] = inst
		var rs []any
		for _, name := range names {
			rs = append(rs, map[string]any{"id": 1, "name": name[strings.Index(name, "/")+1:], "full_name": name, "private": false})
		}
		if field != "" {
			p[field] = rs
		}
		if code, res := deliver(event, event+action+names0(names), p); code != http.StatusOK || !strings.HasPrefix(res, ResultInstallation) {
			t.Fatalf("%s.%s: %d %s", event, action, code, res)
		}
	}

	if res := opened("umbrella/api", 1, 2); !strings.HasPrefix(res, ResultAccepted) {
		t.Fatalf("umbrella/api#1, listed at start: %s", res)
	}
	reported("umbrella/api#1", 2)
	if res := opened("acme/svc-new", 1, 1); !strings.HasPrefix(res, ResultIgnored) {
		t.Fatalf("acme/svc-new#1 before the App can see it: %s", res)
	}

	fake.install(1, "acme", fakeAppRepo{FullName: "acme/svc-new", Remote: repos.a}, fakeAppRepo{FullName: "acme/old-archive", Remote: repos.a})
	installation("installation_repositories", "added", 1, "repositories_added", "acme/svc-new", "acme/old-archive")
	if res := opened("acme/svc-new", 1, 1); !strings.HasPrefix(res, ResultAccepted) {
		t.Fatalf("acme/svc-new#1 once added: %s", res)
	}
	reported("acme/svc-new#1", 1)
	if res := opened("acme/old-archive", 1, 1); !strings.HasPrefix(res, ResultIgnored) {
		t.Fatalf("acme/old-archive#1, denied by github.installations: %s", res)
	}
	// Added while another process took the delivery: found by asking.
	fake.install(1, "acme", fakeAppRepo{FullName: "acme/svc-quiet", Remote: repos.a})
	if res := opened("acme/svc-quiet", 1, 1); !strings.HasPrefix(res, ResultAccepted) {
		t.Fatalf("acme/svc-quiet#1, added without a delivery here: %s", res)
	}
	reported("acme/svc-quiet#1", 1)

	fake.remove(1, "acme/svc-new")
	installation("installation_repositories", "removed", 1, "repositories_removed", "acme/svc-new")
	if res := opened("acme/svc-new", 2, 1); !strings.HasPrefix(res, ResultIgnored) {
		t.Fatalf("acme/svc-new#2 once removed: %s", res)
	}
	fake.uninstall(2)
	installation("installation", "deleted", 2, "")
	if res := opened("umbrella/api", 2, 2); !strings.HasPrefix(res, ResultIgnored) {
		t.Fatalf("umbrella/api#2 once the App is uninstalled there: %s", res)
	}

	// One comment, two webhooks: the repository's (no installation) and
	// the App's.
	comment := ghIssuePayload(t, "issue_comment", "created", "acme/svc-a", 5, 0)
	comment["comment"].(map[string]any)["body"] = "/relay scope"
	comment["comment"].(map[string]any)["author_association"] = "OWNER"
	if _, res := deliver("issue_comment", "repo-hook-1", comment); !strings.HasPrefix(res, ResultAccepted) {
		t.Fatalf("the repository webhook's delivery: %s", res)
	}
	comment["installation"] = map[string]any{"id": 1}
	if _, res := deliver("issue_comment", "app-hook-1", comment); !strings.HasPrefix(res, ResultDuplicate) {
		t.Fatalf("the App webhook's delivery of the same comment: %s, want %s", res, ResultDuplicate)
	}
	reported("acme/svc-a#5", 1)
	fake.mu.Lock()
	for inst, n := range fake.minted {
		if n != 1 {
			t.Errorf("installation %d: %d tokens minted, want 1 (cached until shortly before expiry)", inst, n)
		}
	}
	fake.mu.Unlock()
	if body := fake.lastBody("acme/svc-a#5"); !strings.Contains(body, repos.headB) {
		t.Errorf("acme/svc-a was not read from its repositories: remote (commit %s):\n%s", repos.headB, body)
	}
}

func names0(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// ghIssuePayload is GitHub's published example of event.action moved to
// repo's issue number, from installation inst (0: a repository webhook).
func ghIssuePayload(t testing.TB, event, action, repo string, number int, inst int64) map[string]any {
	t.Helper()
	p := octokit(t, event, action)
	owner, name, _ := strings.Cut(repo, "/")
	r := p["repository"].(map[string]any)
	r["full_name"], r["name"] = repo, name
	r["owner"].(map[string]any)["login"] = owner
	p["issue"].(map[string]any)["number"] = number
	delete(p, "installation")
	if inst != 0 {
		p["installation"] = map[string]any{"id": inst}
	}
	return p
}

// TestServeCheckConfigApp: --check-config proves the App's key by listing
// its installations, and lists what each serves and what
// github.installations leaves out; a key GitHub refuses, a file that is
// not a key and a bad glob are problems.
func TestServeCheckConfigApp(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(c *Config)
		key   func(good []byte) string
		want  []string // problems; none: the check passes
		lines []string
	}{
		{"ok", nil, nil, nil, []string{
			"installation 1 (acme): 1 served: acme/svc-a; 1 left out (archived or github.installations): acme/old-archive",
			"installation 2 (umbrella): 2 served: umbrella/api, umbrella/web",
		}},
		{"another key", nil, func([]byte) string { return string(newFakeApp(t).appKey(t)) }, []string{"github app (app_id 7, the key in K)"}, nil},
		{"not a key", nil, func([]byte) string { return "not a key" }, []string{"GitHub App private key", "want the PEM file GitHub generated"}, nil},
		{"bad glob", func(c *Config) { c.GitHub.Installations.Allow = []RepoRule{{Name: "svc-["}} }, nil, []string{`github.installations.allow[0].name "svc-[" is not a glob`}, nil},
		{"installation_id", func(c *Config) { c.GitHub.InstallationID = 1 }, nil, []string{"github.installations filters an App's installations: it needs app_id without installation_id"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeApp(t)
			key := fake.appKey(t)
			fake.install(1, "acme", fakeAppRepo{FullName: "acme/svc-a"}, fakeAppRepo{FullName: "acme/old-archive"})
			fake.install(2, "umbrella", fakeAppRepo{FullName: "umbrella/web"}, fakeAppRepo{FullName: "umbrella/api"})
			cfg := &Config{StateDir: t.TempDir(), path: "relay.yaml", GitHub: &GitHubConfig{
				WebhookSecretEnv: "S", AppID: 7, PrivateKeyEnv: "K", BotLogin: "relay[bot]", BaseURL: fake.srv.URL + "/api/v3/",
				Installations: &AppInstallations{Deny: []RepoRule{{Name: "*-archive"}}},
			}}
			cfg.SetDefaults()
			if tc.edit != nil {
				tc.edit(cfg)
			}
			pem := string(key)
			if tc.key != nil {
				pem = tc.key(key)
			}
			env := func(k string) string {
				return map[string]string{"S": "secret", "K": pem}[k]
			}
			got := CheckConfig(t.Context(), cfg, CheckOptions{Getenv: env})
			joined := strings.Join(got.Problems, "\n")
			if len(tc.want) == 0 && len(got.Problems) > 0 {
				t.Fatalf("problems:\n%s", joined)
			}
			for _, w := range tc.want {
				if !strings.Contains(joined, w) {
					t.Errorf("problems lack %q:\n%s", w, joined)
				}
			}
			if strings.Contains(joined, "PRIVATE KEY") {
				t.Errorf("the key appears in the problems:\n%s", joined)
			}
			if diff := cmp.Diff(tc.lines, got.Installations); diff != "" {
				t.Errorf("installations (-want +got):\n%s", diff)
			}
		})
	}
}
