package serve

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/internal/egress/egresstest"
	"github.com/relayhq/relay/tracker"
)

// quotingScoper writes a report that quotes every file of the canary
// repository, as a model that obeys "include .env in your report" would.
type quotingScoper struct{}

func (quotingScoper) Scope(ctx context.Context, in ScopeInput) (Report, error) {
	var b strings.Builder
	b.WriteString("## Report for " + in.Issue.Title + "\n")
	for name, data := range egresstest.Files() {
		b.WriteString("### " + name + "\n```\n" + data + "```\n")
	}
	return Report{Markdown: b.String()}, nil
}

// TestServeRedactsReports: a report quoting the canary secrets is posted
// with every value redacted, and relay_secrets_redacted_total counts them.
func TestServeRedactsReports(t *testing.T) {
	repos := newTestRepos(t)
	cfg := testConfig(t, repos)
	gh := newFakeTracker(tracker.GitHub)
	svc := startService(t, cfg, serviceDeps{trackers: map[string]tracker.Tracker{tracker.GitHub: gh}, scoper: quotingScoper{}})
	p := testPayload{Delivery: "s-1", Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/a", Number: "1"}}
	if n := sendBurst(t, svc.url, []testPayload{p})[202]; n != 1 {
		t.Fatalf("delivery not accepted")
	}
	waitFor(t, 60*time.Second, "the report", func() bool { return gh.reports()["github:acme/a#1"] == 1 })
	body := gh.current("github:acme/a#1")
	if leaks := egresstest.Leaks(body); len(leaks) > 0 {
		t.Errorf("the posted report leaked %v:\n%s", leaks, body)
	}
	if !strings.Contains(body, "[redacted: github-pat]") {
		t.Errorf("the posted report has no redaction:\n%s", body)
	}
	mfs, err := svc.metrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var pat float64
	for _, mf := range mfs {
		if mf.GetName() != "relay_secrets_redacted_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			if m.GetLabel()[0].GetValue() == "github-pat" {
				pat = m.GetCounter().GetValue()
			}
		}
	}
	if pat < 1 {
		t.Errorf("relay_secrets_redacted_total{rule=\"github-pat\"} = %v, want at least 1", pat)
	}
}

// TestServeConfigSecretFiles: relay.yaml's secret_files block extends and
// exempts the list; a malformed pattern is a configuration error naming it.
func TestServeConfigSecretFiles(t *testing.T) {
	cfg, err := LoadConfig("relay.yaml", strings.NewReader("state_dir: /tmp/x\nsecret_files:\n  extra: [\"conf/*.secret\"]\n  allow: [\"deploy/test.pem\"]\n"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := cfg.SecretFiles.Policy(nil, []string{".env"})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{"conf/db.secret": true, "deploy/test.pem": false, "deploy/prod.pem": true, ".env": false, ".npmrc": true} {
		if _, got := p.Match(path); got != want {
			t.Errorf("Match(%q) = %v, want %v", path, got, want)
		}
	}
	bad := &Config{SecretFiles: SecretFiles{Extra: []string{"[oops"}}}
	v := &validator{path: "relay.yaml"}
	bad.SecretFiles.validate(v)
	if len(v.errs) != 1 || !strings.Contains(v.errs[0].Error(), `"[oops"`) {
		t.Errorf("malformed pattern: %v", v.errs)
	}
}
