package tools

import (
	"encoding/json"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestOddFileNamesRoundTrip: names with a newline, a tab, invalid UTF-8,
// a leading space or a leading quote are listed by glob and grep as
// Go-quoted strings, one per line, and read accepts them as printed.
func TestOddFileNamesRoundTrip(t *testing.T) {
	t.Parallel()
	needTools(t)
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		t.Skip("the file system refuses some of these names")
	}
	root := t.TempDir()
	names := map[string]string{ // name → how glob and grep print it
		"plain.txt":         "plain.txt",
		"line\nbreak.txt":   `"line\nbreak.txt"`,
		"tab\there.txt":     `"tab\there.txt"`,
		"caf\xe9.txt":       `"caf\xe9.txt"`,
		" lead.txt":         `" lead.txt"`,
		`"quoted".txt`:      `"\"quoted\".txt"`,
		"dir\nx/inside.txt": `"dir\nx/inside.txt"`,
	}
	for name := range names {
		writeFile(t, root, name, "needle in "+strconv.Quote(name)+"\n")
	}
	reg, err := Default(Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	glob, _ := reg.Get(GlobName)
	read, _ := reg.Get(ReadName)
	grep, _ := reg.Get(GrepName)

	res := call(t, glob, `{"pattern": "**/*.txt"}`)
	lines := strings.Split(res.Content, "\n")[1:]
	sort.Strings(lines)
	var want []string
	for _, shown := range names {
		want = append(want, shown)
	}
	sort.Strings(want)
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Fatalf("glob listing (-want +got):\n%s\nfull answer:\n%s", diff, res.Content)
	}
	for name, shown := range names {
		args, _ := json.Marshal(ReadParams{File: shown})
		res := call(t, read, string(args))
		if wantText := "1\tneedle in " + strconv.Quote(name); res.IsError || res.Content != wantText {
			t.Errorf("read %s: got IsError=%v %q, want %q", shown, res.IsError, res.Content, wantText)
		}
	}

	res = call(t, grep, `{"pattern": "needle", "context": 0}`)
	for _, shown := range names {
		if !strings.Contains(res.Content, "\n"+shown+":1:needle in ") {
			t.Errorf("grep does not list %s as a path:\n%s", shown, res.Content)
		}
	}
}

// TestLongArgumentsNotEchoed: a megabyte-long argument is quoted back at
// most safefs.MaxEcho bytes long, whichever tool refuses it.
func TestLongArgumentsNotEchoed(t *testing.T) {
	t.Parallel()
	needTools(t)
	reg, err := Default(Options{Root: fixture(t), Graph: testGraph()})
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 1<<20)
	for _, tc := range []struct{ tool, args string }{
		{ReadName, `{"` + huge + `": 1}`},
		{ReadName, `{"file": "../` + huge + `"}`},
		{ReadName, `{"file": "/` + huge + `"}`},
		{GraphName, `{"operation": "` + huge + `", "target": "x"}`},
		{GraphName, `{"operation": "callers", "target": "` + huge + `"}`},
		{GrepName, `{"pattern": "` + huge + `"}`},
		{GlobName, `{"pattern": "` + huge + `"}`},
		{GrepName, `{"pattern": "x", "include": "` + huge + `"}`},
	} {
		tool, _ := reg.Get(tc.tool)
		res := call(t, tool, tc.args)
		if !res.IsError || len(res.Content) > 2000 {
			t.Errorf("%s with a 1 MB argument: IsError=%v, %d bytes: %.300q", tc.tool, res.IsError, len(res.Content), res.Content)
		}
	}
}
