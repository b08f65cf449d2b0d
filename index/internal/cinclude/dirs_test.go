package cinclude

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDirs: compile_commands.json first, then the build files, then the
// include folders; directories outside the repository or without files
// are left out.
func TestDirs(t *testing.T) {
	files := []string{"include/a.h", "src/b.h", "lib/inc/c.h", "third/include/d.h", "src/x.c"}
	tests := []struct {
		name    string
		configs map[string]string
		want    []string
		from    Source
	}{
		{name: "compile_commands.json", configs: map[string]string{
			"compile_commands.json": `[{"directory": "/repo/build", "file": "../src/x.c", "arguments": ["cc", "-I../src", "-I/usr/include", "-I../none", "-c", "../src/x.c"]}]`,
			"CMakeLists.txt":        "include_directories(include)"},
			want: []string{"src"}, from: FromCompileDB},
		{name: "cmake", configs: map[string]string{
			"CMakeLists.txt":     "include_directories(include) # lib/inc\ntarget_include_directories(dev PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/src)",
			"lib/CMakeLists.txt": "target_include_directories(lib PUBLIC $<BUILD_INTERFACE:x> inc)"},
			want: []string{"include", "lib/inc", "src"}, from: FromBuildFiles},
		{name: "meson", configs: map[string]string{"meson.build": "incdir = include_directories('include', '../out')"},
			want: []string{"include"}, from: FromBuildFiles},
		{name: "makefile", configs: map[string]string{"Makefile.am": "AM_CPPFLAGS = -I$(srcdir)/src -I /abs"},
			want: []string{"src"}, from: FromBuildFiles},
		{name: "include folders", configs: map[string]string{"Makefile": "all:\n\tcc x.c"},
			want: []string{"include", "third/include"}, from: FromIncludes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var configs []string
			for rel := range tt.configs {
				configs = append(configs, rel)
			}
			read := func(rel string) ([]byte, error) {
				if s, ok := tt.configs[rel]; ok {
					return []byte(s), nil
				}
				return nil, errors.New("no such file")
			}
			got, from := Dirs("/repo", configs, read, files)
			if diff := cmp.Diff(tt.want, got); diff != "" || from != tt.from {
				t.Errorf("Dirs from %s (want %s) (-want +got):\n%s", from, tt.from, diff)
			}
		})
	}
}

// TestResolve: quoted names relative to the includer first, then the
// include directories, then a unique suffix; angle names outside.
func TestResolve(t *testing.T) {
	r := NewResolver([]string{"include/dev/dev.h", "src/internal.h", "src/dev.c", "lib/util.h", "a/util.h"}, []string{"include"})
	tests := []struct {
		from, name string
		quoted     bool
		want       string
	}{
		{"src/dev.c", "internal.h", true, "src/internal.h"},
		{"src/dev.c", "dev/dev.h", true, "include/dev/dev.h"},
		{"src/dev.c", "dev/dev.h", false, "include/dev/dev.h"},
		{"src/dev.c", "internal.h", false, ""},
		{"src/dev.c", "stdio.h", false, ""},
		{"src/dev.c", "util.h", true, ""}, // two files end in util.h
		{"x.c", "src/internal.h", true, "src/internal.h"},
	}
	for _, tt := range tests {
		got, _ := r.Resolve(tt.from, tt.name, tt.quoted)
		if got != tt.want {
			t.Errorf("Resolve(%q, %q, %v) = %q, want %q", tt.from, tt.name, tt.quoted, got, tt.want)
		}
	}
}
