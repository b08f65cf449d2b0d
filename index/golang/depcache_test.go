package golang_test

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
)

// TestConcurrentRunsShareDependencies overlaps runs in one process, each
// round starting from an empty dependency cache so the runs race to check
// the same standard-library packages. Every run must type-check cleanly:
// a run mixing its own copy of package time with a cached package built on
// another copy reports "time.Duration is not time.Duration".
func TestConcurrentRunsShareDependencies(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks part of the standard library several times")
	}
	src := "package svc\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\n" +
		"func timeout() time.Duration { return time.Second }\n\n" +
		"// Wait waits at most timeout().\nfunc Wait(ctx context.Context) error {\n\tctx, cancel := context.WithTimeout(ctx, timeout())\n\tdefer cancel()\n\t<-ctx.Done()\n\treturn ctx.Err()\n}\n"
	const runners = 4
	roots := make([]string, runners)
	for i := range roots {
		roots[i] = t.TempDir()
		os.WriteFile(filepath.Join(roots[i], "go.mod"), []byte("module example.com/svc\n\ngo 1.22\n"), 0o644)
		os.WriteFile(filepath.Join(roots[i], "svc.go"), []byte(src), 0o644)
	}
	for round := 0; round < 8; round++ {
		golang.ResetDepCache()
		var wg sync.WaitGroup
		for i := range roots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sum, err := index.Run(t.Context(), indextest.OpenStore(), index.Options{Root: roots[i], Full: true})
				if err != nil {
					t.Errorf("round %d run %d: %v", round, i, err)
					return
				}
				for _, d := range sum.Errors {
					t.Errorf("round %d run %d: %s", round, i, d)
				}
			}()
		}
		wg.Wait()
	}
}
