//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tsRepo writes a small TypeScript repository.
func tsRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"tsconfig.json": `{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}`,
		"src/cart/discount.ts": "/** Applies the bulk discount to a sum in cents. */\nexport function applyDiscount(sum: number): number {\n" +
			"  if (sum > 100) {\n    return sum - 10;\n  }\n  return sum;\n}\n",
		"src/cart/cart.ts": "import { applyDiscount } from \"./discount\";\n\nexport class Cart {\n  items: number[] = [];\n" +
			"  total(): number {\n    return applyDiscount(this.items.reduce((a, b) => a + b, 0));\n  }\n}\n",
		"src/checkout.ts": "import { Cart } from \"@/cart/cart\";\n\nexport function checkout(cart: Cart): number {\n  return cart.total();\n}\n",
		"src/ui/Total.tsx": "import { checkout } from \"../checkout\";\nimport { Cart } from \"../cart/cart\";\n\n" +
			"export function Total(props: { cart: Cart }) {\n  return <b>{checkout(props.cart)}</b>;\n}\n\nexport const Page = () => <Total cart={new Cart()} />;\n",
	})
}

const tsCartDiff = `--- a/src/cart/discount.ts
+++ b/src/cart/discount.ts
@@ -2,6 +2,6 @@
 export function applyDiscount(sum: number): number {
-  if (sum > 100) {
+  if (sum >= 100) {
     return sum - 10;
   }
   return sum;
 }
`

// TestIndexTypeScript indexes a small TypeScript repository and answers
// graph callers, the graph tool's blast radius, a review of a diff and an
// offline scope on it.
func TestIndexTypeScript(t *testing.T) {
	t.Parallel()
	checkLanguage(t, langRun{
		repo:    tsRepo(t),
		indexed: []string{"TypeScript/JavaScript: 4 files", "Languages: TypeScript/JavaScript (4 files)"},
		graph: []cliWant{
			{[]string{"graph", "callers", "applyDiscount"}, "src/cart/cart.Cart.total (src/cart/cart.ts:5)"},
			{[]string{"graph", "callers", "Cart.total"}, "src/checkout.checkout (src/checkout.ts:3)"},
			{[]string{"graph", "callers", "checkout"}, "src/ui/Total.Total (src/ui/Total.tsx:4)"},
			{[]string{"graph", "callers", "Total"}, "src/ui/Total.Page (src/ui/Total.tsx:8)"},
			{[]string{"graph", "methods", "Cart"}, "src/cart/cart.Cart.total (src/cart/cart.ts:5) method"},
			{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "applyDiscount"}`}, "1 direct caller, 3 transitive callers"},
		},
		diff:   tsCartDiff,
		review: []string{"Files: `src/cart/discount.ts` (modified, +1 −1)", "Blast radius: risk", "applyDiscount", "### Direct callers", "total", "### Transitive callers", "checkout"},
		issue:  "The cart discount is applied to totals of exactly 100",
		scope:  []string{"# Context report (offline)", "src/cart/discount.ts", "applyDiscount"},
	})
}

// TestIndexNoLanguage: a repository without a file of any language relay
// indexes says so and names the languages.
func TestIndexNoLanguage(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.WriteFile(filepath.Join(repo, "README.md"), []byte("# nothing\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code == 0 || !strings.Contains(stderr, "no source file of a language relay indexes") || !strings.Contains(stderr, "TypeScript/JavaScript") {
		t.Fatalf("relay index = %d, want a failure naming the languages:\n%s\n%s", code, stdout, stderr)
	}
}
