package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestIndexBudgetFlags: --max-file-size and --max-depth reach the indexer,
// which lists the files they kept from being parsed and extracted; a run
// with the defaults indexes them.
func TestIndexBudgetFlags(t *testing.T) {
	t.Parallel()
	var big strings.Builder
	for i := range 100 {
		fmt.Fprintf(&big, "def f%d():\n    return %d\n", i, i)
	}
	repo := writeRepo(t, map[string]string{
		"big.py":  big.String(),
		"deep.py": "x = " + strings.Repeat("(", 100) + "1" + strings.Repeat(")", 100) + "\n",
		"ok.py":   "def ok():\n    return 1\n",
	})
	code, stdout, stderr := relay(t, "", "index", "--repo", repo, "--max-file-size", "1024", "--max-depth", "50")
	if code != 0 {
		t.Fatalf("relay index = %d: %s", code, stderr)
	}
	for _, want := range []string{
		"big.py: not parsed: 2 KiB is over the 1 KiB file-size limit (--max-file-size)",
		"deep.py: not extracted: nesting too deep: more than 50 syntax levels",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if code, stdout, stderr = relay(t, "", "index", "--repo", repo); code != 0 {
		t.Fatalf("relay index = %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "big.py") || strings.Contains(stdout, "deep.py") {
		t.Errorf("with the default budgets the files are still listed:\n%s", stdout)
	}
	if !strings.Contains(stdout, "function 101") { // big.py's 100 and ok
		t.Errorf("with the default budgets big.py's functions are not indexed:\n%s", stdout)
	}
}
