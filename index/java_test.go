//go:build cgo

package index

import (
	"strings"
	"testing"
)

// TestJavaGolden is TestGolden for the Java repositories alone, for quick
// runs (-run Java).
func TestJavaGolden(t *testing.T) {
	for _, name := range []string{"java_basic", "java_mixed"} {
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
