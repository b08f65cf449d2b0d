//go:build cgo

package index

import (
	"strings"
	"testing"
)

// TestTSGolden is TestGolden for the TypeScript/JavaScript repositories
// alone, for quick runs (-run TS).
func TestTSGolden(t *testing.T) {
	for _, name := range []string{"ts_basic", "ts_commonjs", "ts_mixed", "ts_gitignore", "ts_byname", "ts_jsdoc", "ts_namespace", "ts_modern"} {
		t.Run(name, func(t *testing.T) {
			root := extractTxtar(t, name)
			st := openStore(t)
			sum := runIndex(t, st, root, false)
			got := summaryText(sum) + dump(t, st)
			got = strings.ReplaceAll(got, root, "$ROOT")
			assertGolden(t, name+".golden", got)
		})
	}
}
