package retrieve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb/embedded"
)

// BenchmarkBuildCold measures a full search index build of the Go standard
// library over a graph store `relay index` already wrote, without
// indexing the graph again (minutes) as the std benchmarks above do:
//
//	relay index --repo $(go env GOROOT)/src --store /tmp/std-store
//	RELAY_BUILD_STORE=/tmp/std-store go test ./retrieve -run '^$' -bench BuildCold -benchmem -benchtime 3x
//
// The symbols come from graph queries (not handed over as `relay index`
// does), which adds the same ~0.6 s of CPU to every build.
func BenchmarkBuildCold(b *testing.B) {
	store := os.Getenv("RELAY_BUILD_STORE")
	if store == "" {
		b.Skip("RELAY_BUILD_STORE (a store `relay index` wrote for GOROOT/src) not set")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Fatalf("go env GOROOT: %v", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	st, err := embedded.Open(store, embedded.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dir := b.TempDir()
	ctx := context.Background()
	b.ResetTimer()
	for range b.N {
		if _, err := Build(ctx, root, st, BuildOptions{Dir: dir, Force: true}); err != nil {
			b.Fatal(err)
		}
	}
}
