package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent/agenttest"
)

// TestServeSecretFilesConfig: the secret_files block of relay.yaml reaches
// the bot's search index and its report check, not only its tools. A file
// the operator declares secret-bearing (here config/sms-*.yml, which the default
// list does not name) holds the very words of the issue; the offline
// report must neither rank it nor quote it.
func TestServeSecretFilesConfig(t *testing.T) {
	needRgFd(t)
	dir := sampleRepo(t)
	const canary = "SMS duplicate resend provider slow notify twice outbox-canary-7f3a"
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "sms-provider.yml"), []byte("sms:\n  note: "+canary+"\n  resend: twice\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := commitRepo(t, dir)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "When the SMS provider is slow, notify sends the message again: duplicate resend.")
	srv := startServeGitHub(t, remote, api, "secret_files:\n  extra: ['config/sms-*.yml']\n", serveGetenv)
	report := srv.scopeOpened(t, api, "secret-files-1", "the report")
	srv.stop(t)
	for _, leak := range []string{"sms-provider.yml", "outbox-canary-7f3a"} {
		if strings.Contains(report, leak) {
			t.Errorf("the report names or quotes the operator's secret-bearing file (%q):\n%s", leak, report)
		}
	}
}

// TestServeSecretFilesModelTools: with a model, the agents' tools of a bot
// job follow relay.yaml's secret_files too. The bot's runtime was built on
// stand-in globals that dropped the policy, so grep used the default list
// and showed the model a line of config/sms-provider.yml, which the
// operator had declared secret-bearing; now the match is left out with a
// note.
func TestServeSecretFilesModelTools(t *testing.T) {
	needRgFd(t)
	dir := sampleRepo(t)
	if err := os.MkdirAll(filepath.Join(dir, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config", "sms-provider.yml"), []byte("sms:\n  note: outbox-canary-7f3a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	remote := commitRepo(t, dir)
	var mu sync.Mutex
	var grepResult string
	model := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		switch req.Model {
		case "planner-model":
			if len(agenttest.ToolMessages(req)) > 0 {
				return agenttest.OK(agenttest.Text("enough"))
			}
			return agenttest.OK(agenttest.Calls(agenttest.Call("p1", "retrieve", `{"query":"where is the outbox canary"}`)))
		case "retriever-model":
			if agenttest.Turns(req) == 0 {
				return agenttest.OK(agenttest.Calls(agenttest.Call("r1", "grep", `{"pattern":"outbox-canary"}`)))
			}
			if tm := agenttest.ToolMessages(req); len(tm) > 0 {
				mu.Lock()
				grepResult = tm[0].Content
				mu.Unlock()
			}
			return agenttest.OK(agenttest.Text("Nothing found."))
		}
		if strings.Contains(agenttest.System(req), "scoping report") {
			return agenttest.OK(agenttest.Text(cmdValidScope))
		}
		return agenttest.OK(agenttest.Text("done"))
	})
	t.Cleanup(model.Close)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Customers receive the same SMS twice", "Where is the outbox canary configured?")
	srv := startServeGitHub(t, remote, api, fmt.Sprintf(`secret_files:
  extra: ['config/sms-*.yml']
model:
  base_url: %s/v1
  planner_model: planner-model
  retriever_model: retriever-model
  gap_model: gap-model
`, model.URL()), serveGetenv)
	srv.scopeOpened(t, api, "secret-files-model-1", "the model's report")
	srv.stop(t)
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(grepResult, "left out: config/sms-provider.yml") || strings.Contains(grepResult, "sms-provider.yml:2:") {
		t.Errorf("grep's result to the model does not leave the operator's secret-bearing file out:\n%s", grepResult)
	}
}
