//go:build !cgo

package index

import (
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

// TestNoCgoLanguagesNoted: built without cgo, the tree-sitter languages
// are registered unavailable: their files are noted once per language with
// the reason, and Go is indexed.
func TestNoCgoLanguagesNoted(t *testing.T) {
	root := t.TempDir()
	for rel, data := range map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n", "a.go": "package m\n\n// F is.\nfunc F() {}\n",
		"b.py": "x = 1\n", "c.ts": "export const y = 2;\n", "D.java": "class D {}\n",
	} {
		testutil.WriteFile(t, root, rel, data)
	}
	sum := runIndex(t, openStore(t), root, false)
	var notes []string
	for _, n := range sum.Notes {
		notes = append(notes, n.String())
	}
	got := strings.Join(notes, "\n")
	for _, title := range []string{"Python", "Java", "TypeScript/JavaScript"} {
		if want := "1 " + title + " files not indexed: this relay was built without cgo"; !strings.Contains(got, want) {
			t.Errorf("notes lack %q:\n%s", want, got)
		}
	}
	if sum.Languages["Go"].Files != 1 || len(sum.Languages) != 1 {
		t.Errorf("languages %+v, want Go alone", sum.Languages)
	}
}
