// Package agent owns relay's agent runtime: the LLM seam ([ChatClient], with
// retries in [NewRetryClient]), the retriever sub-agent loop, the planner
// that runs retrievers in parallel through its retrieve(query) tool, the gap
// detector that turns an issue and the retriever reports into a scoping
// report, the answer writer of relay ask, run budgets, usage accounting and
// transcripts. go-openai types stay inside this package.
//
// # Runs
//
// A [Runner] is built once from [Options]; each [Runner.Scope],
// [Runner.Ask] or [Runner.Retrieve] call is one run with its own ID, budget
// and transcript (<RunsDir>/<UTC timestamp>-<id>.jsonl, one [Event] a line:
// every request, response, tool call and result, with stage, agent id,
// timing and tokens). Transcripts are private (0600 in a 0700 directory),
// record at most 64 KiB of each message, argument or result per event (1 MiB
// over a request's messages, older ones shrinking first), and are pruned to
// the newest Options.RunsKeep / Options.RunsMaxBytes when a run starts.
//
// # Configuration
//
// [Config] holds every setting a user chooses (endpoint, key, model per
// stage, prices, budgets, limits, timeouts, retries, transcripts);
// [Config.SetDefaults] is the one place their defaults are written, and
// [Config.Validate] reports what cannot be used as [*ConfigError] values
// naming the Config field, and a missing model as [ErrNoModel]. The package
// speaks of its own fields only: relay's CLI (flags, environment) and its
// bot (relay.yaml keys) each fill a Config and put the problems in their
// user's terms. [NewFromConfig] builds the runtime of a Config: the
// go-openai client (retries, egress filter) and a [Runner] over it.
//
// # The model endpoint
//
// [NewOpenAIClient] reads at most [MaxReplyBytes] of a reply
// ([*ReplyTooLargeError] beyond) and refuses a successful reply that is not
// JSON ([*ReplyError]: an HTML page means the base URL points at a web
// server, not the API). Errors of model calls have their URLs redacted
// (internal/redact) before they are recorded or returned. Only the run's own
// deadlines end a run "with what it has"; a request that timed out on its
// own, after its retries, is an error like an HTTP 500.
//
//	planner ──retrieve(q1), retrieve(q2)…──▶ retrievers (≤ Parallel at once) ──reports──▶ planner …
//	planner answers without tool calls (or spends PlannerMaxSteps)
//	  └─▶ gap detector (scope) or answer writer (ask) ──▶ Scoping / Answer
//
// # Invariants
//
//   - Every tool_call_id gets exactly one tool message: unknown tools (the
//     message lists the valid names), arguments that are not JSON, calls cut
//     off by cancellation or a deadline, and calls made after the tools were
//     removed are all answered.
//   - A tool's Result.IsError goes back to the model; a Go error from
//     Tool.Call ends the run with a wrapped error. A tool panic is recovered
//     and reported to the model as an error result.
//   - Read-only tool calls of one turn run concurrently (ToolParallel), and
//     their messages follow the call order.
//   - A retriever gets RetrieverSoftCap turns with tools; then the user
//     message "You've explored extensively. Please synthesize your findings
//     into a final report now." is sent and the tools are removed. Its hard
//     deadline is RetrieverTimeout; on expiry it returns what it has, marked
//     incomplete. It never hangs on a model or tool that honours ctx.
//   - Repeated (tool, arguments, result) triples within LoopWindow calls are a
//     loop; the retriever is steered out with a user message.
//   - Every path:line cited in a report or final document is checked against
//     the checkout; citations that do not hold are listed (BadCitations) and a
//     note is appended to the text.
//   - A model's reply cannot make a run unbounded: only the first
//     MaxToolCallsPerTurn calls of a turn run, a run starts at most
//     MaxRetrievers retrievers, and each call beyond gets its one tool
//     message saying it was not run and why; a retriever keeps at most
//     RetrieverMaxToolBytes of tool results, the oldest replaced by a note
//     (call, size, first line) beyond it. A retriever whose model reply is
//     over MaxReplyBytes ends incomplete with that reason, which the
//     planner gets as that retriever's result; the run goes on.
//   - The budget (Budget.MaxTokens, default DefaultMaxTokens; Budget.MaxCost) is enforced: once spent,
//     no further model call starts; the run ends with what it has and says
//     the budget stopped it (Stopped = "budget: token budget N reached (…)",
//     or the cost budget's). Calls already in flight
//     finish, so parallel retrievers may overshoot by what they consume.
//
// # Scoping report JSON schema
//
// The gap detector is asked (response_format json_object where the endpoint
// supports it) for one object, validated by [ParseScopeDoc]; on garbage it is
// asked once more, then the run falls back to a markdown-only report
// (Scoping.Structured false, Report nil, a note at the top of Markdown).
//
//	{
//	  "summary": string,                       // required, non-empty
//	  "established": [string],                 // facts, each with a path:line
//	  "unknowns": [string],
//	  "edge_cases": [string],
//	  "risks": [string],
//	  "affected_components": [{"name": string, "path": string, "reason": string}],
//	  "open_questions": [string],              // for the reporter
//	  "size": "S" | "M" | "L" | "XL",
//	  "size_rationale": string
//	}
//
// Every field must be present (lists may be empty). relay scope --format json
// and relay batch write a [Scoping]: {"run_id", "issue", "structured",
// "report": <the object above>, "markdown", "retrievals": [[Report]…],
// "planner_notes", "stopped", "bad_citations", "usage", "transcript",
// "duration_ns"}.
package agent
