//go:build cgo

package index_test

import (
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
)

// TestGolden indexes each testdata/*.txtar repository (a repository in
// every language) with all frontends and compares the sorted dump of the
// graph with testdata/*.golden.
func TestGolden(t *testing.T) {
	indextest.GoldenAll(t, indexrun.Run)
}
