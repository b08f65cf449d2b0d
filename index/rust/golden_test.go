//go:build cgo

package rust_test

import (
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestGolden indexes each testdata/*.txtar repository and compares the
// sorted dump of the graph (and the run's summary) with testdata/*.golden.
func TestGolden(t *testing.T) {
	indextest.GoldenAll(t, indexrun.Run)
}
