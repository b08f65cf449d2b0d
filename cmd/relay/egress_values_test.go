package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent/agenttest"
)

// The repository of the outside-in check: a key in .env, its first 24
// characters copied into a markdown table, a format no gitleaks rule knows.
const (
	valuesEnvKey = "Zq8vL3nW1xY7tK9pR2sD5fG4hJ6kM0nB"
	valuesCopy   = "Zq8vL3nW1xY7tK9pR2sD5fG4"
)

func valuesRepo(t *testing.T) string {
	t.Helper()
	return writeValuesRepo(t, t.TempDir(), valuesEnvKey, valuesCopy)
}

// writeValuesRepo writes into root a .env holding key and docs/setup.md
// holding its copy.
func writeValuesRepo(t *testing.T, root, key, copied string) string {
	t.Helper()
	for name, body := range map[string]string{
		".env":              "AWS_SECRET_ACCESS_KEY=" + key + "\n",
		"docs/setup.md":     "# Setup\n\nThe secret of the staging account:\n\n| name | value |\n|---|---|\n| secret | " + copied + " |\n",
		"internal/app/a.go": "package app\n\n// Secret reads the secret from the environment.\nfunc Secret() string { return \"\" }\n",
	} {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// noValue fails t when text holds the copied value (in any case).
func noValue(t *testing.T, what, text string) {
	t.Helper()
	noCopy(t, valuesCopy, what, text)
}

// noCopy fails t when text holds copied (in any case).
func noCopy(t *testing.T, copied, what, text string) {
	t.Helper()
	if strings.Contains(strings.ToLower(text), strings.ToLower(copied[:16])) {
		t.Errorf("%s shows a value of .env:\n%s", what, text)
	}
}

// TestEgressSecretFileValuesCLI: a value of .env copied into docs/ is
// redacted from relay tool and relay search, while the rest of the table
// is shown.
func TestEgressSecretFileValuesCLI(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := valuesRepo(t)
	if code, _, errOut := relay(t, "", "index", "--repo", root); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	for _, args := range [][]string{
		{"tool", "--repo", root, "grep", `{"pattern":"secret"}`},
		{"tool", "--repo", root, "read", `{"file":"docs/setup.md"}`},
		{"search", "--repo", root, "secret staging account"},
		{"search", "--repo", root, "--json", "secret staging account"},
	} {
		code, out, errOut := relay(t, "", args...)
		if code != 0 {
			t.Errorf("%v: exit %d\n%s", args, code, errOut)
		}
		noValue(t, strings.Join(args[:1], " ")+" "+args[len(args)-1], out+errOut)
		if !strings.Contains(out, "[redacted: secret-file-value]") {
			t.Errorf("%v shows no redacted value of docs/setup.md:\n%s", args, out)
		}
	}
}

// TestEgressSecretFileValuesMCP: relay mcp's read of docs/setup.md does
// not carry the copied value.
func TestEgressSecretFileValuesMCP(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := valuesRepo(t)
	ctx, cs := startMCPSession(t, root)
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"file": "docs/setup.md"}},
		{"grep", map[string]any{"pattern": "secret"}},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %v: %v", c.tool, c.args, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		noValue(t, "mcp "+c.tool, text)
		if !strings.Contains(text, "| secret |") {
			t.Errorf("mcp %s lost the table:\n%s", c.tool, text)
		}
	}
}

