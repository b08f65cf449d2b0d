// Package workspace is a repository and relay's files for it: the
// application layer that the CLI (cmd/relay), the bot (serve) and the MCP
// server share, so that each runs the same code.
//
// It owns:
//
//   - the store and state directories and their rules: where the graph,
//     the search index, transcripts and history live (Options.Store,
//     Options.State, <repo>/.relay by default), which directories relay
//     refuses to write (the repository itself, a source folder, anything
//     behind a symbolic link inside the repository), and the store key
//     that says whose an embedded store is (storekey.go, Options.TrustStore);
//   - one Index: the code graph (index.Run), its traversal index (warm-up)
//     and the search index (retrieve.Build), with recovery from a store
//     damaged mid-run; relay index, the bot's jobs, the offline report and
//     eval all index through it;
//   - one Searcher: the search index opened, or built first when there is
//     none yet (in memory where the state directory cannot be written);
//   - one OfflineReport: the context report written without a model, made
//     safe to post;
//   - the values of the checkout's secret-bearing files, read once and
//     handed both to the egress filter and to internal/publish
//     (SecretValues, Publisher);
//   - the graph tool of the MCP server that opens the index when it
//     becomes usable (MCPTools);
//   - one Agent built from an agent.Config (the CLI fills it from flags and
//     environment, the bot from relay.yaml): its tools over the repository,
//     its transcripts in the state directory; internal/advice's ConfigNames
//     name the user's settings in the advice added to its errors, and Agent.Localize asks
//     it where a fix goes (relay eval --agent);
//   - the REPL's history file (HistoryFile) and a graph indexed in memory
//     for one question (InMemoryGraph);
//   - a backlog of tickets (ReadTickets) and the resumable Batch that
//     scopes it into report files.
//   - the localization eval's view of a checkout (eval.go): EvalCheckout
//     indexes it into its own store for eval.Run and eval.RunRealIssues,
//     and GoldFromDiff derives a fix's gold answer (a graph indexed in
//     memory for languages other than Go).
//   - the queries the CLI and other front ends answer from the index: a
//     graph traversal (AnswerGraph; Tool builds one tool over the
//     workspace, GraphReader opens the store for the graph tool), a
//     search (Search), a diff's review context with the feedback recorded
//     in the state directory (Review, FeedbackStore), and the graph
//     exported to files written whole or not at all (ExportGraph).
//
// Scope is one issue scoped either way, published, with the JSON a file
// holds (ScopingJSON, Offline.JSON); a Session is an Agent with the
// ConfigNames its errors name. SummaryText writes an Index run's summaries
// for a person, naming the caller's settings; WriteFile writes a report
// file whole; Head is the commit a posted report read.
//
// It prints nothing: notices a person should see (an index rebuilt, a
// read-only state directory) go to Options.Notify, and errors come back to
// the caller, which adds its own advice (internal/advice). Errors of
// configuration (a store location that cannot be used) are a
// *ConfigError. Where a message must say which setting to change, it
// names it through Options.Advice (the CLI's flags; nothing for the bot's
// log), and the tools end their model-facing texts with Options.Hints.
package workspace
