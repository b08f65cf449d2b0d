package advice

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/agent"
	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tools"
)

// missingStore, damagedStore and refused get errors the way relay does,
// the ones users see, rather than look-alikes built by hand.
func missingStore(t *testing.T) error {
	t.Helper()
	_, err := embedded.Open(filepath.Join(t.TempDir(), ".relay"), embedded.Options{ReadOnly: true})
	if err == nil {
		t.Fatal("read-only open of a missing store succeeded")
	}
	return err
}

func damagedStore(t *testing.T) error {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".relay")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "graph.db"), []byte(strings.Repeat("this is not sqlite ", 500)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := embedded.Open(dir, embedded.Options{})
	if err == nil {
		t.Fatal("open of a damaged store succeeded")
	}
	return err
}

func refused(t *testing.T, path string) error {
	t.Helper()
	err := egress.DefaultFilePolicy().Check(path)
	if err == nil {
		t.Fatalf("%s is not refused", path)
	}
	return err
}

func TestFor(t *testing.T) {
	t.Parallel()
	target := arango.Target{Endpoint: "http://db:8529", Database: "repo", User: "root"}
	tests := []struct {
		name string
		err  error
		want [4]string // CLI, MCP, Operator, Author
	}{
		{
			name: "no embedded index",
			err:  fmt.Errorf("open graph: %w", missingStore(t)),
			want: [4]string{
				"run `relay index` first",
				"run `relay index` in the repository root, then retry",
				"the bot indexes each repository before its job, so a missing index means that step failed: see the error logged before this one",
				"",
			},
		},
		{
			name: "no graph in an ArangoDB database",
			err:  &graphdb.NoIndexError{Where: target.String(), Why: `database "repo" does not exist`},
			want: [4]string{
				"run `relay index --store arangodb://root@db:8529/repo` first",
				"run `relay index --store arangodb://root@db:8529/repo` in the repository root, then retry",
				"the graph in the ArangoDB store is missing or was dropped: index the repository into it again",
				"",
			},
		},
		{
			name: "ArangoDB graph dropped while in use",
			err:  fmt.Errorf("read node: %w", arango.ErrGraphMissing),
			want: [4]string{
				"run `relay index --store URL` first",
				"run `relay index --store URL` in the repository root, then retry",
				"the graph in the ArangoDB store is missing or was dropped: index the repository into it again",
				"",
			},
		},
		{
			name: "no search index",
			err:  fmt.Errorf("search: %w", retrieve.ErrNoIndex),
			want: [4]string{
				"run `relay index` in the repository first",
				"run `relay index` in the repository root, then retry",
				"the bot indexes each repository before its job, so a missing index means that step failed: see the error logged before this one",
				"",
			},
		},
		{
			name: "damaged graph",
			err:  damagedStore(t),
			want: [4]string{"run `relay index` to rebuild it", "run `relay index` in the repository root to rebuild it, then retry", operatorRebuild, ""},
		},
		{
			name: "damaged search index",
			err:  fmt.Errorf("open search index: %w", retrieve.ErrIndexDamaged),
			want: [4]string{"run `relay index` to rebuild it", "run `relay index` in the repository root to rebuild it, then retry", operatorRebuild, ""},
		},
		{
			name: "stale search index",
			err:  retrieve.ErrIndexStale,
			want: [4]string{"run `relay index` to rebuild it", "run `relay index` in the repository root to rebuild it, then retry", operatorRebuild, ""},
		},
		{
			name: "graph of another schema version",
			err:  fmt.Errorf("open graph store: %w", embedded.ErrIncompatible),
			want: [4]string{"run `relay index` to rebuild it", "run `relay index` in the repository root to rebuild it, then retry", operatorRebuild, ""},
		},
		{
			name: "foreign graph",
			err:  &embedded.ForeignError{Dir: "/r/.relay", Why: "it has no graph.seal"},
			want: [4]string{
				"run `relay index` to rebuild it, or pass --trust-store (RELAY_TRUST_STORE=1) if it is shared on purpose",
				"run `relay index` in the repository root to rebuild it, then retry",
				operatorRebuild,
				"",
			},
		},
		{
			name: "ArangoDB graph of another layout",
			err:  &arango.LayoutError{Target: target, Have: 1, Want: 2},
			want: [4]string{
				`drop database "repo" and run ` + "`relay index --store arangodb://root@db:8529/repo`",
				`drop database "repo" and run ` + "`relay index --store arangodb://root@db:8529/repo` in the repository root, then retry",
				`drop database "repo" and index the repository into it again`,
				"",
			},
		},
		{
			name: "read-only directory",
			err:  &embedded.ReadOnlyError{Dir: "/ro/.relay", Why: "cannot create files in it"},
			want: [4]string{
				"make it writable, or index into a writable directory with `relay index --store DIR`",
				"make it writable, or index into a writable directory with `relay index --store DIR` and start `relay mcp` with the same --store",
				"make state_dir writable for the bot's user",
				"",
			},
		},
		{
			name: "read-only directory with changes pending",
			err:  &embedded.ReadOnlyError{Dir: "/ro/.relay", Pending: true, Err: errors.New("disk I/O error")},
			want: [4]string{
				"run `relay index` once where the directory is writable, or copy the store to a writable directory",
				"run `relay index` once where the directory is writable, or copy the store to a writable directory, then retry",
				"make state_dir writable for the bot's user",
				"",
			},
		},
		{
			name: "full file system",
			err:  fmt.Errorf("open graph store /r/.relay: database or disk is full: %w", embedded.ErrNoSpace),
			want: [4]string{
				"free some space and run `relay index` again; readers keep working meanwhile",
				"free some space and run `relay index` in the repository root again; the other tools keep working meanwhile",
				"free some space on the file system of state_dir; the next job indexes again",
				"",
			},
		},
		{
			name: "ArangoDB credentials",
			err:  fmt.Errorf("open %s: %w for user %q: %w", target, arango.ErrAuth, "root", errors.New("401")),
			want: [4]string{
				"put the password in the --store URL or set RELAY_ARANGO_PASSWORD",
				"start `relay mcp` with the password in the --store URL or in RELAY_ARANGO_PASSWORD",
				"put the password in the store URL or set RELAY_ARANGO_PASSWORD in the bot's environment",
				"",
			},
		},
		{
			name: "secret-bearing file",
			err:  refused(t, "config/.env"),
			want: [4]string{
				`an operator who wants it read allows it with --allow-secret-files "config/.env" (env RELAY_ALLOW_SECRET_FILES)`,
				"whoever starts `relay mcp` allows it with --allow-secret-files \"config/.env\" (env RELAY_ALLOW_SECRET_FILES)",
				"allow it with secret_files.allow in relay.yaml if it holds no secrets",
				"relay does not read secret-bearing files; the bot's operator may allow one",
			},
		},
		{
			name: "no source relay indexes",
			err:  fmt.Errorf("index: %w: no source file of a language relay indexes under /r", index.ErrNoSource),
			want: [4]string{
				"pass --repo DIR (or set RELAY_REPO) to point at a checkout with source in a language relay indexes",
				"start `relay mcp` with --repo pointing at a checkout with source in a language relay indexes",
				"check the repository's remote and branch in relay.yaml: the checkout holds no source in a language relay indexes",
				"relay scopes issues of repositories with source in a language it indexes; this branch holds none",
			},
		},
		{
			name: "symbol missing from the graph",
			err:  &tools.GraphInputError{Msg: "No symbol x in the code graph.", Missing: true},
			want: [4]string{"run `relay index` to update it", "run `relay index` in the repository root to update it", "", ""},
		},
		{
			name: "ambiguous symbol: the message says it all",
			err:  &tools.GraphInputError{Msg: "x is ambiguous", Err: graphdb.ErrAmbiguous},
		},
		{
			name: "run budget",
			err:  fmt.Errorf("scope: %w", agent.ErrBudget),
			want: [4]string{
				"raise --max-tokens or --max-cost (or narrow the question)",
				"",
				"raise model.max_tokens or model.max_cost in relay.yaml",
				"the bot's run budget ran out before the issue was scoped; its operator may raise it",
			},
		},
		{
			name: "model endpoint answering HTML",
			err:  fmt.Errorf("planner: %w", &agent.ReplyError{Endpoint: "http://m/", Status: 200, HTML: true}),
			want: [4]string{"check OPENAI_BASE_URL (or --base-url): it should end in /v1", "", "check model.base_url in relay.yaml: it should end in /v1", ""},
		},
		{
			name: "another writer",
			err:  fmt.Errorf("begin: %w", graphdb.ErrLocked),
			want: [4]string{
				"another relay process is writing the index: wait for it to finish, then retry",
				"another relay process is writing the index: wait for it to finish, then retry",
				"another process holds the index's write lock: give each bot process its own state_dir and share a PostgreSQL queue instead",
				"",
			},
		},
		{name: "an error relay has no advice for", err: errors.New("connection refused")},
		{name: "a plain not-found is no missing index", err: fmt.Errorf("node x: %w", graphdb.ErrNotFound)},
		{name: "nil"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got [4]string
			for s := CLI; s <= Author; s++ {
				got[s] = For(tc.err, s)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("advice for %v (-want +got):\n%s", tc.err, diff)
			}
		})
	}
}

