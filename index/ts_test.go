//go:build cgo

package index

import (
	"testing"
)

// TestTSGolden is TestGolden for the TypeScript/JavaScript repositories
// alone, for quick runs (-run TS).
func TestTSGolden(t *testing.T) {
	for _, name := range []string{"ts_basic", "ts_commonjs", "ts_mixed", "ts_gitignore", "ts_byname", "ts_jsdoc", "ts_namespace", "ts_modern"} {
		t.Run(name, func(t *testing.T) { checkGolden(t, name) })
	}
}
