package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	openai "github.com/sashabaranov/go-openai"
	"golang.org/x/tools/txtar"

	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/internal/publish"
)

// hostile is what an issue-steered model writes in every text it returns:
// raw HTML, an image, a javascript: link, mentions, cross-references to
// another repository, and a value of the checkout's .env.
const hostile = `<img src=https://attacker.example/p.gif> ![px](https://attacker.example/p.gif) [click](javascript:alert(1)) ` +
	`@someone @org/team evil/victim#12 GH-4 #5 https://github.com/evil/victim/issues/3 DB password hunter2-canary-Prod-7731`

// hostileModel plays every stage and puts hostile in every field.
func hostileModel(req openai.ChatCompletionRequest, _ int) agenttest.Reply {
	switch req.Model {
	case "planner-model":
		if len(agenttest.ToolMessages(req)) > 0 {
			return agenttest.OK(agenttest.Text("Notes: " + hostile))
		}
		return agenttest.OK(agenttest.Calls(agenttest.Call("p1", "retrieve", agenttest.Args(map[string]string{"query": "SMS " + hostile}))))
	case "retriever-model":
		if agenttest.Turns(req) == 0 {
			return agenttest.OK(agenttest.Calls(agenttest.Call("r1", "read", `{"file":"notify/sms.go"}`)))
		}
		return agenttest.OK(agenttest.Text("Found at notify/sms.go:3. " + hostile))
	case "gap-model":
		return agenttest.OK(agenttest.Text(agenttest.Args(map[string]any{
			"summary": hostile, "established": []string{hostile}, "unknowns": []string{hostile}, "edge_cases": []string{hostile},
			"risks": []string{hostile}, "open_questions": []string{hostile}, "size": "S", "size_rationale": hostile,
			"affected_components": []map[string]string{{"name": "notify.Send " + hostile, "path": "notify/sms.go:3", "reason": hostile}},
		})))
	}
	return agenttest.Error(404, "unknown model "+req.Model)
}

// checkPublishedFile fails t for any string in the file (every string of a
// JSON document) that could not be posted on an issue of another
// repository, or that holds the .env value.
func checkPublishedFile(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{string(b)}
	if strings.HasSuffix(path, ".json") {
		var doc any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		texts = jsonStrings(doc, nil)
	}
	for _, s := range texts {
		if p := publish.Check(s); len(p) > 0 {
			t.Errorf("%s holds %v in:\n%s", filepath.Base(path), p, s)
		}
		if strings.Contains(s, "hunter2-canary-Prod-7731") {
			t.Errorf("%s holds the .env value in:\n%s", filepath.Base(path), s)
		}
	}
}

// jsonStrings appends every string of a decoded JSON document to out.
func jsonStrings(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		out = append(out, v)
	case []any:
		for _, e := range v {
			out = jsonStrings(e, out)
		}
	case map[string]any:
		for _, e := range v {
			out = jsonStrings(e, out)
		}
	}
	return out
}

// TestScopeBatchFilesPublished: relay scope --format json and relay batch
// write, in every text of the report (the markdown, the structured
// report's fields, the planner's notes, the retrievers' queries and reports,
// the issue), nothing that could not be posted: a script posting any field
// posts it safely.
func TestScopeBatchFilesPublished(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	srv := agenttest.NewServer(hostileModel)
	t.Cleanup(srv.Close)
	a, err := txtar.ParseFile(canaryTxtar)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	root := writeRepo(t, files)
	env := func(k string) string {
		return map[string]string{"OPENAI_BASE_URL": srv.URL() + "/v1", "OPENAI_API_KEY": "test"}[k]
	}
	dir := t.TempDir()
	issue := filepath.Join(dir, "issue.md")
	if err := os.WriteFile(issue, []byte("# SMS twice @org/team\n\n"+hostile), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "scope.json")
	args := append([]string{"scope", "--repo", root, "--file", issue, "--format", "json", "--out", out}, modelFlags...)
	if code, _, stderr := relayAgent(t, env, "", args...); code != 0 {
		t.Fatalf("scope: exit %d\n%s", code, stderr)
	}
	checkPublishedFile(t, out)

	tickets := filepath.Join(dir, "tickets.jsonl")
	if err := os.WriteFile(tickets, []byte(fmt.Sprintf(`{"id":"t1","title":"SMS twice @org/team","body":%q}`+"\n", hostile)), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := filepath.Join(dir, "reports")
	args = append([]string{"batch", "--repo", root, "--in", tickets, "--out", reports}, modelFlags...)
	if code, stdout, stderr := relayAgent(t, env, "", args...); code != 0 {
		t.Fatalf("batch: exit %d\n%s\n%s", code, stdout, stderr)
	}
	checkPublishedFile(t, filepath.Join(reports, "t1.md"))
	checkPublishedFile(t, filepath.Join(reports, "t1.json"))

	// Without a model: the offline JSON's issue (input, question) and its
	// report (markdown) alike.
	noModel := func(string) string { return "" }
	if code, _, stderr := relayAgent(t, noModel, "", "index", "--repo", root); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, stderr)
	}
	offline := filepath.Join(dir, "offline.json")
	if code, _, stderr := relayAgent(t, noModel, "", "scope", "--repo", root, "--file", issue, "--format", "json", "--out", offline); code != 0 {
		t.Fatalf("offline scope: exit %d\n%s", code, stderr)
	}
	checkPublishedFile(t, offline)
	var doc struct{ Markdown, Input string }
	if b, err := os.ReadFile(offline); err != nil || json.Unmarshal(b, &doc) != nil || !strings.Contains(doc.Markdown, "notify/sms.go") || !strings.Contains(doc.Input, "SMS twice") {
		t.Errorf("the offline JSON lacks its published report or issue: %+v, %v", doc, err)
	}
}
