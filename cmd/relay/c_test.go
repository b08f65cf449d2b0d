//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"testing"
)

// cRepo writes a small C repository: a header under include/, a driver
// table assigning a function to a function-pointer field, a macro.
func cRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"include/shop/cart.h": "#ifndef CART_H\n#define CART_H\n\nstruct pricing {\n\tint (*discount)(int sum);\n};\n\n" +
			"#define CART_TOTAL(c) cart_total(c)\n\nint discount_apply(int sum);\nint cart_total(const int *items);\n\n#endif\n",
		"src/discount.c": "#include \"shop/cart.h\"\n\n/* Applies the bulk discount to a sum in cents. */\nint discount_apply(int sum)\n{\n" +
			"\tif (sum > 100)\n\t\treturn sum - 10;\n\treturn sum;\n}\n\nconst struct pricing bulk = { .discount = discount_apply };\n",
		"src/cart.c": "#include \"shop/cart.h\"\n\nextern const struct pricing bulk;\n\nint cart_total(const int *items)\n{\n" +
			"\tint sum = 0;\n\tfor (; *items; items++)\n\t\tsum += *items;\n\treturn discount_apply(sum);\n}\n",
		"src/checkout.c": "#include \"shop/cart.h\"\n\nint checkout(const int *items, const struct pricing *p)\n{\n" +
			"\treturn p->discount(CART_TOTAL(items));\n}\n\nint main(void)\n{\n\tstatic const int items[] = {1, 2, 0};\n\treturn checkout(items, 0);\n}\n",
		"CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(shop C)\ninclude_directories(include)\nadd_executable(shop src/cart.c src/discount.c src/checkout.c)\n",
	})
}

const cCartDiff = `--- a/src/discount.c
+++ b/src/discount.c
@@ -4,6 +4,6 @@
 int discount_apply(int sum)
 {
-	if (sum > 100)
+	if (sum >= 100)
 		return sum - 10;
 	return sum;
 }
`

// TestIndexC indexes a small C repository and answers graph callers
// (through a macro and a function-pointer field), the graph tool's blast
// radius, a review of a diff and an offline scope on it.
func TestIndexC(t *testing.T) {
	t.Parallel()
	checkLanguage(t, langRun{
		repo:    cRepo(t),
		indexed: []string{"C: 4 files"},
		graph: []cliWant{
			{[]string{"graph", "callers", "discount_apply"}, "cart_total (src/cart.c:5)"},
			{[]string{"graph", "callers", "discount_apply"}, "checkout (src/checkout.c:3)"},
			{[]string{"graph", "callers", "cart_total"}, "checkout (src/checkout.c:3)"},
			{[]string{"graph", "callees", "main"}, "checkout"},
			{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "discount_apply"}`}, "2 direct callers, 1 transitive caller"},
		},
		diff:   cCartDiff,
		review: []string{"Files: `src/discount.c` (modified, +1 −1)", "Blast radius: risk", "discount_apply", "### Direct callers", "cart_total", "checkout"},
		issue:  "The bulk discount is applied to cart totals of exactly 100 cents",
		scope:  []string{"# Context report (offline)", "src/discount.c", "discount_apply"},
	})
}

// TestEvalDeriveC derives a C instance: the changed line names the
// function holding it.
func TestEvalDeriveC(t *testing.T) {
	repo := cRepo(t)
	patch := filepath.Join(t.TempDir(), "fix.diff")
	if err := os.WriteFile(patch, []byte(cCartDiff), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "eval", "derive", "--repo", repo, "--diff", patch, "--id", "cart-1", "--statement", "100 gets no discount")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	want := `{"instance_id":"cart-1","problem_statement":"100 gets no discount","gold_files":["src/discount.c"],"gold_functions":["src/discount.c:discount_apply"],"gold_lines":{"src/discount.c":[6]}}` + "\n"
	if stdout != want {
		t.Errorf("stdout:\n%s\nwant:\n%s", stdout, want)
	}
}
