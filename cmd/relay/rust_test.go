//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// rustRepo writes a small Cargo package.
func rustRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"Cargo.toml": "[package]\nname = \"shop\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
		"src/lib.rs": "pub mod cart;\npub mod checkout;\n",
		"src/cart.rs": "/// Applies the bulk discount to a sum in cents.\npub fn apply_discount(sum: u32) -> u32 {\n" +
			"    if sum > 100 {\n        return sum - 10;\n    }\n    sum\n}\n\n" +
			"pub struct Cart {\n    items: Vec<u32>,\n}\n\nimpl Cart {\n    pub fn total(&self) -> u32 {\n" +
			"        let sum: u32 = self.items.iter().sum();\n        apply_discount(sum)\n    }\n}\n",
		"src/checkout.rs": "use crate::cart::Cart;\n\npub fn checkout(cart: &Cart) -> u32 {\n    cart.total()\n}\n",
		"src/main.rs":     "use shop::cart::Cart;\n\nfn main() {\n    let cart: Cart = todo!();\n    shop::checkout::checkout(&cart);\n}\n",
	})
}

const rustCartDiff = `--- a/src/cart.rs
+++ b/src/cart.rs
@@ -1,6 +1,6 @@
 /// Applies the bulk discount to a sum in cents.
 pub fn apply_discount(sum: u32) -> u32 {
-    if sum > 100 {
+    if sum >= 100 {
         return sum - 10;
     }
     sum
`

// TestIndexRust indexes a small Rust package and answers graph callers,
// the graph tool's blast radius, a review of a diff and an offline scope
// on it.
func TestIndexRust(t *testing.T) {
	t.Parallel()
	checkLanguage(t, langRun{
		repo:    rustRepo(t),
		indexed: []string{"Rust: 4 files"},
		graph: []cliWant{
			{[]string{"graph", "callers", "apply_discount"}, "shop::cart::Cart::total (src/cart.rs:14)"},
			{[]string{"graph", "callers", "src/cart.rs:Cart.total"}, "shop::checkout::checkout (src/checkout.rs:3)"},
			{[]string{"graph", "callees", "shop-bin::main"}, "shop::checkout::checkout"},
			{[]string{"graph", "methods", "shop::cart::Cart"}, "shop::cart::Cart::total (src/cart.rs:14) method"},
			{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "apply_discount"}`}, "1 direct caller, 2 transitive callers"},
		},
		diff:   rustCartDiff,
		review: []string{"Files: `src/cart.rs` (modified, +1 −1)", "Blast radius: risk", "apply_discount", "### Direct callers", "total", "### Transitive callers", "checkout"},
		issue:  "The bulk discount is applied to cart totals of exactly 100 cents",
		scope:  []string{"# Context report (offline)", "src/cart.rs", "apply_discount"},
	})
}

// TestEvalDeriveRust derives a Rust instance: the changed line names the
// function holding it by its location name.
func TestEvalDeriveRust(t *testing.T) {
	repo := rustRepo(t)
	patch := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(patch, []byte(rustCartDiff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "derive", "--repo", repo, "--diff", patch, "--id", "cart-1", "--statement", "100 gets no discount")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `{"instance_id":"cart-1","problem_statement":"100 gets no discount","gold_files":["src/cart.rs"],"gold_functions":["src/cart.rs:apply_discount"],"gold_lines":{"src/cart.rs":[3]}}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}
