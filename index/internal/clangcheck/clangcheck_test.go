package clangcheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/cinclude"
)

// NeedClang returns the clang binary, skipping the test when it is
// missing (failing under CI=true, where scripts/setup.sh installs it).
func needClang(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("clang")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("clang is required under CI (run scripts/setup.sh): %v", err)
		}
		t.Skipf("no clang: %v", err)
	}
	return p
}

// fixture returns the absolute root of testdata/name and its compilation
// database, read from a compile_commands.json written for it.
func fixture(t *testing.T, name, db string) (string, []cinclude.Command) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	cmds, err := cinclude.ParseCompileDB([]byte(strings.ReplaceAll(db, "ROOT", root)), root)
	if err != nil {
		t.Fatal(err)
	}
	return root, cmds
}

// edgeLines prints edges as "caller -> callee @ site".
func edgeLines(t *Truth) []string {
	var out []string
	for _, e := range t.Edges {
		out = append(out, e.Caller.String()+" -> "+e.Callee.String()+" @ "+e.File+":"+strconv.Itoa(e.Line))
	}
	for _, s := range t.Indirect {
		out = append(out, "indirect @ "+s.File+":"+strconv.Itoa(s.Line))
	}
	return out
}

func TestRunC(t *testing.T) {
	bin := needClang(t)
	root, cmds := fixture(t, "c", `[
 {"directory": "ROOT", "file": "dev.c", "arguments": ["cc", "-Iinclude", "-c", "dev.c", "-o", "dev.o"]},
 {"directory": "ROOT", "file": "main.c", "command": "cc -I include -MD -MF main.d -c main.c -o main.o"}]`)
	tr, err := Run(t.Context(), Options{Root: root, Clang: bin, Commands: cmds, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"dev.c:9:dev_open -> dev.c:4:helper @ dev.c:12",
		"dev.c:15:dev_read -> dev.c:4:helper @ dev.c:15",
		"include/dev.h:14:dev_twice -> dev.c:15:dev_read @ include/dev.h:14",
		"main.c:7:main -> dev.c:9:dev_open @ main.c:9",
		"main.c:7:main -> include/dev.h:14:dev_twice @ main.c:12",
		"main.c:7:main -> main.c:3:helper @ main.c:12",
		"indirect @ main.c:10",
		"indirect @ main.c:12",
	}
	if diff := cmp.Diff(want, edgeLines(tr)); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	if len(tr.Errors) > 0 {
		t.Errorf("errors: %v", tr.Errors)
	}
}

func TestRunCPP(t *testing.T) {
	bin := needClang(t)
	root, cmds := fixture(t, "cpp", `[{"directory": "ROOT", "file": "shape.cpp", "arguments": ["c++", "-std=c++17", "-c", "shape.cpp"]}]`)
	tr, err := Run(t.Context(), Options{Root: root, Clang: bin, Commands: cmds})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"shape.cpp:7:area -> shape.hpp:10:sides @ shape.cpp:7",
		"shape.cpp:9:operator+ -> shape.cpp:5:Shape @ shape.cpp:11",
		"shape.cpp:9:operator+ -> shape.hpp:10:sides @ shape.cpp:11",
		"shape.cpp:16:run -> shape.cpp:5:Shape @ shape.cpp:18",
		"shape.cpp:16:run -> shape.cpp:9:operator+ @ shape.cpp:19",
		"shape.cpp:16:run -> shape.cpp:7:area @ shape.cpp:20",
		"shape.cpp:16:run -> shape.hpp:10:sides @ shape.cpp:21",
		"shape.cpp:16:run -> shape.hpp:18:twice @ shape.cpp:21",
		"indirect @ shape.cpp:21", // the lambda's call
	}
	if diff := cmp.Diff(want, edgeLines(tr)); diff != "" {
		t.Errorf("edges (-want +got):\n%s", diff)
	}
	for _, d := range tr.Defs {
		if d.Name == "twice" && d.Start != 17 {
			t.Errorf("template twice starts at %d, want its template header's line 17", d.Start)
		}
	}
}
