package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/tools"
)

// sampleRepo copies examples/sample into a temporary directory.
func sampleRepo(t testing.TB) string {
	t.Helper()
	src, err := filepath.Abs("../../examples/sample")
	if err != nil {
		t.Fatal(err)
	}
	dst := t.TempDir()
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if d.Name() == ".relay" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func assertGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, name, got)
}

func TestIndexErrors(t *testing.T) {
	t.Parallel()
	notGo := t.TempDir()
	os.WriteFile(filepath.Join(notGo, "README.txt"), []byte("hello\n"), 0o644)
	file := filepath.Join(t.TempDir(), "f.go")
	os.WriteFile(file, []byte("package f\n"), 0o644)
	tests := []struct {
		name      string
		args      []string
		code      int
		wantErr   string
		noRelayAt string
	}{
		{name: "missing repo", args: []string{"index", "--repo", "/nonexistent/relay-test"}, code: 1, wantErr: "does not exist; pass --repo DIR"},
		{name: "repo is a file", args: []string{"index", "--repo", file}, code: 1, wantErr: "is not a directory"},
		{name: "not go", args: []string{"index", "--repo", notGo}, code: 1, wantErr: "no source file of a language relay indexes", noRelayAt: notGo},
		{name: "positional arg", args: []string{"index", "--repo", notGo, "extra"}, code: 2, wantErr: "unknown command \"extra\""},
		{name: "bad flag", args: []string{"index", "--frobnicate"}, code: 2, wantErr: "unknown flag: --frobnicate"},
		{name: "bad store scheme", args: []string{"index", "--repo", notGo, "--store", "mongodb://x"}, code: 2, wantErr: "unknown store scheme"},
		{name: "arango unreachable", args: []string{"index", "--repo", notGo, "--store", "arangodb://127.0.0.1:1/relay"}, code: 1, wantErr: "cannot reach ArangoDB at http://127.0.0.1:1"},
		{name: "bad log level", args: []string{"index", "--log-level", "loud"}, code: 2, wantErr: "unknown --log-level"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := relay(t, "", tt.args...)
			if code != tt.code || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("relay %v = %d, stderr %q; want %d containing %q", tt.args, code, stderr, tt.code, tt.wantErr)
			}
			if tt.noRelayAt != "" {
				if _, err := os.Stat(filepath.Join(tt.noRelayAt, ".relay")); err == nil {
					t.Errorf("a failed first index left %s/.relay behind", tt.noRelayAt)
				}
			}
		})
	}
}

