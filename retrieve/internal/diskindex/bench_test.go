package diskindex

import (
	"os"
	"testing"
)

// BenchmarkRead reads the index whose commit file RELAY_BENCH_INDEX names
// (a relay index of a large repository, e.g. the Go standard library's).
func BenchmarkRead(b *testing.B) {
	p := os.Getenv("RELAY_BENCH_INDEX")
	if p == "" {
		b.Skip("RELAY_BENCH_INDEX names no index")
	}
	for b.Loop() {
		if _, err := Read(p); err != nil {
			b.Fatal(err)
		}
	}
}
