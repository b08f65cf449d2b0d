package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/agent/agenttest"
)

// TestOffline runs ask, scope and batch with no model endpoint: they use the
// retrieval pipeline, say that no model was used, and index the repository
// first when it has no index yet.
func TestOffline(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	issue, err := filepath.Abs("../../examples/issues/sms-duplicates.md")
	if err != nil {
		t.Fatal(err)
	}

	// No index yet: scope indexes first, then reports.
	code, stdout, stderr := relay(t, "", "scope", "--repo", repo, "--file", issue)
	if code != 0 {
		t.Fatalf("offline scope = %d: %s", code, stderr)
	}
	for _, want := range []string{"# Context report (offline)", "No language model was used", "notify/sms.go", "configure a model"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("offline scope report lacks %q:\n%.3000s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "indexing it first") {
		t.Errorf("offline scope did not say it indexed first:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(repo, ".relay")); err != nil {
		t.Errorf("no index after offline scope: %v", err)
	}

	// JSON form.
	code, stdout, stderr = relay(t, "", "scope", "--repo", repo, "--format", "json", "SMS sent twice when the gateway is slow")
	if code != 0 {
		t.Fatalf("offline scope --format json = %d: %s", code, stderr)
	}
	var js struct {
		Kind    string `json:"kind"`
		Offline bool   `json:"offline"`
		Files   []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(stdout), &js); err != nil {
		t.Fatalf("offline JSON does not decode: %v\n%s", err, stdout)
	}
	if js.Kind != "scope" || !js.Offline || len(js.Files) == 0 {
		t.Errorf("offline JSON = %+v", js)
	}

	// ask, one question and the REPL (two questions from stdin).
	code, stdout, stderr = relay(t, "", "ask", "--repo", repo, "where are retries decided?")
	if code != 0 || !strings.Contains(stdout, "Context report (offline)") || !strings.Contains(stdout, "internal/retry/retry.go") {
		t.Errorf("offline ask = %d:\n%.2000s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = relay(t, "where are retries decided?\nhow is an email rendered?\n", "ask", "--repo", repo)
	if code != 0 || strings.Count(stdout, "Context report (offline)") != 2 {
		t.Errorf("offline REPL = %d, %d reports:\n%.2000s\n%s", code, strings.Count(stdout, "Context report (offline)"), stdout, stderr)
	}

	// batch writes one report pair per ticket.
	tickets, _ := filepath.Abs("../../examples/tickets.jsonl")
	out := t.TempDir()
	code, stdout, stderr = relay(t, "", "batch", "--repo", repo, "--in", tickets, "--out", out)
	if code != 0 {
		t.Fatalf("offline batch = %d: %s\n%s", code, stdout, stderr)
	}
	for _, id := range []string{"sms-duplicates", "stale-phone", "sms-garbled"} {
		md, err := os.ReadFile(filepath.Join(out, id+".md"))
		if err != nil || !strings.Contains(string(md), "Context report (offline)") {
			t.Errorf("batch report %s: %v", id, err)
		}
		if _, err := os.Stat(filepath.Join(out, id+".json")); err != nil {
			t.Errorf("batch JSON %s: %v", id, err)
		}
	}
}

// TestOfflineNotGo: a repository with no Go code has no code graph, but the
// offline pipeline still ranks its files by search.
func TestOfflineNotGo(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	os.WriteFile(filepath.Join(repo, "schema.sql"), []byte("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total_cents INTEGER);\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "notes.md"), []byte("# Billing\n\nInvoices are rounded to whole cents.\n"), 0o644)
	code, stdout, stderr := relay(t, "", "ask", "--repo", repo, "how are invoice totals stored?")
	if code != 0 || !strings.Contains(stdout, "schema.sql") {
		t.Errorf("offline ask on a non-Go repository = %d:\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "no source file of a language relay indexes here") {
		t.Errorf("stderr does not say there is no code graph:\n%s", stderr)
	}
}

// TestAgentToolsAfterIndex: once relay index has run, the retrievers are
// offered the graph and the hybrid search tool besides grep, glob and read.
func TestAgentToolsAfterIndex(t *testing.T) {
	needRgFd(t)
	t.Parallel()
	m := startFakeModel(t)
	root := agentRepo(t)
	if code, _, stderr := relay(t, "", "index", "--repo", root); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	if code, _, stderr := relayAgent(t, m.env(), "", append([]string{"--repo", root, "scope", "SMS retries"}, modelFlags...)...); code != 0 {
		t.Fatalf("scope: %d %s", code, stderr)
	}
	var retrieverTools []string
	for _, req := range m.srv.Requests() {
		if names := agenttest.ToolNames(req); slices.Contains(names, "grep") {
			retrieverTools = names
			break
		}
	}
	if want := []string{"glob", "graph", "grep", "read", "search"}; !slices.Equal(retrieverTools, want) {
		t.Errorf("retriever tools = %v, want %v", retrieverTools, want)
	}
}

// TestUnreachableEndpoint: a model endpoint nobody listens on gives an error
// naming the endpoint and what to check, for scope and ask alike.
func TestUnreachableEndpoint(t *testing.T) {
	t.Parallel()
	root := agentRepo(t)
	env := func(k string) string {
		if k == "OPENAI_BASE_URL" {
			return "http://127.0.0.1:1/v1"
		}
		return ""
	}
	for _, cmd := range []string{"scope", "ask"} {
		code, _, stderr := relayAgent(t, env, "", "--repo", root, cmd, "--model", "m", "--retries", "1", "an issue")
		if code != 1 || !strings.Contains(stderr, "cannot reach the model endpoint http://127.0.0.1:1/v1") {
			t.Errorf("%s with an unreachable endpoint = %d:\n%s", cmd, code, stderr)
		}
	}
}
