//go:build cgo

package cpp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExpand: the repository's macros expanded on their line, outside
// directives, comments and literals; an empty alternative of an
// object-like macro wins; a macro is not expanded inside itself.
func TestExpand(t *testing.T) {
	defs := "#ifdef _WIN32\n#define API __declspec(dllexport)\n#else\n#define API\n#endif\n" +
		"#define BEGIN namespace a { \\\n  inline namespace v1 {\n#define END } }\n" +
		"#define CALL(f, ...) f(__VA_ARGS__)\n#define STR(x) #x\n#define CAT(a, b) a ## b\n#define SELF SELF + 1\n"
	ms := newMacroSet(map[string]map[string]macro{"defs.h": scanMacros([]byte(defs))})
	for _, tt := range []struct{ name, in, want string }{
		{"object-like", "BEGIN\nAPI int f();\nEND\n", "namespace a {  inline namespace v1 {\n int f();\n} }\n"},
		{"function-like", "int x = CALL(g, 1, 2);\n", "int x = g(1, 2);\n"},
		{"arguments over lines keep the lines", "CALL(g,\n  1);\nh();\n", "g(1)\n;\nh();\n"},
		{"stringify and paste", "STR(a b); CAT(x, y)();\n", "\"a b\"; xy();\n"},
		{"not in literals, comments, directives", "\"API\" // API\n#if API\n/* API */\n", "\"API\" // API\n#if API\n/* API */\n"},
		{"not inside itself", "SELF;\n", "SELF + 1;\n"},
		{"named without arguments", "auto p = CALL;\n", "auto p = CALL;\n"},
		{"extern template blanked", "extern template int f<int>(int);\nint g();\n", strings.Repeat(" ", len("extern template int f<int>(int);")) + "\nint g();\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, string(ms.expand([]byte(tt.in)))); diff != "" {
				t.Errorf("expand (-want +got):\n%s", diff)
			}
		})
	}
}
