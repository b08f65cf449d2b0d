package golang_test

import (
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestSummaryNoModule: Go files with no go.mod above them are indexed from
// syntax alone (no calls), and a copy of net/http outside GOROOT said
// "Errors: none" with 0 calls; Summary.NoModule counts them (testdata
// aside), on a first run and on an unchanged one, for relay index to say so.
func TestSummaryNoModule(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "loose.go", "package loose\n\nfunc A() { B() }\n\nfunc B() {}\n")
	testutil.WriteFile(t, root, "more/loose2.go", "package more\n")
	testutil.WriteFile(t, root, "testdata/x.go", "package x\n")
	testutil.WriteFile(t, root, "mod/go.mod", "module example.com/mod\n\ngo 1.22\n")
	testutil.WriteFile(t, root, "mod/b.go", "package mod\n\nfunc C() { D() }\n\nfunc D() {}\n")
	st := indextest.OpenStore()
	for _, step := range []string{"first run", "unchanged run"} {
		sum := indexrun.Run(t, st, root, false)
		if sum.Languages["Go"].SyntaxOnly != 2 {
			t.Errorf("%s: NoModule = %d, want 2 (loose.go, more/loose2.go)", step, sum.Languages["Go"].SyntaxOnly)
		}
	}
	mod := t.TempDir()
	testutil.WriteFile(t, mod, "go.mod", "module m\n\ngo 1.22\n")
	testutil.WriteFile(t, mod, "a.go", "package m\n")
	if sum := indexrun.Run(t, indextest.OpenStore(), mod, false); sum.Languages["Go"].SyntaxOnly != 0 {
		t.Errorf("a module: NoModule = %d, want 0", sum.Languages["Go"].SyntaxOnly)
	}
}
