package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"
	"github.com/spf13/pflag"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/serve"
)

// agentRepo writes a small checkout; notify/sms.go has 6 lines.
func agentRepo(t testing.TB) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"go.mod":        "module example.com/sample\n\ngo 1.22\n",
		"notify/sms.go": "package notify\n\n// Send sends one SMS and retries when the provider is slow.\nfunc Send(to, body string) error {\n\treturn nil\n}\n",
	})
}

const cmdValidScope = `{"summary":"SMS are resent when the provider is slow.","established":["Send retries at notify/sms.go:4"],"unknowns":["the retry timeout"],
"edge_cases":["late provider answers"],"risks":["lost messages"],"affected_components":[{"name":"notify.Send","path":"notify/sms.go:4","reason":"retries"}],
"open_questions":["which provider?"],"size":"S","size_rationale":"one function"}`

// fakeModel is a scripted endpoint playing every stage, routed by model
// name: the planner asks one retrieval; the retriever reads notify/sms.go
// with the real read tool, then reports; the gap detector returns JSON; the
// answer writer answers. An issue or question containing "FAIL" gets a 401.
type fakeModel struct {
	srv      *agenttest.Server
	readSeen atomic.Int32 // read results that contained the file's text
	// hang makes requests whose issue contains "HANG" never answer (until
	// the client gives up), as an overloaded endpoint does.
	hang atomic.Bool
}

func startFakeModel(t testing.TB) *fakeModel {
	m := &fakeModel{}
	m.srv = agenttest.NewServer(m.handle)
	t.Cleanup(m.srv.Close)
	return m
}

func (m *fakeModel) handle(req openai.ChatCompletionRequest, n int) agenttest.Reply {
	if strings.Contains(agenttest.FirstUser(req), "FAIL") {
		return agenttest.Error(401, "invalid api key")
	}
	if m.hang.Load() && strings.Contains(agenttest.FirstUser(req), "HANG") {
		return agenttest.Reply{Delay: time.Minute}
	}
	if strings.Contains(agenttest.FirstUser(req), "INTERRUPT") {
		// What Ctrl-C does to a running question; the reply never comes.
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			return agenttest.Error(500, err.Error())
		}
		return agenttest.Reply{Delay: time.Minute}
	}
	switch req.Model {
	case "planner-model":
		if len(agenttest.ToolMessages(req)) > 0 {
			return agenttest.OK(agenttest.Text("enough"))
		}
		return agenttest.OK(agenttest.Calls(agenttest.Call("p1", "retrieve", `{"query":"where are SMS sent"}`)))
	case "retriever-model":
		if agenttest.Turns(req) == 0 {
			return agenttest.OK(agenttest.Calls(agenttest.Call("r1", "read", `{"file":"notify/sms.go"}`)))
		}
		if tm := agenttest.ToolMessages(req); len(tm) == 1 && strings.Contains(tm[0].Content, "func Send(to, body string) error") {
			m.readSeen.Add(1)
		}
		return agenttest.OK(agenttest.Text("Send is defined at notify/sms.go:4:\n```go\nfunc Send(to, body string) error {\n```"))
	case "gap-model":
		if strings.Contains(agenttest.System(req), "scoping report") {
			return agenttest.OK(agenttest.Text(cmdValidScope))
		}
		return agenttest.OK(agenttest.Text("SMS are sent by `Send` at notify/sms.go:4."))
	}
	return agenttest.Error(404, "unknown model "+req.Model)
}

// env returns a getenv pointing relay at the fake model.
func (m *fakeModel) env(extra ...string) func(string) string {
	vars := map[string]string{"OPENAI_BASE_URL": m.srv.URL() + "/v1", "OPENAI_API_KEY": "test"}
	for i := 0; i+1 < len(extra); i += 2 {
		vars[extra[i]] = extra[i+1]
	}
	return func(k string) string { return vars[k] }
}

