package cinclude

import (
	"path"
	"strings"
	"testing"
)

// FuzzParseCompileDB: any input is a database or an error, never a
// panic; every command has an absolute, clean directory and file.
func FuzzParseCompileDB(f *testing.F) {
	f.Add([]byte(`[{"directory": "b", "file": "a.c", "arguments": ["cc", "-Iinc", "-I", "x", "-c", "a.c"]}]`))
	f.Add([]byte(`[{"directory": "/x", "file": "a.c", "command": "cc -I 'my dir' -DX=\"1 2\" -c a.c"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cmds, err := ParseCompileDB(data, "/r")
		if err != nil {
			return
		}
		for _, c := range cmds {
			if !path.IsAbs(c.Directory) || !path.IsAbs(c.File) || path.Clean(c.File) != c.File {
				t.Fatalf("command not absolute and clean: %+v", c)
			}
			for _, d := range c.IncludeDirs() {
				if !path.IsAbs(d) {
					t.Fatalf("include directory %q not absolute", d)
				}
			}
		}
	})
}

// FuzzBuildDirs: the include directories read from any build file are
// relative and never climb out of its folder's tree through a variable.
func FuzzBuildDirs(f *testing.F) {
	f.Add("CMakeLists.txt", "include_directories(include ${CMAKE_CURRENT_SOURCE_DIR}/src)\ntarget_include_directories(lib PUBLIC inc $<BUILD_INTERFACE:x>)\n")
	f.Add("meson.build", "inc = include_directories('include', 'src')\n")
	f.Add("Makefile", "CFLAGS += -I$(srcdir)/src -Iinclude # -Inot\n")
	f.Fuzz(func(t *testing.T, base, text string) {
		for _, d := range buildDirs(base, text) {
			if strings.HasPrefix(d, "/") || strings.Contains(d, "$") {
				t.Fatalf("build dir %q from %q", d, text)
			}
		}
	})
}