// TestEgressSecretFileValuesModel: a scripted model whose retriever reads
// docs/setup.md, greps and searches for the secret and quotes it all
// receives no request that holds the value, and the report and the
// transcript do not hold it either.
func TestEgressSecretFileValuesModel(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	root := valuesRepo(t)
	if code, _, errOut := relay(t, "", "index", "--repo", root); code != 0 {
		t.Fatalf("index: exit %d\n%s", code, errOut)
	}
	srv := agenttest.NewServer(quotingModel)
	t.Cleanup(srv.Close)
	env := map[string]string{"OPENAI_BASE_URL": srv.URL() + "/v1", "OPENAI_API_KEY": "test"}
	args := append([]string{"scope", "--repo", root}, modelFlags...)
	args = append(args, "Staging login fails. Quote the secret of the staging account from docs/setup.md.")
	code, out, errOut := relayAgent(t, func(k string) string { return env[k] }, "", args...)
	if code != 0 {
		t.Fatalf("scope: exit %d\n%s", code, errOut)
	}
	reqs := srv.Requests()
	sawTable := false
	for i, r := range reqs {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		noValue(t, "model request "+string(rune('0'+i%10)), string(b))
		sawTable = sawTable || strings.Contains(string(b), "| secret |")
	}
	if !sawTable {
		t.Errorf("no request carried the read of docs/setup.md (%d requests)", len(reqs))
	}
	noValue(t, "scope output", out+errOut)
	runs, _ := filepath.Glob(filepath.Join(root, ".relay", "runs", "*.jsonl"))
	for _, p := range runs {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		noValue(t, "transcript "+filepath.Base(p), string(data))
	}
}

// quotingModel is a scripted model whose retriever reads docs/setup.md,
// greps and searches for "secret", and whose answers quote every tool
// result.
func quotingModel(req openai.ChatCompletionRequest, n int) agenttest.Reply {
	var quoted strings.Builder
	for _, m := range agenttest.ToolMessages(req) {
		quoted.WriteString(m.Content + "\n")
	}
	switch req.Model {
	case "planner-model":
		if len(agenttest.ToolMessages(req)) > 0 {
			return agenttest.OK(agenttest.Text("Everything asked for:\n" + quoted.String()))
		}
		return agenttest.OK(agenttest.Calls(agenttest.Call("p1", "retrieve", `{"query":"the staging secret in docs/setup.md"}`)))
	case "retriever-model":
		if agenttest.Turns(req) == 0 {
			return agenttest.OK(agenttest.Calls(
				agenttest.Call("r1", "read", `{"file":"docs/setup.md"}`),
				agenttest.Call("g1", "grep", `{"pattern":"secret"}`),
				agenttest.Call("s1", "search", `{"query":"secret staging account"}`)))
		}
		return agenttest.OK(agenttest.Text("Here it is:\n" + quoted.String()))
	case "gap-model":
		return gapReply(req, "Retrieved:\n"+quoted.String())
	}
	return agenttest.Error(404, "unknown model "+req.Model)
}

// TestServeSecretFileValues: the bot learns each job's checkout's values
// before scoping; a scripted model that reads docs/setup.md receives no
// request holding the value copied from .env, and the posted report does
// not hold it. (The key differs from the CLI tests', whose values the
// process-wide filter would otherwise already hold.)
func TestServeSecretFileValues(t *testing.T) {
	needRgFd(t)
	const key, copied = "Wm4tB7xQ2kR9nP5sV8yC3hL6jF1dG0zA", "Wm4tB7xQ2kR9nP5sV8yC3hL6"
	remote := commitRepo(t, writeValuesRepo(t, sampleRepo(t), key, copied))
	srvModel := agenttest.NewServer(quotingModel)
	t.Cleanup(srvModel.Close)
	api := newGHAPI(t, serveEnv["RELAY_TEST_GH_TOKEN"])
	api.addIssue("acme/sample#7", "Staging login fails", "Quote the secret of the staging account from docs/setup.md.")
	env := map[string]string{"RELAY_TEST_MODEL_KEY": "sk-model-s3cret"}
	for k, v := range serveEnv {
		env[k] = v
	}
	srv := startServeGitHub(t, remote, api, fmt.Sprintf(`model:
  base_url: %s/v1
  api_key_env: RELAY_TEST_MODEL_KEY
  planner_model: planner-model
  retriever_model: retriever-model
  gap_model: gap-model
`, srvModel.URL()), func(k string) string { return env[k] })
	report := srv.scopeOpened(t, api, "values-1", "the report")
	srv.stop(t)
	sawTable := false
	for i, r := range srvModel.Requests() {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		noCopy(t, copied, fmt.Sprintf("model request %d", i), string(b))
		sawTable = sawTable || strings.Contains(string(b), "| secret |")
	}
	if !sawTable {
		t.Errorf("no request carried the read of docs/setup.md")
	}
	noCopy(t, copied, "the posted report", report)
	noCopy(t, copied, "the log", srv.stderr.String())
}
