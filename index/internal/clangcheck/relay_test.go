//go:build cgo

package clangcheck

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/internal/cinclude"
)

// check indexes root with relay and compares its calls of languages with
// clang's on the commands.
func check(t *testing.T, root string, cmds []cinclude.Command, o CompareOptions, languages ...string) Result {
	res, _ := checkAll(t, root, cmds, o, languages...)
	return res
}

// checkAll is check, also returning the score over every function.
func checkAll(t *testing.T, root string, cmds []cinclude.Command, o CompareOptions, languages ...string) (Result, Score) {
	t.Helper()
	bin := needClang(t)
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	tr, err := Run(t.Context(), Options{Root: root, Clang: bin, Commands: cmds, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range tr.Errors {
		t.Logf("clang: %s", e)
	}
	r, err := LoadRelay(t.Context(), st, languages...)
	if err != nil {
		t.Fatal(err)
	}
	res := Compare(tr, r, o)
	all := Compare(tr, r, CompareOptions{}).Score
	for i, m := range res.Misses {
		if i < 40 {
			t.Logf("missed: %s", m)
		}
	}
	for i, w := range res.Wrong {
		if i < 40 {
			t.Logf("not clang's: %s", w)
		}
	}
	for i, n := range res.NoNode {
		if i < 60 {
			t.Logf("no relay node: %s", n)
		}
	}
	return res, all
}

// TestCFrontend requires the C frontend's calls on testdata/c to be
// clang's: every call, through a macro and a static inline function of a
// header, with two static functions of one name.
func TestCFrontend(t *testing.T) {
	root, cmds := fixture(t, "c", `[
 {"directory": "ROOT", "file": "dev.c", "arguments": ["cc", "-Iinclude", "-c", "dev.c"]},
 {"directory": "ROOT", "file": "main.c", "arguments": ["cc", "-Iinclude", "-c", "main.c"]}]`)
	res := check(t, root, cmds, CompareOptions{}, "c")
	t.Logf("fixture: %s", res.Score)
	if res.Precision() != 1 || res.Recall() != 1 || res.Unmatched != 0 {
		t.Errorf("fixture: %s, want precision and recall 1", res.Score)
	}
}

// TestCProject compares the C frontend with clang on the C repository
// at RELAY_CLANGCHECK_C (a checkout with a compile_commands.json at its
// root, as `bear -- make` writes it): precision >= 0.95 and recall >= 0.85
// on a sample of 400 functions (BENCHMARKS.md).
func TestCProject(t *testing.T) {
	root := os.Getenv("RELAY_CLANGCHECK_C")
	if root == "" {
		t.Skip("RELAY_CLANGCHECK_C names no C checkout with a compile_commands.json")
	}
	cmds, err := cinclude.LoadCompileDB(filepath.Join(root, cinclude.CompileDBName))
	if err != nil {
		t.Fatal(err)
	}
	res, all := checkAll(t, root, cmds, CompareOptions{Sample: 400, Seed: 1}, "c")
	t.Logf("%s, 400 sampled functions: %s", filepath.Base(root), res.Score)
	t.Logf("%s, every function: %s", filepath.Base(root), all)
	if res.Precision() < 0.95 || res.Recall() < 0.85 {
		t.Errorf("%s: %s, want precision >= 0.95 and recall >= 0.85", root, res.Score)
	}
}