var modelFlags = []string{"--planner-model", "planner-model", "--retriever-model", "retriever-model", "--gap-model", "gap-model"}

// relayAgent runs one in-process relay invocation with getenv.
func relayAgent(t testing.TB, getenv func(string) string, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	ctx := t.Context()
	code = run(ctx, args, strings.NewReader(stdin), &out, &errb, getenv)
	return code, out.String(), errb.String()
}

func TestScopeCommand(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	issueFile := filepath.Join(t.TempDir(), "issue.md")
	if err := os.WriteFile(issueFile, []byte("# SMS sent twice\n\nFrom a file."), 0o644); err != nil {
		t.Fatal(err)
	}
	outFile := filepath.Join(t.TempDir(), "scope.json")
	tests := []struct {
		name    string
		args    []string
		stdin   string
		wantOut []string // substrings of stdout
		check   func(t *testing.T)
	}{
		{name: "issue from args", args: []string{"SMS", "sent", "twice"},
			wantOut: []string{"# Scoping: SMS sent twice", "**Size:** S — one function", "| notify.Send | notify/sms.go:4 | retries |"}},
		{name: "issue from stdin", args: []string{"-"}, stdin: "# From stdin\n\nbody",
			wantOut: []string{"# Scoping: From stdin"}},
		{name: "issue from file as JSON to a file", args: []string{"--file", issueFile, "--format", "json", "--out", outFile},
			check: func(t *testing.T) {
				b, err := os.ReadFile(outFile)
				if err != nil {
					t.Fatal(err)
				}
				var s agent.Scoping
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatalf("--format json output is not a Scoping: %v", err)
				}
				if !s.Structured || s.Report.Size != "S" || !strings.Contains(s.Issue, "From a file.") || len(s.Retrievals) != 1 || s.Transcript == "" {
					t.Errorf("scoping = %+v", s)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"scope", "--repo", root}, modelFlags...)
			args = append(args, tc.args...)
			code, out, errOut := relayAgent(t, m.env(), tc.stdin, args...)
			if code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, errOut)
			}
			for _, w := range tc.wantOut {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range []string{"retriever-1 ▶ where are SMS sent", "retriever-1   read {\"file\":\"notify/sms.go\"}", "retriever-1 ✓ done", "stage", "total", "transcript " + filepath.Join(root, ".relay", "runs")} {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			if tc.check != nil {
				tc.check(t)
			}
		})
	}
	if got := m.readSeen.Load(); got != int32(len(tests)) {
		t.Errorf("the real read tool answered %d of %d retrievers with the file", got, len(tests))
	}
	runs, err := filepath.Glob(filepath.Join(root, ".relay", "runs", "*.jsonl"))
	if err != nil || len(runs) != len(tests) {
		t.Errorf("transcripts: %d files, err %v; want %d", len(runs), err, len(tests))
	}
	if _, err := os.Stat(filepath.Join(root, ".relay", "runs", ".gitignore")); err != nil {
		t.Errorf("transcripts are not git-ignored: %v", err)
	}
}

