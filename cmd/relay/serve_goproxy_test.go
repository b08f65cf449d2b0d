package main

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/serve"
)

// TestServeIndexerGoProxy: relay.yaml's go_proxy reaches the bot's index
// step, so a repository requiring a module the cache lacks has the go
// command ask that proxy; without it the index step asks nobody
// (GOPROXY=off), whatever the process environment says.
func TestServeIndexerGoProxy(t *testing.T) {
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
	g := &globals{log: slog.New(slog.DiscardHandler), getenv: os.Getenv, stderr: os.Stderr, stdout: os.Stdout}
	for _, tc := range []struct {
		name, yaml string
		wantHits   bool
	}{
		{"unset", "", false},
		{"go_proxy", "go_proxy: " + proxy.URL + "\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := serve.LoadConfig("relay.yaml", strings.NewReader("state_dir: "+t.TempDir()+"\n"+tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			root := t.TempDir()
			testutil.WriteFile(t, root, "go.mod", "module example.com/root\n\ngo 1.22\n\nrequire example.com/missing v1.0.0\n")
			testutil.WriteFile(t, root, "root.go", "package root\n\nimport \"example.com/missing\"\n\n// Root calls the missing module.\nfunc Root() { missing.X() }\n")
			before := hits.Load()
			if _, err := newServeIndexer(g, cfg).Index(t.Context(), root, t.TempDir()); err != nil {
				t.Fatalf("Index: %v", err)
			}
			if got := hits.Load() > before; got != tc.wantHits {
				t.Errorf("the proxy was asked: %v; want %v", got, tc.wantHits)
			}
		})
	}
}
