//go:build cgo

package index

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/internal/testutil"
)

// TestTypeScriptOnlySummary: Summary.Languages is the one per-language
// report; a TypeScript-only repository reports TypeScript alone (it used
// to count "0 packages" of Go).
func TestTypeScriptOnlySummary(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFile(t, root, "a.ts", "export function f(): number { return 1; }\n")
	sum := runIndex(t, openStore(t), root, false)
	want := map[string]LanguageSummary{"TypeScript/JavaScript": {Files: 1, Units: 1, Unit: "files"}}
	if diff := cmp.Diff(want, sum.Languages); diff != "" || sum.Files != 1 {
		t.Errorf("files=%d languages (-want +got):\n%s", sum.Files, diff)
	}
}

// TestStoreFormatUnchanged: the Meta keys and values and the
// FileRecord.Language values are those the stores written before the
// languages shared one registry hold, so such a store opens as it is: a
// second run over the same tree does no work.
func TestStoreFormatUnchanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	gomod := "module example.com/m\n\ngo 1.22\n"
	for rel, data := range map[string]string{
		"go.mod": gomod, "a.go": "package m\n\n// F is.\nfunc F() {}\n",
		"b.py": "def g():\n    return 1\n", "c.ts": "export function h(): number { return 1; }\n",
		"D.java": "class D { void d() {} }\n",
	} {
		testutil.WriteFile(t, root, rel, data)
	}
	st := openStore(t)
	runIndex(t, st, root, false)
	ctx := t.Context()
	cfg := sha256.New()
	fmt.Fprintf(cfg, "go.mod\x00%x\x00", sha256.Sum256([]byte(gomod)))
	want := map[string]string{
		"index.go.version": "go-7", "index.go.config": hex.EncodeToString(cfg.Sum(nil)),
		"index.py.version": "py-5", "index.typescript.version": "ts-4", "index.java.version": "java-4",
		"index.budgets": budgetsOf(Options{}).Fingerprint(),
	}
	got := map[string]string{}
	for k := range want {
		v, err := st.Meta(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		got[k] = v
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Meta (-want +got):\n%s", diff)
	}
	recs, err := st.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string]string{}
	for _, r := range recs {
		if !r.IsPseudo() {
			langs[r.Path] = r.Language
		}
	}
	wantLangs := map[string]string{"a.go": "go", "b.py": "python", "c.ts": "typescript", "D.java": "java"}
	if diff := cmp.Diff(wantLangs, langs); diff != "" {
		t.Errorf("FileRecord.Language (-want +got):\n%s", diff)
	}
	if again := runIndex(t, st, root, false); !again.Unchanged {
		t.Errorf("second run over the same tree did work: %+v", again)
	}
}
