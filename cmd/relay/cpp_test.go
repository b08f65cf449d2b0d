//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// cppRepo writes a small C++ repository: a header declaring a class whose
// methods a source file defines out of line, a function overloaded by
// argument type, and a main that calls through a typed local.
func cppRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"include/shop/discount.hpp": "#pragma once\n\nnamespace shop {\n\nclass Discount {\n public:\n" +
			"  /// Applies the bulk discount to a sum in cents.\n  static int apply(int sum);\n  static double apply(double sum);\n};\n\n}  // namespace shop\n",
		"src/discount.cc": "#include \"shop/discount.hpp\"\n\nnamespace shop {\n\nint Discount::apply(int sum) {\n" +
			"  if (sum > 100) {\n    return sum - 10;\n  }\n  return sum;\n}\n\n" +
			"double Discount::apply(double sum) { return sum * 0.9; }\n\n}  // namespace shop\n",
		"include/shop/cart.hpp": "#pragma once\n#include <vector>\n\nnamespace shop {\n\nclass Cart {\n public:\n" +
			"  int total() const;\n  void add(int cents) { items_.push_back(cents); }\n\n private:\n  std::vector<int> items_;\n};\n\n}  // namespace shop\n",
		"src/cart.cc": "#include \"shop/cart.hpp\"\n#include \"shop/discount.hpp\"\n\nnamespace shop {\n\nint Cart::total() const {\n" +
			"  int sum = 0;\n  for (int i : items_) {\n    sum += i;\n  }\n  return Discount::apply(sum);\n}\n\n}  // namespace shop\n",
		"src/checkout.cc": "#include \"shop/cart.hpp\"\n\nnamespace shop {\n\nint checkout(const Cart& cart) { return cart.total(); }\n\n}  // namespace shop\n\n" +
			"int main() {\n  auto cart = new shop::Cart();\n  cart->add(120);\n  return shop::checkout(*cart);\n}\n",
	})
}

const cppCartDiff = `--- a/src/discount.cc
+++ b/src/discount.cc
@@ -4,7 +4,7 @@
 
 int Discount::apply(int sum) {
-  if (sum > 100) {
+  if (sum >= 100) {
     return sum - 10;
   }
   return sum;
 }
`

// TestIndexCpp indexes a small C++ repository and answers graph callers
// (of an overload defined out of line), callees, methods, the graph
// tool's blast radius, a review of a diff and an offline scope on it.
func TestIndexCpp(t *testing.T) {
	t.Parallel()
	checkLanguage(t, langRun{
		repo:    cppRepo(t),
		indexed: []string{"C++: 5 files"},
		graph: []cliWant{
			{[]string{"graph", "callers", "cpp:shop::Discount::apply(int)"}, "shop::Cart::total (src/cart.cc:6)"},
			{[]string{"graph", "callers", "shop::Cart::total"}, "shop::checkout (src/checkout.cc:5)"},
			{[]string{"graph", "callees", "main"}, "shop::checkout"},
			{[]string{"graph", "methods", "shop::Cart"}, "shop::Cart::total (src/cart.cc:6) method"},
			{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "cpp:shop::Discount::apply(int)"}`}, "1 direct caller, 2 transitive callers"},
		},
		diff:   cppCartDiff,
		review: []string{"Files: `src/discount.cc` (modified, +1 −1)", "Blast radius: risk", "apply", "### Direct callers", "total", "### Transitive callers", "checkout"},
		issue:  "The bulk discount is applied to cart totals of exactly 100 cents",
		scope:  []string{"# Context report (offline)", "src/discount.cc", "apply"},
	})
}

// TestEvalDeriveCpp derives a C++ instance: the checkout is indexed in
// memory and the changed line names the method defined out of line that
// holds it (its location name: the definition's file, Class.method).
func TestEvalDeriveCpp(t *testing.T) {
	repo := cppRepo(t)
	patch := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(patch, []byte(cppCartDiff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "derive", "--repo", repo, "--diff", patch, "--id", "cart-1", "--statement", "100 gets no discount")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `{"instance_id":"cart-1","problem_statement":"100 gets no discount","gold_files":["src/discount.cc"],"gold_functions":["src/discount.cc:Discount.apply"],"gold_lines":{"src/discount.cc":[6]}}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}
