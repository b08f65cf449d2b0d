// Package egress owns what may leave relay. Every text relay shows, posts,
// logs or sends to a model — a tracker comment, a model request (tool
// results included), a transcript, a log line, the output of `relay scope`,
// `ask`, `search` and `tool` — passes one [Filter] first, and the files that
// hold secrets by their nature are neither indexed nor read (a [FilePolicy]).
//
// # Secrets in text
//
// Detection is gitleaks' detector with its maintained default rule set (about
// 220 rules: cloud keys, tracker and chat tokens, private keys, JWTs, generic
// api_key/secret assignments with an entropy threshold; with its decoders,
// so a token percent-, base64- or hex-encoded is found and its encoded text
// redacted), used as a library
// rather than a hand-written regex list, so new token formats arrive with a
// dependency update. Credentials in URLs (connection strings such as
// postgres://user:pass@host) are masked by internal/redact, which gitleaks'
// rules do not cover. Each detected value is replaced by
// "[redacted: <rule>]" and counted per rule; the counts go to a report's
// notes and to a metric ([Filter.Stats] of [Default], which every sink of
// the process shares, feeds relay_secrets_redacted_total). Text inside
// JSON strings (tool-call arguments, --json output) is also scanned with
// its escapes undone, so an escaped quote or newline hides nothing.
//
// Where the filter sits: [Writer] (relay's standard output), [Handler]
// (log records), agent.NewEgressClient (every model request), agent's
// transcripts, tools/mcpserver's answers and tracker.Filtered (every
// comment posted). The rules compile in about 50 ms, on first use.
//
// # Secret-bearing files
//
// [DefaultSecretFiles] lists, in .gitignore syntax, files that exist to hold
// credentials (.env files, private keys, .npmrc, .netrc, kubeconfigs,
// credentials files, …). They are left out of the search index and refused
// by the tools with a message that names the file and the pattern (a
// [RefusedError]); the surface adds the setting that allows it
// (internal/advice: --allow-secret-files or RELAY_ALLOW_SECRET_FILES on
// the command line, secret_files.allow in the bot's relay.yaml). An
// operator extends the list
// or allows files with [NewFilePolicy]'s extra and allow patterns (the
// --secret-files flag, RELAY_SECRET_FILES, secret_files.extra; gitignore
// syntax too); matching is go-git's gitignore matcher, the one the indexer
// uses. [DefaultFilePolicy] is the default list alone, for walks that need
// no scanner; a nil policy means it wherever relay takes one.
//
// # Values of secret-bearing files
//
// gitleaks finds a secret by its format; a value copied from .env into a
// file relay may read (a table in docs/, a test fixture) may have none.
// [SecretValues] reads a checkout's secret-bearing files (by the policy)
// and returns the values they hold: each value of a KEY=value line and the
// parts of its URL or list, other lines, PEM bodies, and the start of the
// base64 and hex encodings of these; [Values] is their compiled matcher
// (letters and digits alone compared, case ignored, pieces of 16 of a
// random-looking value caught; see [Values.Replace]). [Filter.AddValues]
// gives a filter such values: from then on [Filter.Redact] replaces them
// with "[redacted: secret-file-value]", counted under that rule like any
// other.
//
// Scope: the CLI adds, once the repository is known (every command that
// reads one resolves it the same way: search, tool, scope, ask, mcp,
// review, graph, batch, eval, index), the values of that repository to
// [Default]; the bot adds each job's checkout's values before scoping.
// Values are never removed, so a process that has served several
// repositories redacts the values of all of them in every text: it
// over-redacts across repositories, which is the safe direction. A
// secret-bearing file changed after the values were read (a long-running
// relay mcp) is not read again. Reading a checkout's values is a walk of
// the checkout (about 0.3 s for 11,000 files, BENCHMARKS.md); matching
// costs a few ms per MB.
//
// The package imports nothing of relay's but internal/redact and
// internal/safefs, so every package may use it.
package egress
