// Package advice owns what relay tells a person to do about an error, for
// each place a person meets relay: the command line, an MCP client, the
// bot's operator (its log) and the author of an issue the bot scoped (its
// comment). Library packages return sentinels and typed errors whose
// messages state the problem only — where, what and why — because what can
// be done about it depends on who reads it: a command line user runs
// `relay index`; the bot indexes before every job and has nothing to run;
// its operator changes relay.yaml or the environment. This package is the
// one table that maps those errors (errors.Is / errors.As on the sentinels
// and types of graphdb, graphdb/embedded, graphdb/arango, retrieve, agent,
// index, internal/egress and tools) to advice per surface, and the hints
// the tools end their model-facing texts with ([ToolHints]).
//
// cmd/relay prints a command's error and then [For] its CLI; the bot logs
// For its operator with a failed job and adds For the author to the
// failure note; tools/mcpserver adds For MCP to a tool's failure.
//
// A test of this package (TestNoCLIAdviceInLibraries) parses every library
// package and fails on an error or returned text naming a relay
// sub-command, a CLI flag or a RELAY_* variable: such advice belongs here.
package advice

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tools"
)

// Surface is where a person reads relay's error, which decides what they
// can do about it.
type Surface int

const (
	// CLI is the person running relay on the command line: commands,
	// flags and environment variables.
	CLI Surface = iota
	// MCP is the person behind an MCP client of `relay mcp`: they can run
	// relay in the repository, but the client only reads tool answers.
	MCP
	// Operator is whoever runs the bot: relay.yaml and the bot's
	// environment, read from the bot's log.
	Operator
	// Author is the person who filed the issue the bot scoped: they read
	// the bot's comment and can comment again, nothing more.
	Author
)

// String names the surface, for tests and logs.
func (s Surface) String() string {
	switch s {
	case CLI:
		return "cli"
	case MCP:
		return "mcp"
	case Operator:
		return "operator"
	case Author:
		return "author"
	}
	return "surface(?)"
}

// entry is one row of the table: the errors it matches and the advice for
// each surface ("" for none), each a clause that follows the error's own
// message after a semicolon ("no index at DIR; run `relay index` first"). The texts may hold {store} (the store's
// location), {path} (a refused file) and {db} (an ArangoDB database),
// filled from the error.
type entry struct {
	name  string
	match func(error) bool
	say   [4]string // by Surface: CLI, MCP, Operator, Author
}