func TestScopeCommandErrors(t *testing.T) {
	t.Parallel()
	root := agentRepo(t)
	noEnv := func(string) string { return "" }
	m := startFakeModel(t)
	tests := []struct {
		name     string
		getenv   func(string) string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no issue", noEnv, []string{"scope"}, 2, `no issue given: pass its text as arguments, --file FILE, or "-" to read stdin`},
		{"args and file", noEnv, []string{"scope", "--file", "x.md", "text"}, 2, "either as arguments or with --file, not both"},
		{"bad format", noEnv, []string{"scope", "--format", "yaml", "x"}, 2, `--format "yaml": want md or json`},
		{"missing file", noEnv, []string{"scope", "--file", filepath.Join(root, "nope.md")}, 1, "read issue: open"},
		{"endpoint without model", m.env(), []string{"scope", "an issue"}, 2, "pass --model (or set RELAY_MODEL)"},
		{"bad price", m.env(), append([]string{"scope", "--price", "gpt=1", "x"}, modelFlags...), 2, "--price: price \"gpt=1\": want model=in/out"},
		{"max-cost without prices", m.env(), append([]string{"scope", "--max-cost", "1", "x"}, modelFlags...), 2, "--max-cost 1: needs prices to count the cost by; pass --price model=in/out (per million tokens) or set RELAY_PRICES"},
		{"no transcripts kept", m.env(), append([]string{"scope", "--keep-runs", "0", "x"}, modelFlags...), 2, "--keep-runs 0: must be positive, or -1 for no limit"},
		{"model error", m.env(), append([]string{"scope", "FAIL please"}, modelFlags...), 1, "planner model planner-model: error, status code: 401"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"--repo", root}, tc.args...)
			code, _, errOut := relayAgent(t, tc.getenv, "", args...)
			if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errOut, tc.wantCode, tc.wantErr)
			}
		})
	}
}

func TestScopeCommandBudget(t *testing.T) {
	t.Parallel()
	needRgFd(t)
	m := startFakeModel(t)
	root := agentRepo(t)
	args := append([]string{"scope", "--repo", root, "--max-tokens", "20", "--no-transcript"}, modelFlags...)
	code, out, errOut := relayAgent(t, m.env(), "", append(args, "issue text")...)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if !strings.Contains(out, "the run stopped early (budget: token budget 20 reached (30 tokens used))") ||
		!strings.Contains(errOut, "relay: the run stopped early (budget: token budget 20 reached (30 tokens used)") {
		t.Errorf("budget stop not reported;\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if got := len(m.srv.Requests()); got != 2 {
		t.Errorf("model saw %d requests, want 2 (planner, first retriever turn)", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".relay", "runs")); err == nil {
		t.Error("--no-transcript wrote a transcript")
	}
}

func TestLLMConfig(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		args       []string
		env        map[string]string
		wantModels agent.Models
		wantPrices map[string]agent.Price
		wantErr    string
	}{
		{name: "openai default model", env: map[string]string{"OPENAI_API_KEY": "k"},
			wantModels: agent.Models{Planner: "gpt-4o-mini", Retriever: "gpt-4o-mini", Gap: "gpt-4o-mini"}, wantPrices: map[string]agent.Price{}},
		{name: "env per stage, flag wins", args: []string{"--retriever-model", "small"},
			env:        map[string]string{"OPENAI_BASE_URL": "http://x/v1", "RELAY_MODEL": "big", "RELAY_RETRIEVER_MODEL": "env-small", "RELAY_GAP_MODEL": "gap", "RELAY_PRICES": "big=1/2, small=0.1/0.2"},
			wantModels: agent.Models{Planner: "big", Retriever: "small", Gap: "gap"},
			wantPrices: map[string]agent.Price{"big": {In: 1, Out: 2}, "small": {In: 0.1, Out: 0.2}}},
		{name: "price flags replace RELAY_PRICES", args: []string{"--model", "m", "--price", "m=3/4"},
			env:        map[string]string{"OPENAI_BASE_URL": "http://x/v1", "RELAY_PRICES": "other=1/1"},
			wantModels: agent.Models{Planner: "m", Retriever: "m", Gap: "m"}, wantPrices: map[string]agent.Price{"m": {In: 3, Out: 4}}},
		{name: "custom endpoint needs a model", env: map[string]string{"OPENAI_BASE_URL": "http://localhost:11434/v1"},
			wantErr: "no model for endpoint http://localhost:11434/v1: pass --model (or set RELAY_MODEL), e.g. --model qwen2.5-coder:14b for Ollama"},
		{name: "bad RELAY_PRICES", args: []string{"--model", "m"}, env: map[string]string{"OPENAI_API_KEY": "k", "RELAY_PRICES": "m=1"},
			wantErr: `--price: price "m=1": want model=in/out`},
		{name: "a flag given as 0 is refused, not defaulted", args: []string{"--parallel", "0", "--retries", "0"}, env: map[string]string{"OPENAI_API_KEY": "k"},
			wantErr: "--parallel 0: must be at least 1\n--retries 0: must be at least 1"},
		{name: "negative token budget", args: []string{"--max-tokens", "-1"}, env: map[string]string{"OPENAI_API_KEY": "k"},
			wantErr: "--max-tokens -1: must not be negative (0: no limit)"},
		{name: "negative timeout", args: []string{"--timeout", "-1s"}, env: map[string]string{"OPENAI_API_KEY": "k"},
			wantErr: "--timeout -1s: must be positive, or 0 for none"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg, err := cliConfig(t, tc.args, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantModels, cfg.Models); diff != "" {
				t.Errorf("models (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantPrices, cfg.Prices); diff != "" {
				t.Errorf("prices (-want +got):\n%s", diff)
			}
		})
	}
}

