//go:build cgo

package cpp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestIncremental edits, adds and deletes C++ files and checks after each
// step that the incremental graph equals a fresh full index of the same
// tree, that a body-only edit re-resolves that file alone, that a
// header's new declarations re-resolve the files that use it, that a
// function's node moves to its declaration when the file defining it is
// deleted, and that a new macro re-parses the files it may change.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	edit := func(rel, old, new string) {
		t.Helper()
		s := indextest.ReadFile(t, root, rel)
		if !strings.Contains(s, old) {
			t.Fatalf("%s lacks %q", rel, old)
		}
		write(rel, strings.Replace(s, old, new, 1))
	}
	steps := []struct {
		name      string
		change    func()
		extracted int // files re-resolved, -1: not checked
		want      []string
		notWant   []string
	}{
		{
			name:      "edit a body only",
			change:    func() { edit("src/main.cpp", "  d.describe();\n", "  d.describe();\n  d.scaled(1);\n") },
			extracted: 1,
			want:      []string{"edge calls cpp:main -> cpp:shapes::Circle::scaled @src/main.cpp:21"},
		},
		{
			name: "add an overload to a header",
			change: func() {
				edit("include/shapes/log.hpp", "void print(int n);\n", "void print(int n);\nvoid print(bool b);\n")
				edit("src/log.cc", "void print(int n)", "void print(bool b) { print(static_cast<int>(b)); }\nvoid print(int n)")
				edit("src/main.cpp", "  report(c);\n", "  report(c);\n  log::print(true);\n")
			},
			extracted: -1,
			want: []string{
				"edge calls cpp:main -> cpp:shapes::log::print(bool) @src/main.cpp:29",
				"edge calls cpp:shapes::log::print(bool) -> cpp:shapes::log::print(int) @src/log.cc:7",
			},
		},
		{
			name: "add a file",
			change: func() {
				write("src/extra.cc", "#include \"shapes/shape.hpp\"\n\nvoid extra(shapes::Circle& c) { c.area(); }\n")
			},
			extracted: -1,
			want:      []string{"edge calls cpp:extra -> cpp:shapes::Circle::area @src/extra.cc:3"},
		},
		{
			name:      "delete the file that defines the functions",
			change:    func() { os.Remove(filepath.Join(root, "src", "log.cc")) },
			extracted: -1,
			want:      []string{"node cpp:shapes::log::print(int) function/ name=print qname=shapes::log::print loc=include/shapes/log.hpp:print"},
			notWant:   []string{"file=src/log.cc"},
		},
		{
			name: "define a macro a file uses",
			change: func() {
				edit("src/main.cpp", "  return 0;\n", "  LOG_DONE();\n  return 0;\n")
				indexrun.Run(t, st, root, false)
				write("include/shapes/macros.hpp", "#pragma once\n#define LOG_DONE() ::shapes::log::print(2.0, 1)\n")
			},
			extracted: -1,
			want:      []string{"edge calls cpp:main -> cpp:shapes::log::print(double,int) @src/main.cpp:32"},
		},
	}
	for _, s := range steps {
		s.change()
		sum := indexrun.Run(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		if s.extracted >= 0 && sum.Languages["C++"].Units != s.extracted {
			t.Errorf("%s: %d files re-resolved, want %d", s.name, sum.Languages["C++"].Units, s.extracted)
		}
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := indexrun.Run(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}
