package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestEvalRealGoProxy: relay eval real --go-proxy reaches the index step
// of each checkout, as relay index --go-proxy does; without it the go
// command asks no proxy.
func TestEvalRealGoProxy(t *testing.T) {
	testutil.Need(t, "install git", "git")
	testutil.Need(t, "install go", "go")
	var hits atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer proxy.Close()
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOMODCACHE", t.TempDir())
	repo := t.TempDir()
	testutil.WriteFile(t, repo, "go.mod", "module example.com/root\n\ngo 1.22\n\nrequire example.com/missing v1.0.0\n")
	testutil.WriteFile(t, repo, "root.go", "package root\n\nimport \"example.com/missing\"\n\n// Root calls the missing module.\nfunc Root() { missing.X() }\n")
	gitRun(t, repo, "init", "-q", "-b", "main")
	gitRun(t, repo, "add", "-A")
	gitRun(t, repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "base")
	set := t.TempDir()
	gitRun(t, repo, "bundle", "create", "-q", filepath.Join(set, "o__root.bundle"), "main")
	patch := "--- a/root.go\n+++ b/root.go\n@@ -5,2 +5,2 @@\n // Root calls the missing module.\n-func Root() { missing.X() }\n+func Root() { missing.Y() }\n"
	line, err := json.Marshal(map[string]any{"instance_id": "root-1", "repo": "o/root", "bundle": "o__root.bundle", "ref": "main",
		"problem_statement": "Root calls the wrong function of missing", "gold_files": []string{"root.go"}, "patch": patch})
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, set, "instances.jsonl", string(line)+"\n")
	for _, tc := range []struct {
		name     string
		args     []string
		wantHits bool
	}{
		{"off", nil, false},
		{"go-proxy", []string{"--go-proxy", proxy.URL}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := hits.Load()
			code, _, stderr := relay(t, "", append([]string{"eval", "real", "--set", set, "--cache", t.TempDir()}, tc.args...)...)
			if code != 0 {
				t.Fatalf("eval real: exit %d: %s", code, stderr)
			}
			if got := hits.Load() > before; got != tc.wantHits {
				t.Errorf("the proxy was asked: %v; want %v", got, tc.wantHits)
			}
		})
	}
}