func TestIndexAndGraph(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code != 0 {
		t.Fatalf("index: %d %s", code, stderr)
	}
	for _, want := range []string{"Indexed ", "5 packages", "Nodes: ", "calls ", "implements ", "Errors: none"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("index summary lacks %q:\n%s", want, stdout)
		}
	}
	code, stdout, _ = relay(t, "", "index", "--repo", repo)
	if code != 0 || !strings.Contains(stdout, "is up to date") {
		t.Errorf("second index = %d:\n%s", code, stdout)
	}

	// Golden prose for every operation, flags before and after positionals.
	var all strings.Builder
	for _, args := range [][]string{
		{"graph", "callers", "Service.Send", "--repo", repo},
		{"--repo", repo, "graph", "callers", "retry.Do", "--depth", "3"},
		{"graph", "--repo", repo, "callees", "example.com/sample/notify.Service.Send"},
		{"graph", "callers", "notify.SMSSender.Send", "--depth", "2", "--repo", repo},
		{"graph", "implementations", "notify.Sender", "--repo", repo},
		{"graph", "implementations", "store.Reader", "--repo", repo},
		{"graph", "methods", "notify/notify.go:Service", "--repo", repo},
		{"graph", "usages", "notify.Message", "--repo", repo},
		{"graph", "inheritors", "store.Reader", "--repo", repo},
		{"graph", "blast-radius", "retry.Do", "notify.SMSSender.Send", "--repo", repo},
	} {
		code, stdout, stderr := relay(t, "", args...)
		if code != 0 {
			t.Fatalf("relay %v = %d: %s", args, code, stderr)
		}
		fmt.Fprintf(&all, "$ relay %s\n%s\n", strings.ReplaceAll(strings.Join(args, " "), repo, "REPO"), stdout)
	}
	assertGolden(t, "graph_sample.golden", all.String())

	// The same answer as the graph tool gives a model.
	code, stdout, _ = relay(t, "", "graph", "callers", "Service.Send", "--repo", repo)
	_, toolOut, _ := relay(t, "", "tool", "graph", `{"operation":"callers","target":"Service.Send"}`, "--repo", repo)
	if code != 0 || strings.TrimSpace(stdout) != strings.TrimSpace(toolOut) {
		t.Errorf("relay graph and relay tool graph differ:\n%s\n---\n%s", stdout, toolOut)
	}

	// JSON with the documented fields.
	code, stdout, stderr = relay(t, "", "graph", "callers", "Service.Send", "--json", "--repo", repo)
	if code != 0 {
		t.Fatalf("--json: %d %s", code, stderr)
	}
	var js tools.GraphJSON
	if err := json.Unmarshal([]byte(stdout), &js); err != nil {
		t.Fatalf("--json output does not decode: %v\n%s", err, stdout)
	}
	if js.Operation != "callers" || js.Target.QName != "example.com/sample/notify.Service.Send" || js.Total != len(js.Results) || js.Total == 0 {
		t.Errorf("unexpected JSON: %+v", js)
	}
	for _, r := range js.Results {
		if r.QName == "" || r.Loc == "" || r.File == "" || r.Line == 0 || r.Kind == "" || r.Relation != "calls" || r.Depth != 1 {
			t.Errorf("JSON result lacks a documented field: %+v", r)
		}
	}

	// Environment instead of flags.
	var out strings.Builder
	env := map[string]string{"RELAY_REPO": repo}
	code = run(t.Context(), []string{"graph", "callers", "retry.Do"}, strings.NewReader(""), &out, &out, func(k string) string { return env[k] })
	if code != 0 || !strings.Contains(out.String(), "notify.Service.Send") {
		t.Errorf("RELAY_REPO: %d %s", code, out.String())
	}

	errs := []struct {
		args    []string
		code    int
		wantErr string
	}{
		{[]string{"graph", "callers", "Send"}, 1, "ambiguous; 4 candidates"},
		{[]string{"graph", "callers", "NoSuchThing"}, 1, "No symbol \"NoSuchThing\""},
		{[]string{"graph", "callers", "Service.Sendd"}, 1, "No symbol"},
		{[]string{"graph", "frobnicate", "Send"}, 2, "unknown graph operation"},
		{[]string{"graph", "callers"}, 2, "graph callers needs a target: a symbol name, qualified name or path.go:Func, e.g. relay graph callers Service.Send"},
		{[]string{"graph", "blast-radius"}, 2, "graph blast-radius needs at least one target: the symbol(s) a change touches, e.g. relay graph blast-radius notify.SMSSender.Send"},
		{[]string{"graph"}, 2, "graph needs an operation and a target, e.g. relay graph callers Service.Send"},
		{[]string{"graph", "frobnicate"}, 2, "unknown graph operation"},
		{[]string{"graph", "callers", "a", "b"}, 2, "exactly one target"},
		{[]string{"graph", "callers", "retry.Do", "--depth", "9"}, 2, "out of range"},
		{[]string{"graph", "blast-radius", "retry.Do", "Nope"}, 1, "No symbol"},
		// An empty target (an empty shell variable) read "No symbol \"\""
		// (blast-radius) or the model's JSON example (exit 1).
		{[]string{"graph", "callers", ""}, 2, "graph callers: a target is empty; give a symbol name, qualified name or path.go:Func, e.g. relay graph callers Service.Send"},
		{[]string{"graph", "blast-radius", "retry.Do", " "}, 2, "graph blast-radius: a target is empty"},
	}
	for _, e := range errs {
		args := append(e.args, "--repo", repo)
		code, _, stderr := relay(t, "", args...)
		if code != e.code || !strings.Contains(stderr, e.wantErr) {
			t.Errorf("relay %v = %d %q; want %d containing %q", e.args, code, stderr, e.code, e.wantErr)
		}
	}
}

func TestGraphWithoutIndex(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	code, _, stderr := relay(t, "", "graph", "callers", "retry.Do", "--repo", repo)
	if code != 1 || !strings.Contains(stderr, "run `relay index") {
		t.Errorf("graph without index = %d %q", code, stderr)
	}
}

