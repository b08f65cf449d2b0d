package pyrightcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// needPyright skips when Node.js or the pyright package (scripts/setup.sh)
// is missing, and fails under CI.
func needPyright(t *testing.T) {
	t.Helper()
	_, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join("node_modules", "pyright", "langserver.index.js"))
	}
	if err != nil {
		testutil.Missing(t, fmt.Sprintf("pyright not installed (%v)", err), "run scripts/setup.sh")
	}
}

func run(t *testing.T, root string, sample, incoming int, budget, reqBudget time.Duration, typeshed bool) Result {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	res, err := Check(t.Context(), st, Options{Root: root, Dir: ".", Sample: sample, Incoming: incoming, Budget: budget, RequestBudget: reqBudget, Typeshed: typeshed,
		Log: func(msg string) {
			if budget > 0 {
				t.Log(msg)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d functions (%d not prepared, out of time: %v, %d incomingCalls past the request budget)\ncallees: %v\ncallers: %v",
		res.Functions, res.Unprepared, res.OutOfTime, res.CallersCancelled, res.Callees, res.Callers)
	for _, s := range []Score{res.Callees, res.Callers} {
		for _, m := range s.Misses {
			t.Logf("miss  %s", m)
		}
		for _, w := range s.Wrong {
			t.Logf("extra %s", w)
		}
	}
	return res
}

// TestFixture compares every function of index/python's types and values
// golden repositories with Pyright, and lists the known disagreements.
func TestFixture(t *testing.T) {
	needPyright(t)
	tests := []struct {
		name string
		min  int // functions Pyright must prepare
		want []string
	}{
		// Pyright narrows v by flow (relay, flow-insensitive, leaves a name
		// bound to two classes unresolved), does not follow an alias of a
		// function (f = make_order; f()), which relay does, and names the
		// declaration of a function a decorator replaced (build is a
		// Command), where relay records no call of its body.
		{"types", 18, []string{
			"extra app/models.py:make_order <- app/use.py:values [value site]",
			"extra app/use.py:values -> app/models.py:make_order [value site]",
			"miss app/deco.py:build <- app/deco.py:use",
			"miss app/deco.py:use -> app/deco.py:build",
			"miss app/models.py:Order.pay <- app/use.py:unknown",
			"miss app/use.py:unknown -> app/models.py:Order.pay",
		}},
		// Function values: Pyright's call hierarchy names the declaration
		// the called expression's name has, so a call of a parameter, of a
		// container element or of a returned function names none; relay
		// follows the values (index/python/values.go), and every such edge is at a
		// value site (Score.ByValue). Pyright counts passing self.step as
		// an argument as a call of step from go; relay records a
		// reference there and the call in run, which calls it.
		{"values", 12, []string{
			"extra app/funcs.py:apply -> app/funcs.py:helper [value site]",
			"extra app/funcs.py:apply -> app/funcs.py:other [value site]",
			"extra app/funcs.py:apply <- app/runner.py:Runner.run [value site]",
			"extra app/funcs.py:apply_kw -> app/funcs.py:other [value site]",
			"extra app/funcs.py:dispatch -> app/funcs.py:helper [value site]",
			"extra app/funcs.py:dispatch -> app/funcs.py:other [value site]",
			"extra app/funcs.py:helper <- app/funcs.py:apply [value site]",
			"extra app/funcs.py:helper <- app/funcs.py:dispatch [value site]",
			"extra app/funcs.py:helper <- app/funcs.py:loop [value site]",
			"extra app/funcs.py:helper <- app/funcs.py:use_returned [value site]",
			"extra app/funcs.py:loop -> app/funcs.py:helper [value site]",
			"extra app/funcs.py:loop -> app/funcs.py:other [value site]",
			"extra app/funcs.py:other <- app/funcs.py:apply [value site]",
			"extra app/funcs.py:other <- app/funcs.py:apply_kw [value site]",
			"extra app/funcs.py:other <- app/funcs.py:dispatch [value site]",
			"extra app/funcs.py:other <- app/funcs.py:loop [value site]",
			"extra app/funcs.py:other <- app/runner.py:Runner.run [value site]",
			"extra app/funcs.py:use_returned -> app/funcs.py:helper [value site]",
			"extra app/runner.py:Runner.run -> app/funcs.py:apply [value site]",
			"extra app/runner.py:Runner.run -> app/funcs.py:other [value site]",
			"extra app/runner.py:Runner.run -> app/runner.py:Runner.step [value site]",
			"extra app/runner.py:Runner.step <- app/runner.py:Runner.run [value site]",
			"miss app/runner.py:Runner.step <- app/runner.py:Runner.go",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := testutil.WriteTxtar(t, filepath.Join("..", "..", "python", "testdata", tc.name+".txtar"))
			res := run(t, root, 1000, 1000, 0, 0, false)
			if res.Functions < tc.min {
				t.Errorf("Pyright prepared %d functions, want at least %d", res.Functions, tc.min)
			}
			var got []string
			for _, s := range []Score{res.Callees, res.Callers} {
				for _, m := range s.Misses {
					got = append(got, "miss "+m)
				}
				for _, w := range s.Wrong {
					got = append(got, "extra "+w)
				}
			}
			sort.Strings(got)
			if tc.name == "values" && (res.Callees.PrecisionNamed() != 1 || res.Callers.PrecisionNamed() != 1) {
				t.Errorf("relay-only edges outside value sites: callees %v, callers %v", res.Callees, res.Callers)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("differences from Pyright (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRepo compares a sample of the repository named by
// RELAY_PYRIGHTCHECK_SRC (the standard library when it is "stdlib"):
//
//	RELAY_PYRIGHTCHECK_SRC=stdlib go test ./index/internal/pyrightcheck -run Repo -v
//
// RELAY_PYRIGHTCHECK_SAMPLE (default 300) and RELAY_PYRIGHTCHECK_INCOMING
// (default 100) size the sample; RELAY_PYRIGHTCHECK_BUDGET (a duration,
// e.g. 12m) stops sampling when it has passed and scores what was done;
// RELAY_PYRIGHTCHECK_REQUEST_BUDGET (e.g. 30s) cancels an incomingCalls
// that has not answered by then and leaves that function's callers out.
// On the standard library only calls Pyright resolves from the sources
// count (Options.Typeshed). Incoming calls search every file of the
// workspace for references: over the whole library (1,790 files) every
// incomingCalls ran past a 45 s request budget, so there either use
// RELAY_PYRIGHTCHECK_INCOMING=0 or bound the workspace with
// RELAY_PYRIGHTCHECK_PACKAGES, a comma-separated list of the source's
// top-level packages and modules to copy (e.g. email,json,asyncio): the
// root then holds only those, and relay indexes the same files. Without
// test, idlelib, lib2to3, tkinter, ctypes, unittest, distutils,
// turtledemo, ensurepip and venv (489 files) 300 functions take about two
// minutes (BENCHMARKS.md has the list). The source is copied to a
// temporary directory first; it can take minutes.
func TestRepo(t *testing.T) {
	src := os.Getenv("RELAY_PYRIGHTCHECK_SRC")
	if src == "" {
		t.Skip("set RELAY_PYRIGHTCHECK_SRC to a Python repository or to stdlib")
	}
	needPyright(t)
	stdlib := src == "stdlib"
	if stdlib {
		out, err := exec.Command("python3", "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
		if err != nil {
			t.Fatalf("find the stdlib: %v", err)
		}
		src = string(out[:len(out)-1])
	}
	root := filepath.Join(t.TempDir(), "lib")
	config := copySource(t, src, root, os.Getenv("RELAY_PYRIGHTCHECK_PACKAGES"))
	if err := os.WriteFile(filepath.Join(root, "pyrightconfig.json"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	num := func(env string, def int) int {
		if n, err := strconv.Atoi(os.Getenv(env)); err == nil {
			return n
		}
		return def
	}
	budget, _ := time.ParseDuration(os.Getenv("RELAY_PYRIGHTCHECK_BUDGET"))
	reqBudget, _ := time.ParseDuration(os.Getenv("RELAY_PYRIGHTCHECK_REQUEST_BUDGET"))
	res := run(t, root, num("RELAY_PYRIGHTCHECK_SAMPLE", 300), num("RELAY_PYRIGHTCHECK_INCOMING", 100), budget, reqBudget, stdlib)
	for name, s := range map[string]Score{"callees": res.Callees, "callers": res.Callers} {
		if s.Truth+s.Relay > 0 && (s.Precision() < 0.95 || s.Recall() < 0.80) {
			t.Errorf("%s: %v, want precision ≥ 0.95 and recall ≥ 0.80", name, s)
		}
	}
}

// copySource copies src to root, or only the comma-separated top-level
// entries of src that packages names, and returns the pyrightconfig.json
// for root. Code under sys.platform checks is reachable to Pyright, as
// relay indexes it all. With packages, type checking is off: no file is
// opened, so Pyright reports no diagnostics anyway, and the setting keeps
// it from spending time on them if it would.
func copySource(t *testing.T, src, root, packages string) string {
	t.Helper()
	if packages == "" {
		if out, err := exec.Command("cp", "-r", src, root).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", src, err, out)
		}
		return `{"pythonPlatform": "All"}`
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Split(packages, ",") {
		from := filepath.Join(src, p)
		if _, err := os.Stat(from); err != nil {
			if _, err2 := os.Stat(from + ".py"); err2 != nil {
				t.Fatalf("RELAY_PYRIGHTCHECK_PACKAGES: %q is neither a package nor a module of %s: %v", p, src, err)
			}
			from += ".py"
		}
		if out, err := exec.Command("cp", "-r", from, root).CombinedOutput(); err != nil {
			t.Fatalf("copy %s: %v: %s", from, err, out)
		}
	}
	return `{"pythonPlatform": "All", "typeCheckingMode": "off"}`
}