// cliConfig is the agent config of a command line's model flags and an
// environment.
func cliConfig(t *testing.T, args []string, env map[string]string) (agent.Config, error) {
	t.Helper()
	var f llmFlags
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f.register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f.config(&globals{getenv: func(k string) string { return env[k] }})
}

// TestLLMConfigDefaults: the CLI's flags take their defaults from
// agent.Config.SetDefaults (but for --max-tokens 0 and --keep-runs-mb,
// which the CLI writes in its own units), so a command line with no
// settings gives SetDefaults' config.
func TestLLMConfigDefaults(t *testing.T) {
	t.Parallel()
	got, err := cliConfig(t, nil, map[string]string{"OPENAI_API_KEY": "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := agent.Config{APIKey: "k"}
	want.SetDefaults()
	want.MaxTokens = agent.DefaultMaxTokens
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("CLI config with no flags (-SetDefaults +CLI):\n%s", diff)
	}
}

// TestServeAgentConfigMatchesCLI: the bot's configuration and the CLI's
// flags and environment give equal agent configs for equal settings, and
// the bot's zeros are SetDefaults' defaults; only api_key_env speaks for
// the bot's key, whatever the CLI's variables say.
func TestServeAgentConfigMatchesCLI(t *testing.T) {
	t.Parallel()
	env := map[string]string{"BOT_KEY": "bot-k", "OPENAI_API_KEY": "cli-k", "RELAY_MODEL": "ignored-by-bot", "OPENAI_BASE_URL": "http://ignored/v1"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		bot  serve.ModelConfig
		args []string
	}{
		// relay.yaml's max_tokens 0 (or none) is no limit, as --max-tokens 0.
		{"defaults", serve.ModelConfig{BaseURL: "http://m/v1", APIKeyEnv: "BOT_KEY", Model: "m"},
			[]string{"--base-url", "http://m/v1", "--model", "m", "--max-tokens", "0"}},
		{"every setting", serve.ModelConfig{
			BaseURL: "http://m/v1", APIKeyEnv: "BOT_KEY", Model: "m", PlannerModel: "p", RetrieverModel: "r", GapModel: "g",
			Prices: map[string]string{"p": "1/2", "r": "0.1/0.2"}, MaxTokens: 1000, MaxCost: 0.5, Parallel: 2, PlannerSteps: 3,
			RetrieverSteps: 7, RetrieverTimeout: time.Minute, RequestTimeout: 20 * time.Second, Timeout: time.Hour, Retries: 9, NoJSONMode: true,
		}, []string{"--base-url", "http://m/v1", "--model", "m", "--planner-model", "p", "--retriever-model", "r", "--gap-model", "g",
			"--price", "p=1/2", "--price", "r=0.1/0.2", "--max-tokens", "1000", "--max-cost", "0.5", "--parallel", "2", "--planner-steps", "3",
			"--retriever-steps", "7", "--retriever-timeout", "1m", "--request-timeout", "20s", "--timeout", "1h", "--retries", "9", "--no-json-mode"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bot, err := serve.AgentConfig(tc.bot, getenv)
			if err != nil {
				t.Fatal(err)
			}
			cli, err := cliConfig(t, tc.args, map[string]string{"OPENAI_API_KEY": "bot-k"})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(cli, bot); diff != "" {
				t.Errorf("agent config (-CLI +bot):\n%s", diff)
			}
		})
	}
}

// TestOutInMissingFolder: --out in a folder that does not exist named the
// temporary file ("open /x/.r.md.1369212727.tmp: no such file or
// directory"); it now names the path given and what to do.
func TestOutInMissingFolder(t *testing.T) {
	root := retrievalRepo(t)
	missing := filepath.Join(t.TempDir(), "nope")
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"scope", "discount", "--out", filepath.Join(missing, "r.md")}, "write " + filepath.Join(missing, "r.md") + ": the folder " + missing + " does not exist; create it, or choose another path"},
		{[]string{"graph", "export", "--format", "graphml", "--out", filepath.Join(missing, "g.graphml")}, "write " + filepath.Join(missing, "g.graphml") + ": the folder " + missing + " does not exist"},
		{[]string{"scope", "discount", "--out", filepath.Join(file, "r.md")}, "write " + filepath.Join(file, "r.md") + ": " + file + " is not a folder"},
	}
	for _, tc := range tests {
		code, _, stderr := relay(t, "", append([]string{"--repo", root}, tc.args...)...)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, ".tmp") {
			t.Errorf("relay %v: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSettingNamesExplain: an unreachable or slow endpoint is explained in
// the terms of who runs relay: the CLI names its flags and variables, the
// bot relay.yaml's keys.
func TestSettingNamesExplain(t *testing.T) {
	t.Parallel()
	cfg := agent.Config{BaseURL: "http://u:pw@model.example/v1", Model: "m"}
	cfg.SetDefaults()
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	timeout := &net.DNSError{Err: "i/o timeout", IsTimeout: true}
	reply := &agent.ReplyError{Endpoint: "http://model.example", Status: 200, HTML: true}
	tests := []struct {
		name  string
		names *advice.ConfigNames
		err   error
		want  []string
	}{
		{"cli refused", advice.ConfigNamesFor(advice.CLI), refused, []string{"cannot reach the model endpoint http://u:***@model.example/v1", "--base-url / OPENAI_BASE_URL points at it", "unset OPENAI_BASE_URL and OPENAI_API_KEY"}},
		{"bot refused", advice.ConfigNamesFor(advice.Operator), refused, []string{"cannot reach the model endpoint http://u:***@model.example/v1", "model.base_url in relay.yaml points at it", "leave out model.base_url and model.api_key_env"}},
		{"cli timeout", advice.ConfigNamesFor(advice.CLI), timeout, []string{"did not answer within --request-timeout 3m0s (4 attempt(s), --retries); raise --request-timeout"}},
		{"bot timeout", advice.ConfigNamesFor(advice.Operator), timeout, []string{"did not answer within model.request_timeout 3m0s (4 attempt(s), model.retries); raise model.request_timeout"}},
		{"bot HTML reply", advice.ConfigNamesFor(advice.Operator), reply, []string{"answered with HTML", "check model.base_url in relay.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.names.Explain(fmt.Errorf("planner model m: %w", tc.err), cfg)
			if !errors.Is(got, tc.err) {
				t.Errorf("explain lost the error: %v", got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got.Error(), w) {
					t.Errorf("explain = %q, want %q", got, w)
				}
			}
			if tc.names == advice.ConfigNamesFor(advice.Operator) && strings.Contains(got.Error(), "--") {
				t.Errorf("the bot's explanation names a flag: %v", got)
			}
		})
	}
}
