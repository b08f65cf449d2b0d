package testutil

import (
	"math/rand/v2"
	"os"
	"testing"
)

// FlipBits flips n random bits (seeded) in the middle half of the file at
// path: the damage of the store-corruption tests.
func FlipBits(t *testing.T, path string, seed uint64, n int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	for range n {
		b[len(b)/4+r.IntN(len(b)/2)] ^= 1 << r.IntN(8)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
