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
// by the tools with a message that names the file, the pattern and the
// setting that allows it (--allow-secret-files, RELAY_ALLOW_SECRET_FILES,
// secret_files.allow in the bot's relay.yaml). An operator extends the list
// or allows files with [NewFilePolicy]'s extra and allow patterns (the
// --secret-files flag, RELAY_SECRET_FILES, secret_files.extra; gitignore
// syntax too); matching is go-git's gitignore matcher, the one the indexer
// uses. [DefaultFilePolicy] is the default list alone, for walks that need
// no scanner; a nil policy means it wherever relay takes one.
//
// The package imports nothing of relay's but internal/redact, so every
// package may use it.
package egress