func TestIndexStoreLocked(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	if code, _, stderr := relay(t, "", "index", "--repo", repo); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	st, err := embedded.Open(embedded.DefaultDir(repo), embedded.Options{Key: testStoreKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tx, err := st.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	os.WriteFile(filepath.Join(repo, "notify", "extra.go"), []byte("package notify\n\nfunc Extra() {}\n"), 0o644)
	code, _, stderr := relay(t, "", "index", "--repo", repo)
	if code != 1 || !strings.Contains(stderr, "locked") {
		t.Errorf("index while another writer holds the store = %d %q, want a lock error", code, stderr)
	}
	// Readers are not blocked by the writer.
	if code, _, stderr := relay(t, "", "graph", "callers", "retry.Do", "--repo", repo); code != 0 {
		t.Errorf("graph while a writer is open = %d %q", code, stderr)
	}
}

// TestIndexKilled kills `relay index` with SIGKILL in the middle of a large
// re-index and checks the previous graph is intact and the next run recovers.
func TestIndexKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds relay and indexes a generated module")
	}
	t.Parallel()
	repo := sampleRepo(t)
	bin := filepath.Join(t.TempDir(), "relay")
	if out, err := exec.CommandContext(t.Context(), "go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build relay: %v\n%s", err, out)
	}
	relayBin := func(args ...string) (string, error) {
		out, err := exec.CommandContext(t.Context(), bin, append(args, "--repo", repo)...).CombinedOutput()
		return string(out), err
	}
	if out, err := relayBin("index"); err != nil {
		t.Fatalf("index: %v\n%s", err, out)
	}
	before, err := relayBin("graph", "callers", "retry.Do", "--depth", "3")
	if err != nil {
		t.Fatalf("graph: %v\n%s", err, before)
	}
	// Grow the repository so the next run takes a while: 120 files of 60
	// functions calling each other and retry.Do.
	for f := 0; f < 120; f++ {
		var b strings.Builder
		fmt.Fprintf(&b, "package gen\n\nimport \"example.com/sample/internal/retry\"\nimport \"context\"\n\n")
		for i := 0; i < 60; i++ {
			fmt.Fprintf(&b, "func F%d_%d() error { F%d_%d(); return retry.Do(context.Background(), retry.Policy{}, func() error { return nil }) }\n", f, i, f, (i+1)%60)
		}
		os.MkdirAll(filepath.Join(repo, "gen"), 0o755)
		os.WriteFile(filepath.Join(repo, "gen", fmt.Sprintf("gen%d.go", f)), []byte(b.String()), 0o644)
	}
	// Kill at several points of the run; each time the store must hold
	// either the old graph or (a kill after the commit landed) the new one.
	type kill struct {
		phase string
		delay time.Duration
	}
	var seen []string
	landed := 0
	for _, k := range []kill{{"check", 0}, {"check", 150 * time.Millisecond}, {"check", 400 * time.Millisecond}, {"commit", 0}} {
		cmd := exec.CommandContext(t.Context(), bin, "index", "--repo", repo)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "index: "+k.phase) {
				break
			}
		}
		time.Sleep(k.delay)
		cmd.Process.Signal(syscall.SIGKILL)
		go func() {
			for sc.Scan() {
			}
		}()
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			landed++
		} else if err != nil {
			t.Fatalf("index run ended with %v", err)
		}
		after, err := relayBin("graph", "callers", "retry.Do", "--depth", "3")
		if err != nil {
			t.Fatalf("graph after kill -9 at %s+%s: %v\n%s", k.phase, k.delay, err, after)
		}
		seen = append(seen, after)
	}
	if landed == 0 {
		t.Fatal("every index run finished before SIGKILL; the test needs a larger repository")
	}
	out, err := relayBin("index")
	if err != nil {
		t.Fatalf("index after kill: %v\n%s", err, out)
	}
	final, err := relayBin("graph", "callers", "retry.Do", "--depth", "3")
	if err != nil || !strings.Contains(final, "gen.F119_59") {
		t.Fatalf("index after kill did not pick up the new files (err %v):\n%.2000s", err, final)
	}
	for i, got := range seen {
		if got != before && got != final {
			t.Errorf("after kill %d the graph is neither the old nor the new one:\n%.3000s", i, got)
		}
	}
	t.Logf("%d of %d kills landed mid-run", landed, len(seen))
}

// TestIndexRebuildsUnusableStore: a graph file relay cannot read (corrupt,
// another schema version) is rebuilt by relay index; queries say what to do.
func TestIndexRebuildsUnusableStore(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	dir := filepath.Join(repo, ".relay")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "graph.db"), []byte(strings.Repeat("garbage ", 1000)), 0o644)
	code, _, stderr := relay(t, "", "graph", "callers", "retry.Do", "--repo", repo)
	if code != 1 || !strings.Contains(stderr, "run `relay index` to rebuild it") {
		t.Errorf("graph on a corrupt store = %d %q", code, stderr)
	}
	if code, _, stderr := relay(t, "", "index", "--repo", repo); code != 0 {
		t.Fatalf("index over a corrupt store = %d %s", code, stderr)
	}
	if code, out, stderr := relay(t, "", "graph", "callers", "retry.Do", "--repo", repo); code != 0 || !strings.Contains(out, "Service.Send") {
		t.Errorf("graph after rebuild = %d %s %s", code, out, stderr)
	}
}

// TestIndexSaysNoModule: a copy of a Go package without a go.mod (net/http
// copied out of GOROOT) was indexed with "Errors: none" and not one call;
// relay index now says how many files have no module and what to do.
func TestIndexSaysNoModule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, body := range map[string]string{"a.go": "package a\n\nfunc A() { B() }\n", "b.go": "package a\n\nfunc B() {}\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := "Go: 2 files outside every module (no go.mod above them) are indexed by syntax alone: no calls, types or implementations; add a go.mod (go mod init) to type-check them."
	for _, step := range []string{"first", "unchanged"} {
		code, stdout, stderr := relay(t, "", "index", "--repo", root)
		if code != 0 || !strings.Contains(stdout, want) {
			t.Errorf("%s run: exit %d, stdout lacks %q:\n%s\n%s", step, code, want, stdout, stderr)
		}
	}
}
