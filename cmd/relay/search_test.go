package main

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// retrievalRepo writes a small module with code, docs and config, and
// indexes it with relay index.
func retrievalRepo(t *testing.T) string {
	t.Helper()
	root := writeRepo(t, map[string]string{
		"go.mod": "module example.com/shop\n\ngo 1.22\n",
		"cart/cart.go": `package cart

import "errors"

// ErrEmpty is returned when checking out an empty cart (code 0x7c01).
var ErrEmpty = errors.New("cart is empty")

// Cart holds line items.
type Cart struct{ items []int }

// Add puts an item into the cart.
func (c *Cart) Add(price int) { c.items = append(c.items, price) }

// Total sums the prices and applies the discount.
func (c *Cart) Total() int {
	sum := 0
	for _, p := range c.items {
		sum += p
	}
	return applyDiscount(sum)
}

// applyDiscount takes ten percent off totals above one hundred.
func applyDiscount(sum int) int {
	if sum > 100 {
		return sum * 9 / 10
	}
	return sum
}
`,
		"cart/checkout.go": `package cart

// Checkout charges the cart total.
func Checkout(c *Cart) (int, error) {
	if len(c.items) == 0 {
		return 0, ErrEmpty
	}
	return c.Total(), nil
}
`,
		"README.md":   "# Shop\n\n## Discounts\n\nOrders above one hundred get ten percent off.\n",
		"config.yaml": "currency: EUR\ndiscount_threshold: 100\ndiscount_percent: 10\n",
	})
	if code, _, stderr := relay(t, "", "--repo", root, "index"); code != 0 {
		t.Fatalf("relay index: exit %d: %s", code, stderr)
	}
	return root
}

