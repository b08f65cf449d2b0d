//go:build cgo

package main

import (
	"strings"
	"testing"
)

// TestIndexUpToDateLanguages: the summary of an up-to-date run counts the
// languages from the scan; it used to print "Languages: Go (1 files)" for
// a repository of one Python and one TypeScript file.
func TestIndexUpToDateLanguages(t *testing.T) {
	t.Parallel()
	repo := writeRepo(t, map[string]string{
		"a.py": "def f():\n    return 1\n",
		"b.ts": "export function g(): number {\n  return 2;\n}\n",
	})
	const want = "Languages: Python (1 files), TypeScript/JavaScript (1 files)\n"
	for _, step := range []string{"first run", "up-to-date run"} {
		code, stdout, stderr := relay(t, "", "index", "--repo", repo)
		if code != 0 {
			t.Fatalf("%s: relay index = %d:\n%s\n%s", step, code, stdout, stderr)
		}
		if !strings.Contains(stdout, want) || strings.Contains(stdout, "Go (") || strings.Contains(stdout, "packages") {
			t.Errorf("%s: summary lacks %q or names Go or its packages:\n%s", step, want, stdout)
		}
	}
}

// TestIndexPartialFailure: a nested module whose go.mod the installed go
// refuses (a newer go line, a syntax error, no module line) used to end relay index with
// exit status 1 and nothing indexed. Now the modules are listed under
// Errors, their files are indexed from syntax, the root module and the
// Python file are indexed, and the exit status is 0.
func TestIndexPartialFailure(t *testing.T) {
	t.Parallel()
	repo := writeRepo(t, map[string]string{
		"go.mod":           "module example.com/root\n\ngo 1.22\n",
		"root.go":          "package root\n\n// Root calls Helper.\nfunc Root() { Helper() }\n\n// Helper is called.\nfunc Helper() {}\n",
		"newer/go.mod":     "module example.com/newer\n\ngo 1.99\n",
		"newer/newer.go":   "package newer\n\n// Newer is in a module the installed go refuses.\nfunc Newer() {}\n",
		"broken/go.mod":    "module example.com/broken\n\nrequire (\n",
		"broken/broken.go": "package broken\n\n// Broken is in a module whose go.mod does not parse.\nfunc Broken() {}\n",
		"nomod/go.mod":     "go 1.22\n",
		"nomod/nomod.go":   "package nomod\n\n// NoMod is in a module without a module line.\nfunc NoMod() {}\n",
		"tools/gen.py":     "def generate():\n    return 1\n",
	})
	code, stdout, stderr := relay(t, "", "index", "--repo", repo)
	if code != 0 {
		t.Fatalf("relay index = %d, want 0 with the errors listed:\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{
		"Errors: 3 ",
		"  nomod/go.mod: go list failed (its Go files are indexed from syntax alone): go: error reading nomod/go.mod: missing module declaration",
		"  newer/go.mod: go list failed (its Go files are indexed from syntax alone): go: newer/go.mod requires go >= 1.99",
		"  broken/go.mod: go list failed",
		"Languages: Go (4 files), Python (1 files)",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	for _, c := range []cliWant{
		{[]string{"graph", "callers", "Helper"}, "example.com/root.Root"},
		{[]string{"graph", "callers", "Newer"}, "No callers"},
		{[]string{"graph", "callers", "Broken"}, "No callers"},
		{[]string{"graph", "callers", "NoMod"}, "No callers"},
		{[]string{"graph", "callers", "generate"}, "No callers"},
	} {
		code, out, errOut := relay(t, "", append(c.args, "--repo", repo)...)
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("relay %v = %d, want %q:\n%s\n%s", c.args, code, c.want, out, errOut)
		}
	}
}
