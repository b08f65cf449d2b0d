package serve

import (
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tracker"
	"github.com/relayhq/relay/workspace"
)

// TestBotIndexBudgets: the bot indexes a job's worktree within
// relay.yaml's index budgets: with max_file_size 1024, a larger Python
// file keeps its file record only and the small one is extracted. The
// bot used to index with the defaults whatever relay.yaml said.
func TestBotIndexBudgets(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	var big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&big, "def f%d():\n    return %d\n", i, i)
	}
	for rel, src := range map[string]string{"big.py": big.String(), "ok.py": "def ok():\n    return 1\n"} {
		if err := os.WriteFile(filepath.Join(wt, rel), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	storeDir := t.TempDir()
	x := &Pipeline{KeyFile: filepath.Join(t.TempDir(), "store.key"), Budgets: IndexBudgets{MaxFileSize: 1024}}
	if _, err := x.Index(t.Context(), wt, storeDir); err != nil {
		t.Fatal(err)
	}
	st, err := workspace.New(workspace.Options{Root: wt, Store: storeDir, KeyFile: x.KeyFile}).OpenStore(t.Context(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for file, want := range map[string]int{"big.py": 0, "ok.py": 1} {
		ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: file, Kinds: []graphdb.NodeKind{graphdb.KindFunction}})
		if err != nil {
			t.Fatal(err)
		}
		if len(ns) != want {
			t.Errorf("%s: %d functions, want %d", file, len(ns), want)
		}
	}
}

// TestPipelineGoProxy: relay.yaml's go_proxy reaches the bot's index
// step, so a repository requiring a module the cache lacks has the go
// command ask that proxy; without it the index step asks nobody
// (GOPROXY=off), whatever the process environment says.
func TestPipelineGoProxy(t *testing.T) {
	testutil.Need(t, "install go", "go")
	var hits atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	t.Setenv("GOPROXY", proxy.URL) // the process's own setting is never used
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOFLAGS", "-modcacherw")
	t.Setenv("GOMODCACHE", t.TempDir())
	key := filepath.Join(t.TempDir(), "store.key")
	for _, tc := range []struct {
		name, yaml string
		wantHits   bool
	}{
		{"unset", "", false},
		{"go_proxy", "go_proxy: " + proxy.URL + "\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := LoadConfig("relay.yaml", strings.NewReader("state_dir: "+t.TempDir()+"\n"+tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			testutil.WriteFile(t, root, "go.mod", "module example.com/root\n\ngo 1.22\n\nrequire example.com/missing v1.0.0\n")
			testutil.WriteFile(t, root, "root.go", "package root\n\nimport \"example.com/missing\"\n\n// Root calls the missing module.\nfunc Root() { missing.X() }\n")
			before := hits.Load()
			if _, err := mustPipeline(t, cfg, key).Index(t.Context(), root, t.TempDir()); err != nil {
				t.Fatalf("Index: %v", err)
			}
			if got := hits.Load() > before; got != tc.wantHits {
				t.Errorf("the proxy was asked: %v; want %v", got, tc.wantHits)
			}
		})
	}
}

// mustPipeline is NewPipeline of cfg with the store key in key.
func mustPipeline(t *testing.T, cfg *Config, key string) *Pipeline {
	t.Helper()
	p, err := NewPipeline(cfg, func(string) string { return "" }, key, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPipelineScopeOffline: without a model the bot's pipeline indexes a
// job's worktree into the repository's store and posts the offline report
// written from it (workspace.OfflineReport, the report relay scope writes
// without a model): the ranked files of the repository, made safe to post
// with the values of the worktree's secret-bearing files, read once.
func TestPipelineScopeOffline(t *testing.T) {
	t.Parallel()
	wt := t.TempDir()
	const value = "Hx52canaryQm83tokenValue"
	for rel, src := range map[string]string{
		"go.mod":        "module example.com/shop\n\ngo 1.22\n",
		"notify/sms.go": "package notify\n\n// SendSMS sends one SMS; a provider timeout retries it.\nfunc SendSMS(to, text string) error { return retrySend(to, text) }\n\nfunc retrySend(to, text string) error { return nil }\n",
		".env":          "SMS_TOKEN=" + value + "\n",
	} {
		testutil.WriteFile(t, wt, rel, src)
	}
	storeDir := t.TempDir()
	p := &Pipeline{KeyFile: filepath.Join(t.TempDir(), "store.key")}
	if _, err := p.Index(t.Context(), wt, storeDir); err != nil {
		t.Fatal(err)
	}
	issue := tracker.Issue{Ref: tracker.Ref{Source: tracker.GitHub, Repo: "acme/shop", Number: "7"}, Title: "SMS sent twice on a provider timeout",
		Body: "The retry of SendSMS sends the SMS again. Token for reproducing: " + value}
	rep, err := p.Scope(t.Context(), ScopeInput{Issue: issue, Root: wt, StoreDir: storeDir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Model || !strings.Contains(rep.Markdown, "notify/sms.go") {
		t.Errorf("report (model %v) does not rank notify/sms.go:\n%s", rep.Model, rep.Markdown)
	}
	if strings.Contains(rep.Markdown, value) {
		t.Errorf("the report posts the value of .env:\n%s", rep.Markdown)
	}
	// The localization kept for related issues: the offline report's, and
	// the search's that a model's report keeps.
	ws := p.workspace(wt, storeDir, nil)
	defer ws.Close()
	for name, loc := range map[string]Localization{
		"offline": rep.Localization,
		"search":  searchLocalization(t.Context(), ws, nil, issue.Text().String(), slog.New(slog.DiscardHandler)),
	} {
		if len(loc.Files) == 0 || loc.Files[0] != "notify/sms.go" || !slices.Contains(loc.Functions, "notify/sms.go:SendSMS") {
			t.Errorf("%s localization %+v: want notify/sms.go first and notify/sms.go:SendSMS", name, loc)
		}
	}
}

// TestPipelineToolHints: the tools of a bot job's agent end their texts
// with the bot's hints, which offer no command of the CLI: the bot
// indexes before every job.
func TestPipelineToolHints(t *testing.T) {
	t.Parallel()
	h := (&Pipeline{}).workspace(t.TempDir(), t.TempDir(), nil).Hints()
	if strings.Contains(h.NoIndex+h.Stale+h.SecretFiles, "relay index") || h != advice.ToolHints(advice.Operator) {
		t.Errorf("the bot's tool hints %+v offer a command", h)
	}
}
