package golang_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestGolden indexes each testdata/*.txtar repository and compares the
// sorted dump of the graph (and the run's summary) with testdata/*.golden.
func TestGolden(t *testing.T) {
	names, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no testdata/*.txtar: %v", err)
	}
	for _, n := range names {
		name := strings.TrimSuffix(filepath.Base(n), ".txtar")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			indextest.Golden(t, name, indexrun.Run)
		})
	}
}
