package serve

import (
	"fmt"
	"sort"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/internal/advice"
)

// AgentConfig is the agent configuration of relay.yaml's model section,
// with its defaults (agent.Config.SetDefaults); max_tokens 0 means no
// limit, as on the command line. Only the configuration speaks for the
// model: the key comes from the variable api_key_env names (read by
// secret), and the CLI's variables (OPENAI_BASE_URL, RELAY_MODEL, …) do
// not count. Without a model endpoint the section is not checked further
// (the bot posts the offline report); with one, its problems name
// relay.yaml's keys (advice.ConfigNamesFor(advice.Operator)).
func AgentConfig(m ModelConfig, secret func(string) string) (agent.Config, error) {
	c := agent.Config{
		BaseURL: m.BaseURL, Model: m.Model,
		Models:    agent.Models{Planner: m.PlannerModel, Retriever: m.RetrieverModel, Gap: m.GapModel},
		MaxTokens: m.MaxTokens, MaxCost: m.MaxCost, Parallel: m.Parallel, PlannerSteps: m.PlannerSteps,
		RetrieverSteps: m.RetrieverSteps, RetrieverTimeout: m.RetrieverTimeout, RequestTimeout: m.RequestTimeout,
		Timeout: m.Timeout, Retries: m.Retries, NoJSONMode: m.NoJSONMode,
	}
	if m.MaxTokens == 0 {
		c.MaxTokens = agent.NoLimit
	}
	if m.APIKeyEnv != "" {
		c.APIKey = secret(m.APIKeyEnv)
	}
	c.SetDefaults()
	if !m.Configured() {
		return c, nil
	}
	names := make([]string, 0, len(m.Prices))
	for name := range m.Prices {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		model, p, err := agent.ParsePrice(name + "=" + m.Prices[name])
		if err != nil {
			return c, fmt.Errorf("model.prices: %w", err)
		}
		c.Prices[model] = p
	}
	return c, advice.ConfigNamesFor(advice.Operator).Advise(c.Validate(), c)
}