func is(targets ...error) func(error) bool {
	return func(err error) bool {
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

func as[T error](err error) (T, bool) {
	var t T
	ok := errors.As(err, &t)
	return t, ok
}

// remote reports whether err's missing index was looked for in a store
// named by URL (arangodb://…), which relay index must be told of.
func remote(err error) bool {
	e, ok := as[*graphdb.NoIndexError](err)
	return ok && strings.Contains(e.Where, "://")
}

// operatorRebuild is the operator's advice for an index the bot cannot use.
const operatorRebuild = "the bot keeps each repository's index under state_dir: delete that repository's store there and the next job builds it anew"

// table is searched in order; the first entry that matches gives the
// advice. More specific entries come first.
var table = []entry{
	{
		name:  "no graph in an ArangoDB store",
		match: func(err error) bool { return remote(err) || errors.Is(err, arango.ErrGraphMissing) },
		say: [4]string{
			"run `relay index --store {store}` first",
			"run `relay index --store {store}` in the repository root, then retry",
			"the graph in the ArangoDB store is missing or was dropped: index the repository into it again",
		},
	},
	{
		name:  "no graph index",
		match: func(err error) bool { _, ok := as[*graphdb.NoIndexError](err); return ok },
		say: [4]string{
			"run `relay index` first",
			"run `relay index` in the repository root, then retry",
			"the bot indexes each repository before its job, so a missing index means that step failed: see the error logged before this one",
		},
	},
	{
		name:  "no search index",
		match: is(retrieve.ErrNoIndex),
		say: [4]string{
			"run `relay index` in the repository first",
			"run `relay index` in the repository root, then retry",
			"the bot indexes each repository before its job, so a missing index means that step failed: see the error logged before this one",
		},
	},
	{
		name:  "ArangoDB graph of another layout",
		match: func(err error) bool { _, ok := as[*arango.LayoutError](err); return ok },
		say: [4]string{
			"drop database {db} and run `relay index --store {store}`",
			"drop database {db} and run `relay index --store {store}` in the repository root, then retry",
			"drop database {db} and index the repository into it again",
		},
	},
	{
		name:  "an index this user's relay did not write",
		match: is(embedded.ErrForeign, retrieve.ErrIndexForeign),
		say: [4]string{
			"run `relay index` to rebuild it, or pass --trust-store (RELAY_TRUST_STORE=1) if it is shared on purpose",
			"run `relay index` in the repository root to rebuild it, then retry",
			operatorRebuild,
		},
	},
	{
		name:  "a damaged, stale or incompatible index",
		match: is(graphdb.ErrCorrupt, embedded.ErrIncompatible, retrieve.ErrIndexDamaged, retrieve.ErrIndexStale),
		say: [4]string{
			"run `relay index` to rebuild it",
			"run `relay index` in the repository root to rebuild it, then retry",
			operatorRebuild,
		},
	},
	{
		name:  "a search index update that could not be written",
		match: is(retrieve.ErrIndexNotWritten),
		say: [4]string{
			"fix the cause (space, permissions) and run `relay index` again",
			"fix the cause (space, permissions) and run `relay index` in the repository root again, then retry",
			"fix the cause on state_dir's file system (space, permissions); the next job indexes again",
		},
	},
	{
		name:  "embeddings without an endpoint",
		match: is(retrieve.ErrEmbedNotConfigured),
		say: [4]string{
			"set --embed-model and RELAY_EMBED_BASE_URL (or OPENAI_BASE_URL)",
			"start `relay mcp` with --embed-model and RELAY_EMBED_BASE_URL (or OPENAI_BASE_URL)",
			"set the embedding model and its base URL in the bot's configuration",
		},
	},
	{
		name: "a read-only index directory with changes pending",
		match: func(err error) bool {
			e, ok := as[*embedded.ReadOnlyError](err)
			return ok && e.Pending
		},
		say: [4]string{
			"run `relay index` once where the directory is writable, or copy the store to a writable directory",
			"run `relay index` once where the directory is writable, or copy the store to a writable directory, then retry",
			"make state_dir writable for the bot's user",
		},
	},
	{
		name:  "a read-only index directory",
		match: is(embedded.ErrReadOnly),
		say: [4]string{
			"make it writable, or index into a writable directory with `relay index --store DIR`",
			"make it writable, or index into a writable directory with `relay index --store DIR` and start `relay mcp` with the same --store",
			"make state_dir writable for the bot's user",
		},
	},
	{
		name:  "a full file system",
		match: is(embedded.ErrNoSpace),
		say: [4]string{
			"free some space and run `relay index` again; readers keep working meanwhile",
			"free some space and run `relay index` in the repository root again; the other tools keep working meanwhile",
			"free some space on the file system of state_dir; the next job indexes again",
		},
	},
	{
		name:  "the index is being written",
		match: is(graphdb.ErrLocked),
		say: [4]string{
			"another relay process is writing the index: wait for it to finish, then retry",
			"another relay process is writing the index: wait for it to finish, then retry",
			"another process holds the index's write lock: give each bot process its own state_dir and share a PostgreSQL queue instead",
		},
	},
	{
		name:  "ArangoDB refused the credentials",
		match: is(arango.ErrAuth),
		say: [4]string{
			"put the password in the --store URL or set RELAY_ARANGO_PASSWORD",
			"start `relay mcp` with the password in the --store URL or in RELAY_ARANGO_PASSWORD",
			"put the password in the store URL or set RELAY_ARANGO_PASSWORD in the bot's environment",
		},
	},
	{
		name:  "a secret-bearing file",
		match: is(egress.ErrSecretFile),
		say: [4]string{
			"an operator who wants it read allows it with --allow-secret-files {path} (env RELAY_ALLOW_SECRET_FILES)",
			"whoever starts `relay mcp` allows it with --allow-secret-files {path} (env RELAY_ALLOW_SECRET_FILES)",
			"allow it with secret_files.allow in relay.yaml if it holds no secrets",
			"relay does not read secret-bearing files; the bot's operator may allow one",
		},
	},
	{
		name:  "no source relay indexes",
		match: is(index.ErrNoSource),
		say: [4]string{
			"pass --repo DIR (or set RELAY_REPO) to point at a checkout with source in a language relay indexes",
			"start `relay mcp` with --repo pointing at a checkout with source in a language relay indexes",
			"check the repository's remote and branch in relay.yaml: the checkout holds no source in a language relay indexes",
			"relay scopes issues of repositories with source in a language it indexes; this branch holds none",
		},
	},
	{
		name:  "a symbol the graph does not hold",
		match: func(err error) bool { e, ok := as[*tools.GraphInputError](err); return ok && e.Missing },
		say: [4]string{
			"run `relay index` to update it",
			"run `relay index` in the repository root to update it",
		},
	},
	{
		name:  "the run budget",
		match: is(agent.ErrBudget),
		say: [4]string{
			"raise --max-tokens or --max-cost (or narrow the question)",
			"",
			"raise model.max_tokens or model.max_cost in relay.yaml",
			"the bot's run budget ran out before the issue was scoped; its operator may raise it",
		},
	},
	{
		name:  "a model endpoint that is not an OpenAI API",
		match: func(err error) bool { _, ok := as[*agent.ReplyError](err); return ok },
		say: [4]string{
			"check OPENAI_BASE_URL (or --base-url): it should end in /v1",
			"",
			"check model.base_url in relay.yaml: it should end in /v1",
		},
	},
}

// For returns the advice for err on surface s: a clause saying what the
// person there can do, written to follow the error's message after a
// semicolon (Sentence makes it a sentence of its own), or "" when relay
// has none (or err is nil). It never repeats the error itself.
func For(err error, s Surface) string {
	if err == nil || s < CLI || s > Author {
		return ""
	}
	for _, e := range table {
		if e.match(err) {
			return fill(e.say[s], err)
		}
	}
	return ""
}

// Sentence makes advice a sentence of its own: capitalized (unless it
// starts with relay's name) and ended with a period; "" stays "".
func Sentence(advice string) string {
	if advice == "" {
		return ""
	}
	if !strings.HasPrefix(advice, "relay ") {
		r, n := utf8.DecodeRuneInString(advice)
		advice = string(unicode.ToUpper(r)) + advice[n:]
	}
	return advice + "."
}

// fill replaces the placeholders of text with what err says.
func fill(text string, err error) string {
	if !strings.Contains(text, "{") {
		return text
	}
	store, db, path := "URL", "", "PATTERN"
	if e, ok := as[*graphdb.NoIndexError](err); ok {
		store = e.Where
	}
	if e, ok := as[*arango.LayoutError](err); ok {
		store, db = e.Target.String(), `"`+e.Target.Database+`"`
	}
	if e, ok := as[*egress.RefusedError](err); ok {
		path = strconv.Quote(e.Path)
	}
	return strings.NewReplacer("{store}", store, "{db}", db, "{path}", path).Replace(text)
}

// ToolHints are the hints the tools end their model-facing texts with
// (tools.Hints) on surface s. On the command line and through MCP someone
// can run relay; the bot has indexed just before the job, so a missing
// index is not the model's to fix and a symbol the graph lacks is not
// stale.
func ToolHints(s Surface) tools.Hints {
	switch s {
	case CLI:
		return tools.Hints{
			NoIndex:     "Run `relay index` in the repository root, then retry.",
			Stale:       "Run `relay index` to update it.",
			SecretFiles: "An operator allows one with --allow-secret-files PATTERN (env RELAY_ALLOW_SECRET_FILES).",
		}
	case MCP:
		return tools.Hints{
			NoIndex:     "Run `relay index` in the repository root, then retry.",
			Stale:       "Run `relay index` in the repository root to update it.",
			SecretFiles: "Whoever starts `relay mcp` allows one with --allow-secret-files PATTERN (env RELAY_ALLOW_SECRET_FILES).",
		}
	}
	return tools.Hints{
		NoIndex:     "The bot indexes the repository before each job and has no graph for this one.",
		SecretFiles: "The bot's operator allows one with secret_files.allow in relay.yaml.",
	}
}