// cliCommand matches a relay command or a flag, envVar a relay variable:
// no reader of the bot can run a command. The operator may be told of an
// environment variable of the bot's process; the author of no setting.
var (
	cliCommand = regexp.MustCompile("`relay [a-z]|(^|[\\s(`])--[a-z]")
	envVar     = regexp.MustCompile(`\bRELAY_[A-Z_]+`)
)

// TestBotAdviceRunsNothing: advice for the bot's readers names no command
// or flag, and the author is told of no setting.
func TestBotAdviceRunsNothing(t *testing.T) {
	t.Parallel()
	for _, e := range table {
		if e.say[CLI] == "" {
			t.Errorf("%s: no advice for the command line", e.name)
		}
		for _, s := range []Surface{Operator, Author} {
			if text := e.say[s]; cliCommand.MatchString(text) {
				t.Errorf("%s: advice for the %s names a command or flag: %q", e.name, s, text)
			}
		}
		if text := e.say[Author]; envVar.MatchString(text) || strings.Contains(text, "relay.yaml") {
			t.Errorf("%s: advice for the issue's author names a setting: %q", e.name, text)
		}
	}
	h := ToolHints(Operator)
	for _, text := range []string{h.NoIndex, h.Stale, h.SecretFiles} {
		if cliCommand.MatchString(text) || envVar.MatchString(text) {
			t.Errorf("the bot's tool hint %q names a command, flag or variable", text)
		}
	}
}

func TestSentence(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                               "",
		"run `relay index` first":        "Run `relay index` first.",
		"relay does not read such files": "relay does not read such files.",
		"ändern Sie relay.yaml":          "Ändern Sie relay.yaml.",
	} {
		if got := Sentence(in); got != want {
			t.Errorf("Sentence(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestToolHints: the tools' texts end with the surface's hint.
func TestToolHints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		surface Surface
		want    string
	}{
		{CLI, "No code graph index exists for this repository yet. Run `relay index` in the repository root, then retry. Meanwhile grep"},
		{MCP, "No code graph index exists for this repository yet. Run `relay index` in the repository root, then retry. Meanwhile grep"},
		{Operator, "No code graph index exists for this repository yet. The bot indexes the repository before each job and has no graph for this one. Meanwhile grep"},
	}
	for _, tc := range tests {
		if got := tools.NoIndexText(ToolHints(tc.surface)); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: NoIndexText = %q, want it to start %q", tc.surface, got, tc.want)
		}
	}
}
