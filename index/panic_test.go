//go:build cgo

package index

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/internal/testutil"
)

// TestExtractPanicIsDiagnostic: a panic while extracting one unit of any
// frontend (a Go package, a Go file indexed from syntax, a Python,
// TypeScript or Java file) is that unit's diagnostic; the run finishes and
// indexes the rest. A Go file indexed from syntax alone used to end the
// run.
func TestExtractPanicIsDiagnostic(t *testing.T) {
	bad := map[string]bool{"example.com/m/bad": true, "ok/gen.go": true, "bad.py": true, "bad.ts": true, "Bad.java": true}
	frontend.TestHookExtract = func(_, unit string) {
		if bad[unit] {
			panic("boom")
		}
	}
	t.Cleanup(func() { frontend.TestHookExtract = nil })
	root := t.TempDir()
	for rel, data := range map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"bad/bad.go": "package bad\n\n// Bad panics the checker.\nfunc Bad() {}\n",
		"ok/ok.go":   "package ok\n\n// A calls B.\nfunc A() { B() }\n\n// B is called.\nfunc B() {}\n",
		"ok/gen.go":  "//go:build ignore\n\npackage main\n\nfunc main() {}\n",
		"bad.py":     "def bad():\n    return 1\n",
		"good.py":    "def good():\n    return 2\n",
		"bad.ts":     "export function bad(): number { return 1; }\n",
		"good.ts":    "export function good(): number { return 2; }\n",
		"Bad.java":   "class Bad { void bad() {} }\n",
		"Good.java":  "class Good { void good() {} }\n",
	} {
		testutil.WriteFile(t, root, rel, data)
	}
	st := openStore(t)
	sum := runIndex(t, st, root, false)
	var got []string
	for _, d := range sum.Errors {
		if strings.Contains(d.Msg, "(boom") {
			got = append(got, d.Package+d.Pos)
		}
	}
	want := []string{"Bad.java", "bad.py", "bad.ts", "example.com/m/bad", "ok/gen.go"}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics of the panics: %q, want %q\nall: %v", got, want, sum.Errors)
	}
	dumpHolds(t, "panic", dump(t, st), []string{
		"qname=example.com/m/bad.Bad",
		"edge calls go:example.com/m/ok.A -> go:example.com/m/ok.B",
		"good.py", "good.ts", "Good.java",
	}, nil)
}

// panicFrontend panics on the runner's goroutine, outside any one file.
type panicFrontend struct{}

func (panicFrontend) Language() string { return "panicky" }

func (panicFrontend) Index(context.Context, *frontend.Job, func(frontend.FileResult)) (frontend.Done, error) {
	panic("frontend boom")
}

// TestFrontendPanicIsDiagnostic: a frontend that panics outside any one
// file is its language's diagnostic; the other languages are indexed, and
// the language's version is not recorded so that the next run indexes it
// in full.
func TestFrontendPanicIsDiagnostic(t *testing.T) {
	saved := fileLangs
	t.Cleanup(func() { fileLangs = saved })
	fileLangs = append(slices.Clip(saved), frontend.Lang{
		Name: "panicky", Title: "Panicky", Version: "p-1", VersionKey: "index.panicky.version", Unit: "files",
		Files:  ".panic files",
		Source: func(_, base string) bool { return strings.HasSuffix(base, ".panic") },
		Config: func(_, _ string) bool { return false },
		New:    func(frontend.Env) frontend.Frontend { return panicFrontend{} },
	})
	root := t.TempDir()
	testutil.WriteFile(t, root, "a.panic", "x\n")
	testutil.WriteFile(t, root, "good.py", "def good():\n    return 2\n")
	st := openStore(t)
	sum := runIndex(t, st, root, false)
	if s := summaryText(sum); !strings.Contains(s, "Panicky not fully indexed: the frontend failed (frontend boom at panic_test.go:") {
		t.Errorf("summary lacks the frontend's panic:\n%s", s)
	}
	dumpHolds(t, "frontend panic", dump(t, st), []string{"good.py"}, nil)
	if v, err := st.Meta(t.Context(), "index.panicky.version"); err != nil || v != "" {
		t.Errorf("version of the language that failed = %q, %v; want none", v, err)
	}
}
