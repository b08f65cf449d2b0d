package advice

// ConfigNamesFor names agent.Config's fields as the surface's reader sets
// them (flags and environment variables on the command line, relay.yaml's
// model section for the bot's operator), to rewrite agent.Config.Validate's
// problems and the endpoint's failures in those terms (ConfigNames). Any
// other surface gets the command line's names.
func ConfigNamesFor(s Surface) *ConfigNames {
	if s == Operator {
		return &operatorSettings
	}
	return &cliSettings
}

// cliSettings names the flags of relay's model flags (cmd/relay).
var cliSettings = ConfigNames{
	Fields: map[string]string{
		"Parallel": "--parallel", "PlannerSteps": "--planner-steps", "RetrieverSteps": "--retriever-steps",
		"Retries": "--retries", "MaxRetrievers": "--max-retrievers", "MaxToolCallsPerTurn": "--max-tool-calls",
		"RunsKeep": "--keep-runs", "RunsMaxBytes": "--keep-runs-mb", "RequestTimeout": "--request-timeout",
		"RetrieverTimeout": "--retriever-timeout", "Timeout": "--timeout", "MaxTokens": "--max-tokens", "MaxCost": "--max-cost",
	},
	NoModel:        "pass --model (or set RELAY_MODEL), e.g. --model qwen2.5-coder:14b for Ollama",
	NoPrices:       "pass --price model=in/out (per million tokens) or set RELAY_PRICES",
	RequestTimeout: "--request-timeout",
	Retries:        "--retries",
	BaseURL:        "--base-url / OPENAI_BASE_URL",
	Offline:        "without a model, unset OPENAI_BASE_URL and OPENAI_API_KEY to use the offline pipeline",
}

// operatorSettings names relay.yaml's keys of the model section.
var operatorSettings = ConfigNames{
	Fields: map[string]string{
		"Parallel": "model.parallel", "PlannerSteps": "model.planner_steps", "RetrieverSteps": "model.retriever_steps",
		"Retries": "model.retries", "RequestTimeout": "model.request_timeout", "RetrieverTimeout": "model.retriever_timeout",
		"Timeout": "model.timeout", "MaxTokens": "model.max_tokens", "MaxCost": "model.max_cost",
	},
	NoModel:        "set model.model in relay.yaml, e.g. model: qwen2.5-coder:14b for Ollama",
	NoPrices:       "set model.prices in relay.yaml (model: in/out per million tokens)",
	RequestTimeout: "model.request_timeout",
	Retries:        "model.retries",
	BaseURL:        "model.base_url in relay.yaml",
	Offline:        "without a model, leave out model.base_url and model.api_key_env for the offline report",
}
