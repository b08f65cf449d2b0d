package agent_test

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	openai "github.com/sashabaranov/go-openai"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/agent/agenttest"
)

func TestConfigSetDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   agent.Config
		want agent.Config
	}{
		{"api.openai.com", agent.Config{}, agent.Config{
			Model:     agent.DefaultModel,
			Models:    agent.Models{Planner: agent.DefaultModel, Retriever: agent.DefaultModel, Gap: agent.DefaultModel},
			Prices:    map[string]agent.Price{},
			MaxTokens: agent.DefaultMaxTokens, Parallel: 4, MaxRetrievers: agent.DefaultMaxRetrievers,
			MaxToolCallsPerTurn: agent.DefaultMaxToolCallsPerTurn, PlannerSteps: 6, RetrieverSteps: 20,
			RetrieverTimeout: 5 * time.Minute, RequestTimeout: 3 * time.Minute, Retries: 4,
			RunsKeep: agent.DefaultRunsKeep, RunsMaxBytes: agent.DefaultRunsMaxBytes,
		}},
		{"other endpoint: no default model, stages from Model", agent.Config{BaseURL: "http://x/v1", Model: "m", Models: agent.Models{Gap: "g"}}, agent.Config{
			BaseURL: "http://x/v1", Model: "m", Models: agent.Models{Planner: "m", Retriever: "m", Gap: "g"},
			Prices:    map[string]agent.Price{},
			MaxTokens: agent.DefaultMaxTokens, Parallel: 4, MaxRetrievers: agent.DefaultMaxRetrievers,
			MaxToolCallsPerTurn: agent.DefaultMaxToolCallsPerTurn, PlannerSteps: 6, RetrieverSteps: 20,
			RetrieverTimeout: 5 * time.Minute, RequestTimeout: 3 * time.Minute, Retries: 4,
			RunsKeep: agent.DefaultRunsKeep, RunsMaxBytes: agent.DefaultRunsMaxBytes,
		}},
		{"set fields and no-limit values stay", agent.Config{BaseURL: "http://x/v1", MaxTokens: agent.NoLimit, Parallel: 1, Retries: 2, RunsKeep: agent.NoLimit, RunsMaxBytes: agent.NoLimit, Timeout: time.Second}, agent.Config{
			BaseURL: "http://x/v1", Prices: map[string]agent.Price{},
			MaxTokens: agent.NoLimit, Parallel: 1, MaxRetrievers: agent.DefaultMaxRetrievers,
			MaxToolCallsPerTurn: agent.DefaultMaxToolCallsPerTurn, PlannerSteps: 6, RetrieverSteps: 20,
			RetrieverTimeout: 5 * time.Minute, RequestTimeout: 3 * time.Minute, Retries: 2, Timeout: time.Second,
			RunsKeep: agent.NoLimit, RunsMaxBytes: agent.NoLimit,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := tc.in
			got.SetDefaults()
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("SetDefaults (-want +got):\n%s", diff)
			}
			again := got
			again.SetDefaults()
			if diff := cmp.Diff(got, again); diff != "" {
				t.Errorf("SetDefaults is not idempotent (-first +second):\n%s", diff)
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	valid := func(mod func(*agent.Config)) agent.Config {
		var c agent.Config
		c.SetDefaults()
		mod(&c)
		return c
	}
	tests := []struct {
		name       string
		c          agent.Config
		wantNoMod  bool
		wantFields []string // ConfigError.Field of each problem, in order
		wantPrices bool
	}{
		{"defaults", valid(func(*agent.Config) {}), false, nil, false},
		{"zero config on api.openai.com: its zeros are refused, its model is not", agent.Config{}, false,
			[]string{"Parallel", "PlannerSteps", "RetrieverSteps", "Retries", "MaxRetrievers", "MaxToolCallsPerTurn", "RunsKeep", "RunsMaxBytes", "RequestTimeout", "RetrieverTimeout", "MaxTokens"}, false},
		{"endpoint without a model", valid(func(c *agent.Config) {
			c.BaseURL, c.Model, c.Models = "http://x/v1", "", agent.Models{Planner: "p"}
		}), true, nil, false},
		{"negatives", valid(func(c *agent.Config) {
			c.Parallel, c.Timeout, c.MaxCost, c.MaxTokens, c.RequestTimeout = -1, -time.Second, -1, -5, -time.Second
		}), false, []string{"Parallel", "RequestTimeout", "Timeout", "MaxTokens", "MaxCost"}, false},
		{"no limits", valid(func(c *agent.Config) {
			c.MaxTokens, c.RunsKeep, c.RunsMaxBytes = agent.NoLimit, agent.NoLimit, agent.NoLimit
		}), false, nil, false},
		{"cost budget without prices", valid(func(c *agent.Config) { c.MaxCost = 1 }), false, []string{"MaxCost"}, true},
		{"cost budget with prices", valid(func(c *agent.Config) {
			c.MaxCost, c.Prices = 1, map[string]agent.Price{"m": {In: 1, Out: 1}}
		}), false, nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := tc.c.Validate()
			if got := errors.Is(err, agent.ErrNoModel); got != tc.wantNoMod {
				t.Errorf("errors.Is(%v, ErrNoModel) = %v, want %v", err, got, tc.wantNoMod)
			}
			if got := errors.Is(err, agent.ErrNoPrices); got != tc.wantPrices {
				t.Errorf("errors.Is(%v, ErrNoPrices) = %v, want %v", err, got, tc.wantPrices)
			}
			var fields []string
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					var ce *agent.ConfigError
					if errors.As(e, &ce) {
						fields = append(fields, ce.Field)
					}
				}
			}
			if diff := cmp.Diff(tc.wantFields, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s\nerr: %v", diff, err)
			}
			if err == nil && (tc.wantNoMod || tc.wantFields != nil) {
				t.Error("Validate accepted the config")
			}
			// The library speaks of its own fields, never of a flag or command.
			if err != nil && (strings.Contains(err.Error(), "--") || strings.Contains(err.Error(), "RELAY_")) {
				t.Errorf("error names a flag or variable: %v", err)
			}
		})
	}
}

