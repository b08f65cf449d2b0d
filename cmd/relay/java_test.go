//go:build cgo

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// javaRepo writes a small Java repository.
func javaRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	files := map[string]string{
		"src/main/java/shop/cart/Discount.java": "package shop.cart;\n\npublic final class Discount {\n" +
			"    /** Applies the bulk discount to a sum in cents. */\n    public static int apply(int sum) {\n" +
			"        if (sum > 100) {\n            return sum - 10;\n        }\n        return sum;\n    }\n}\n",
		"src/main/java/shop/cart/Cart.java": "package shop.cart;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n" +
			"public class Cart {\n    private final List<Integer> items = new ArrayList<>();\n\n    public int total() {\n" +
			"        int sum = 0;\n        for (int i : items) {\n            sum += i;\n        }\n        return Discount.apply(sum);\n    }\n}\n",
		"src/main/java/shop/Checkout.java": "package shop;\n\nimport shop.cart.Cart;\n\npublic class Checkout {\n" +
			"    public int checkout(Cart cart) {\n        return cart.total();\n    }\n\n" +
			"    public static void main(String[] args) {\n        new Checkout().checkout(new Cart());\n    }\n}\n",
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

const javaCartDiff = `--- a/src/main/java/shop/cart/Discount.java
+++ b/src/main/java/shop/cart/Discount.java
@@ -5,6 +5,6 @@
     public static int apply(int sum) {
-        if (sum > 100) {
+        if (sum >= 100) {
             return sum - 10;
         }
         return sum;
     }
`

// TestIndexJava indexes a small Java repository and answers graph
// callers, the graph tool's blast radius, a review of a diff and an
// offline scope on it.
func TestIndexJava(t *testing.T) {
	t.Parallel()
	repo := javaRepo(t)
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code != 0 || !strings.Contains(stdout, "Java: 3 files") {
		t.Fatalf("relay index = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"graph", "callers", "Discount.apply"}, "shop.cart.Cart.total (src/main/java/shop/cart/Cart.java:9)"},
		{[]string{"graph", "callers", "Cart.total"}, "shop.Checkout.checkout (src/main/java/shop/Checkout.java:6)"},
		{[]string{"graph", "callees", "Checkout.main"}, "shop.Checkout.checkout"},
		{[]string{"graph", "methods", "Cart"}, "shop.cart.Cart.total (src/main/java/shop/cart/Cart.java:9) method"},
		{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "Discount.apply"}`}, "1 direct caller, 2 transitive callers"},
	} {
		code, stdout, stderr := relay(t, "", append(tt.args, "--repo", repo)...)
		if code != 0 || !strings.Contains(stdout, tt.want) {
			t.Errorf("relay %s = %d, want %q in:\n%s\n%s", strings.Join(tt.args, " "), code, tt.want, stdout, stderr)
		}
	}

	code, stdout, stderr = relay(t, javaCartDiff, "--repo", repo, "review", "--diff", "-")
	if code != 0 {
		t.Fatalf("relay review = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Files: `src/main/java/shop/cart/Discount.java` (modified, +1 −1)", "Blast radius: risk", "apply", "### Direct callers", "total", "### Transitive callers", "checkout"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("review lacks %q:\n%s", want, stdout)
		}
	}

	// Offline scope (no model) ranks the Java symbols the issue is about.
	code, stdout, stderr = relay(t, "", "scope", "--repo", repo, "The bulk discount is applied to cart totals of exactly 100 cents")
	if code != 0 {
		t.Fatalf("relay scope = %d:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"# Context report (offline)", "src/main/java/shop/cart/Discount.java", "Discount.apply"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("offline scope lacks %q:\n%.3000s", want, stdout)
		}
	}
}
