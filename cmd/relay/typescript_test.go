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
	repo := t.TempDir()
	files := map[string]string{
		"tsconfig.json": `{"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["src/*"]}}}`,
		"src/cart/discount.ts": "/** Applies the bulk discount to a sum in cents. */\nexport function applyDiscount(sum: number): number {\n" +
			"  if (sum > 100) {\n    return sum - 10;\n  }\n  return sum;\n}\n",
		"src/cart/cart.ts": "import { applyDiscount } from \"./discount\";\n\nexport class Cart {\n  items: number[] = [];\n" +
			"  total(): number {\n    return applyDiscount(this.items.reduce((a, b) => a + b, 0));\n  }\n}\n",
		"src/checkout.ts": "import { Cart } from \"@/cart/cart\";\n\nexport function checkout(cart: Cart): number {\n  return cart.total();\n}\n",
		"src/ui/Total.tsx": "import { checkout } from \"../checkout\";\nimport { Cart } from \"../cart/cart\";\n\n" +
			"export function Total(props: { cart: Cart }) {\n  return <b>{checkout(props.cart)}</b>;\n}\n\nexport const Page = () => <Total cart={new Cart()} />;\n",
	}
	for rel, data := range files {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return repo
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
	repo := tsRepo(t)
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code != 0 || !strings.Contains(stdout, "TypeScript/JavaScript: 4 files") || !strings.Contains(stdout, "Languages: TypeScript/JavaScript (4 files)") {
		t.Fatalf("relay index = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "callers", "applyDiscount"}, "src/cart/cart.Cart.total (src/cart/cart.ts:5)"},
		{[]string{"graph", "callers", "Cart.total"}, "src/checkout.checkout (src/checkout.ts:3)"},
		{[]string{"graph", "callers", "checkout"}, "src/ui/Total.Total (src/ui/Total.tsx:4)"},
		{[]string{"graph", "callers", "Total"}, "src/ui/Total.Page (src/ui/Total.tsx:8)"},
		{[]string{"graph", "methods", "Cart"}, "src/cart/cart.Cart.total (src/cart/cart.ts:5) method"},
		{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "applyDiscount"}`}, "1 direct caller, 3 transitive callers"},
	} {
		code, stdout, stderr := relay(t, "", append(tt.args, "--repo", repo)...)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("relay %s = %d, want %q in:\n%s\n%s", strings.Join(tt.args, " "), code, tt.want, stdout, stderr)
		}
	}

	code, stdout, stderr = relay(t, tsCartDiff, "--repo", repo, "review", "--diff", "-")
	if code != 0 {
		t.Fatalf("relay review = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Files: `src/cart/discount.ts` (modified, +1 −1)", "Blast radius: risk", "applyDiscount", "### Direct callers", "total", "### Transitive callers", "checkout"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("review lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = relay(t, "", "scope", "--repo", repo, "The cart discount is applied to totals of exactly 100")
	if code != 0 {
		t.Fatalf("relay scope = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"# Context report (offline)", "src/cart/discount.ts", "applyDiscount"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("offline scope lacks %q:\n%.3000s", want, stdout)
		}
	}
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