// TestNewFromConfig: the runner built from a Config talks to its endpoint
// with its key and models, retries as many times as it says, and refuses a
// config Validate refuses.
func TestNewFromConfig(t *testing.T) {
	t.Parallel()
	srv := agenttest.NewServer(func(req openai.ChatCompletionRequest, n int) agenttest.Reply {
		if n == 1 {
			return agenttest.Error(503, "busy")
		}
		return agenttest.OK(agenttest.Text("The answer is at notify/sms.go:12."))
	})
	t.Cleanup(srv.Close)
	// A proxy in front of the scripted endpoint records the key sent.
	target, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var keys []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("Authorization"))
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg := agent.Config{BaseURL: front.URL + "/v1", APIKey: "k-123", Model: "m", Models: agent.Models{Gap: "writer"}, Retries: 2, NoTranscript: true}
	r, err := agent.NewFromConfig(cfg, agent.Deps{Root: writeRepo(t, sampleRepo), RunsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	a, err := r.Ask(t.Context(), "where are SMS sent?")
	if err != nil {
		t.Fatal(err)
	}
	if a.Transcript != "" {
		t.Errorf("NoTranscript kept %s", a.Transcript)
	}
	var models []string
	for _, req := range srv.Requests() {
		models = append(models, req.Model)
	}
	// The planner's 503 is retried once (Retries 2); it then answers, and
	// the answer writer runs with the gap model.
	if diff := cmp.Diff([]string{"m", "m", "writer"}, models); diff != "" {
		t.Errorf("models of the requests (-want +got):\n%s", diff)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 3 {
		t.Errorf("%d requests reached the endpoint, want 3", len(keys))
	}
	for _, k := range keys {
		if k != "Bearer k-123" {
			t.Errorf("Authorization = %q, want the config's key", k)
		}
	}

	if _, err := agent.NewFromConfig(agent.Config{BaseURL: srv.URL() + "/v1"}, agent.Deps{Root: t.TempDir()}); !errors.Is(err, agent.ErrNoModel) {
		t.Errorf("NewFromConfig without a model = %v, want ErrNoModel", err)
	}
	if _, err := agent.NewFromConfig(agent.Config{BaseURL: srv.URL() + "/v1", Model: "m", MaxCost: 1}, agent.Deps{Root: t.TempDir()}); !errors.Is(err, agent.ErrNoPrices) {
		t.Errorf("NewFromConfig with a cost budget and no prices = %v, want ErrNoPrices", err)
	}
}
