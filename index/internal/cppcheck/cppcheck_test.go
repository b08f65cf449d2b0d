package cppcheck

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/internal/cinclude"
	"github.com/relayhq/relay/index/internal/clangcheck"
	"github.com/relayhq/relay/internal/testutil"
)

// needClang returns the clang binary, skipping the test when it is
// missing (failing under CI=true, where scripts/setup.sh installs it).
func needClang(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("clang")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("clang is required under CI (run scripts/setup.sh): %v", err)
		}
		t.Skipf("no clang: %v", err)
	}
	return p
}

// check indexes root with relay, runs clang over cmds and scores relay's
// C++ calls against clang's.
func check(t *testing.T, root, bin string, cmds []cinclude.Command, sample int) clangcheck.Result {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("relay indexed %d files in %s", sum.Files, time.Since(start).Round(time.Millisecond))
	truth := clangTruth(t, root, bin, cmds)
	normalize(truth)
	rel, err := clangcheck.LoadRelay(t.Context(), st, "cpp")
	if err != nil {
		t.Fatal(err)
	}
	res := clangcheck.Compare(truth, rel, clangcheck.CompareOptions{Sample: sample, Seed: 1})
	show := 60 // differences logged of each sort (RELAY_CPPCHECK_SHOW)
	if n, err := strconv.Atoi(os.Getenv("RELAY_CPPCHECK_SHOW")); err == nil {
		show = n
	}
	for i, m := range res.Misses {
		if i < show {
			t.Logf("missed: %s", m)
		}
	}
	for i, w := range res.Wrong {
		if i < show {
			t.Logf("not clang's: %s", w)
		}
	}
	for i, n := range res.NoNode {
		if i < show {
			t.Logf("no node: %s", n)
		}
	}
	t.Logf("%s", res.Score)
	return res
}

// clangTruth runs clang over cmds; with RELAY_CPPCHECK_TRUTH set, it
// reads the truth from that file when it exists and writes it there
// otherwise (clang takes minutes on a real project; relay seconds).
func clangTruth(t *testing.T, root, bin string, cmds []cinclude.Command) *clangcheck.Truth {
	t.Helper()
	cache := os.Getenv("RELAY_CPPCHECK_TRUTH")
	if data, err := os.ReadFile(cache); cache != "" && err == nil {
		var tr clangcheck.Truth
		if err := json.Unmarshal(data, &tr); err != nil {
			t.Fatalf("read %s: %v", cache, err)
		}
		return &tr
	}
	start := time.Now()
	truth, err := clangcheck.Run(t.Context(), clangcheck.Options{Root: root, Clang: bin, Commands: cmds, Workers: 2, Extra: []string{"-Wno-everything"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clang read %d units in %s (%d failed)", len(cmds)-len(truth.Errors), time.Since(start).Round(time.Millisecond), len(truth.Errors))
	for _, e := range truth.Errors {
		t.Logf("clang: %s", firstLine(e))
	}
	if cache != "" {
		data, err := json.Marshal(truth)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cache, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return truth
}

// normalize names the constructors of class templates as relay does:
// clang's dump names basic_string_view<Char>'s constructor
// "basic_string_view<Char>", relay the constructor's name,
// basic_string_view.
func normalize(tr *clangcheck.Truth) {
	fix := func(f *clangcheck.Func) {
		if i := strings.IndexByte(f.Name, '<'); i > 0 && !strings.HasPrefix(f.Name, "operator") {
			f.Name = f.Name[:i]
		}
	}
	for i := range tr.Defs {
		fix(&tr.Defs[i])
	}
	for i := range tr.Edges {
		e := &tr.Edges[i]
		fix(&e.Caller)
		fix(&e.Callee)
		for k := range e.Decls {
			fix(&e.Decls[k])
		}
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// TestFixture compiles testdata/fixture.txtar with clang and requires
// relay's calls to match clang's: precision 1 and recall at least 0.9 on
// a repository of the constructs the frontend resolves (namespaces,
// overloads, out-of-line methods, virtual calls, templates, auto, this).
func TestFixture(t *testing.T) {
	bin := needClang(t)
	root := testutil.WriteTxtar(t, filepath.Join("testdata", "fixture.txtar"))
	var db strings.Builder
	db.WriteString("[")
	for i, f := range []string{"src/shape.cc", "src/log.cc", "src/main.cc"} {
		if i > 0 {
			db.WriteString(",")
		}
		db.WriteString(`{"directory": ` + strconv.Quote(root) + `, "file": "` + f + `", "arguments": ["c++", "-std=c++17", "-Iinclude", "-c", "` + f + `"]}`)
	}
	db.WriteString("]")
	cmds, err := cinclude.ParseCompileDB([]byte(db.String()), root)
	if err != nil {
		t.Fatal(err)
	}
	res := check(t, root, bin, cmds, 0)
	if res.Truth < 20 {
		t.Fatalf("only %d callees in the truth: the fixture is too small to measure", res.Truth)
	}
	if res.Precision() < 1 || res.Recall() < 0.9 {
		t.Errorf("precision %.3f (want 1), recall %.3f (want >= 0.9)", res.Precision(), res.Recall())
	}
}

// TestRepo measures a real C++ project: RELAY_CPPCHECK_REPO is its
// checkout, with its compile_commands.json at the root or in build/
// (fmt: cmake -S . -B build -DCMAKE_EXPORT_COMPILE_COMMANDS=ON);
// RELAY_CPPCHECK_UNITS, when set, keeps the translation units under
// those comma-separated folders. It requires precision >= 0.95 and
// recall >= 0.85 over the calls whose callee lies in the repository.
func TestRepo(t *testing.T) {
	root := os.Getenv("RELAY_CPPCHECK_REPO")
	if root == "" {
		t.Skip("set RELAY_CPPCHECK_REPO to a C++ checkout with a compile_commands.json (see BENCHMARKS.md)")
	}
	bin := needClang(t)
	db := filepath.Join(root, "compile_commands.json")
	if _, err := os.Stat(db); err != nil {
		db = filepath.Join(root, "build", "compile_commands.json")
	}
	cmds, err := cinclude.LoadCompileDB(db)
	if err != nil {
		t.Fatal(err)
	}
	if units := os.Getenv("RELAY_CPPCHECK_UNITS"); units != "" {
		var keep []cinclude.Command
		for _, c := range cmds {
			rel, err := filepath.Rel(root, c.File)
			if err != nil {
				continue
			}
			for _, u := range strings.Split(units, ",") {
				if strings.HasPrefix(filepath.ToSlash(rel), strings.TrimSuffix(u, "/")+"/") {
					keep = append(keep, c)
					break
				}
			}
		}
		cmds = keep
	}
	res := check(t, root, bin, cmds, 0)
	if res.Precision() < 0.95 || res.Recall() < 0.85 {
		t.Errorf("precision %.3f (want >= 0.95), recall %.3f (want >= 0.85)", res.Precision(), res.Recall())
	}
}
