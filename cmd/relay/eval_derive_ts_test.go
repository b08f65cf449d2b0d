//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEvalDeriveTypeScript derives a TypeScript instance: the checkout is
// indexed in memory (nothing written into it) and the changed line names
// the function holding it.
func TestEvalDeriveTypeScript(t *testing.T) {
	repo := tsRepo(t)
	patch := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(patch, []byte(tsCartDiff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "derive", "--repo", repo, "--diff", patch, "--id", "cart-1", "--statement", "100 gets no discount")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `{"instance_id":"cart-1","problem_statement":"100 gets no discount","gold_files":["src/cart/discount.ts"],"gold_functions":["src/cart/discount.ts:applyDiscount"],"gold_lines":{"src/cart/discount.ts":[3]}}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
	if _, err := os.Stat(filepath.Join(repo, ".relay")); !os.IsNotExist(err) {
		t.Errorf("derive wrote into the checkout: %v", err)
	}
}
