//go:build cgo

package main

import "testing"

// javaRepo writes a small Java repository.
func javaRepo(t *testing.T) string {
	t.Helper()
	return writeRepo(t, map[string]string{
		"src/main/java/shop/cart/Discount.java": "package shop.cart;\n\npublic final class Discount {\n" +
			"    /** Applies the bulk discount to a sum in cents. */\n    public static int apply(int sum) {\n" +
			"        if (sum > 100) {\n            return sum - 10;\n        }\n        return sum;\n    }\n}\n",
		"src/main/java/shop/cart/Cart.java": "package shop.cart;\n\nimport java.util.ArrayList;\nimport java.util.List;\n\n" +
			"public class Cart {\n    private final List<Integer> items = new ArrayList<>();\n\n    public int total() {\n" +
			"        int sum = 0;\n        for (int i : items) {\n            sum += i;\n        }\n        return Discount.apply(sum);\n    }\n}\n",
		"src/main/java/shop/Checkout.java": "package shop;\n\nimport shop.cart.Cart;\n\npublic class Checkout {\n" +
			"    public int checkout(Cart cart) {\n        return cart.total();\n    }\n\n" +
			"    public static void main(String[] args) {\n        new Checkout().checkout(new Cart());\n    }\n}\n",
	})
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
	checkLanguage(t, langRun{
		repo:    javaRepo(t),
		indexed: []string{"Java: 3 files"},
		graph: []cliWant{
			{[]string{"graph", "callers", "Discount.apply"}, "shop.cart.Cart.total (src/main/java/shop/cart/Cart.java:9)"},
			{[]string{"graph", "callers", "Cart.total"}, "shop.Checkout.checkout (src/main/java/shop/Checkout.java:6)"},
			{[]string{"graph", "callees", "Checkout.main"}, "shop.Checkout.checkout"},
			{[]string{"graph", "methods", "Cart"}, "shop.cart.Cart.total (src/main/java/shop/cart/Cart.java:9) method"},
			{[]string{"tool", "graph", `{"operation": "blast_radius", "target": "Discount.apply"}`}, "1 direct caller, 2 transitive callers"},
		},
		diff:   javaCartDiff,
		review: []string{"Files: `src/main/java/shop/cart/Discount.java` (modified, +1 −1)", "Blast radius: risk", "apply", "### Direct callers", "total", "### Transitive callers", "checkout"},
		issue:  "The bulk discount is applied to cart totals of exactly 100 cents",
		scope:  []string{"# Context report (offline)", "src/main/java/shop/cart/Discount.java", "Discount.apply"},
	})
}