func TestSearchCommand(t *testing.T) {
	root := retrievalRepo(t)
	// Without a retrieval index (a repository indexed before retrieval
	// existed), the first search builds one.
	if err := os.Remove(filepath.Join(root, ".relay", "retrieve.idx")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		args      []string
		code      int
		stdoutHas []string
		stderrHas string
	}{
		{"words", []string{"search", "ten percent discount on large orders"}, 0,
			[]string{"(lexical search)", "1. README.md:3 section Discounts", "2. cart/cart.go:24 function cart/cart.go:applyDiscount", "cart/cart.go:24: func applyDiscount(sum int) int {"}, ""},
		{"identifier fast path", []string{"search", "Checkout"}, 0, []string{"(exact search)", "cart/checkout.go:4 function cart/checkout.go:Checkout — symbol named Checkout"}, ""},
		{"hex code", []string{"search", "0x7c01"}, 0, []string{"exact match of code 0x7c01", "cart/cart.go"}, ""},
		{"filters", []string{"search", "--lang", "markdown", "discount"}, 0, []string{"1. README.md:3 section Discounts"}, ""},
		{"kind and limit", []string{"search", "--kind", "method", "--limit", "1", "cart total"}, 0, []string{"1 result(s)", "Cart.Total"}, ""},
		{"expand", []string{"search", "--expand", "--limit", "1", "sum prices apply discount total"}, 0, []string{"called by:", "calls:"}, ""},
		{"fallback note", []string{"search", "--path", "cart/*.yaml", "discount"}, 0, []string{"note: nothing matched path \"cart/*.yaml\"; relaxed it to folder \"cart\""}, ""},
		{"bad kind", []string{"search", "--kind", "klass", "x"}, 2, nil, "unknown kind \"klass\""},
		{"bad limit", []string{"search", "--limit", "0", "x"}, 2, nil, "--limit 0"},
		{"negative limit", []string{"search", "--limit", "-5", "x"}, 2, nil, "--limit -5: want a positive number"},
		{"limit above 100", []string{"search", "--limit", "500", "x"}, 2, nil, "--limit 500: at most 100"},
		{"limit of 100", []string{"search", "--limit", "100", "cart total"}, 0, []string{"Cart.Total"}, ""},
		{"no query", []string{"search"}, 2, nil, "search needs a query"},
		{"embed model without endpoint", []string{"search", "--embed-model", "m", "x"}, 2, nil, "needs an endpoint"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := relay(t, "", append([]string{"--repo", root}, tt.args...)...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tt.code, stdout, stderr)
			}
			for _, want := range tt.stdoutHas {
				if !strings.Contains(stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, stdout)
				}
			}
			if !strings.Contains(stderr, tt.stderrHas) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderrHas, stderr)
			}
			if i == 0 && !strings.Contains(stderr, "building it now") {
				t.Errorf("first search did not build the retrieval index: %s", stderr)
			}
		})
	}
	code, stdout, stderr := relay(t, "", "--repo", root, "search", "--json", "checkout empty cart")
	if code != 0 {
		t.Fatalf("json: exit %d: %s", code, stderr)
	}
	var res struct {
		Mode string `json:"mode"`
		Hits []struct {
			Path    string   `json:"path"`
			Loc     string   `json:"loc"`
			Why     []string `json:"why"`
			Snippet string   `json:"snippet"`
		} `json:"hits"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("json output: %v\n%s", err, stdout)
	}
	if res.Mode != "lexical" || len(res.Hits) == 0 || res.Hits[0].Loc != "cart/checkout.go:Checkout" || len(res.Hits[0].Why) == 0 {
		t.Errorf("json result: %+v", res)
	}
}

// TestDamagedSearchIndex is issue 9's probe 12 for the search index: a
// damaged index (gob: bad data, empty, truncated, a flipped bit) makes
// search, offline scope and review --depth deep fail with an error that
// names it and says to run relay index; an index of an older format is
// rebuilt on first use; relay index rebuilds every one of them.
func TestDamagedSearchIndex(t *testing.T) {
	t.Parallel()
	var oldFormat bytes.Buffer
	if err := gob.NewEncoder(&oldFormat).Encode(diskIndex{Version: 6}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		corrupt func([]byte) []byte
		stale   bool // older format: rebuilt on demand, not an error
	}{
		{"gob: bad data", func([]byte) []byte { return bytes.Repeat([]byte{0xff, 0x81, 0x03}, 300) }, false},
		{"zero length", func([]byte) []byte { return nil }, false},
		{"truncated", func(d []byte) []byte { return d[:len(d)/3] }, false},
		{"bit flip", func(d []byte) []byte { d[len(d)-100] ^= 4; return d }, false},
		{"older format", func([]byte) []byte { return oldFormat.Bytes() }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := retrievalRepo(t)
			idx := filepath.Join(root, ".relay", "retrieve.idx")
			data, err := os.ReadFile(idx)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(idx, tt.corrupt(data), 0o600); err != nil {
				t.Fatal(err)
			}
			want := "the search index at " + idx + " is damaged"
			const advice = "run `relay index` to rebuild it"
			for i, args := range [][]string{
				{"search", "discount"},
				{"scope", "discount on large orders"},
				{"review", "--diff", "-", "--depth", "deep"},
			} {
				code, stdout, stderr := relay(t, cartDiff, append([]string{"--repo", root}, args...)...)
				switch {
				case tt.stale && code != 0:
					t.Errorf("%s over an older index: exit %d:\n%.500s\n%s", args[0], code, stdout, stderr)
				case tt.stale && i == 0 && (!strings.Contains(stderr, `"problem":"was written by an older relay"`) || !strings.Contains(stderr, "building it now")):
					t.Errorf("%s over an older index: exit %d:\n%.500s\n%s", args[0], code, stdout, stderr)
				case !tt.stale && (code != 1 || !strings.Contains(stderr, want) || !strings.Contains(stderr, advice)):
					t.Errorf("%s over a damaged index: exit %d, want 1, %q and %q:\n%.500s\n%s", args[0], code, want, advice, stdout, stderr)
				}
			}
			if !tt.stale {
				// relay index rebuilds it (no graph change: only the
				// search index is redone).
				code, stdout, stderr := relay(t, "", "--repo", root, "index")
				if code != 0 || !strings.Contains(stdout, "from 5 files (5 changed, 0 reused") {
					t.Fatalf("relay index over a damaged search index: exit %d:\n%s\n%s", code, stdout, stderr)
				}
			}
			code, stdout, stderr := relay(t, "", "--repo", root, "search", "discount")
			if code != 0 || !strings.Contains(stdout, "README.md:3 section Discounts") {
				t.Errorf("search after the rebuild: exit %d:\n%s\n%s", code, stdout, stderr)
			}
		})
	}
}

// TestNoIndexMessage: commands that need the graph say where they looked and
// what to run, without the stray ": not found" the sentinel error added.
func TestNoIndexMessage(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"search", "foo"}, {"graph", "callers", "Foo"}} {
		t.Run(args[0], func(t *testing.T) {
			code, _, stderr := relay(t, "", append([]string{"--repo", root}, args...)...)
			if code == 0 {
				t.Fatal("succeeded without an index")
			}
			if !strings.Contains(stderr, "no index at") || !strings.HasSuffix(strings.TrimSpace(stderr), "run `relay index` first") {
				t.Errorf("stderr = %q, want it to end with what to run", stderr)
			}
		})
	}
}
