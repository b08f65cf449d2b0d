//go:build cgo

package typescript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestBlankModifiers(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"out", "interface Z<out O = unknown> {}", "interface Z<    O = unknown> {}"},
		{"in", "interface C<in T = never> {}", "interface C<   T = never> {}"},
		{"in out", "class B<in out T, const K extends string> {}", "class B<       T, const K extends string> {}"},
		{"const in", "class B<const in T> {}", "class B<const    T> {}"},
		{"second parameter", "type P<A, out B extends A> = B", "type P<A,     B extends A> = B"},
		{"comment before", "interface Z<\n  /** @ts-ignore */\n  out T extends X = X,\n> {}", "interface Z<\n  /** @ts-ignore */\n      T extends X = X,\n> {}"},
		{"closing >", "type F<out T> = () => T", "type F<    T> = () => T"},
		{"static accessor", "class R {\n  static accessor count = 0;\n}", "class R {\n  static          count = 0;\n}"},
		{"private accessor #x", "class R { private accessor #x = 1 }", "class R { private          #x = 1 }"},
		// Left alone: a parameter named out, the in operator, strings,
		// comments, a lone accessor (the grammar takes it), == and =>.
		{"parameter named out", "function f<out>(a: unknown, out = 0) {}", ""},
		{"in operator", `const a = [1, 2], b = "x" in o ? 1 : 0; for (k in o) {}`, ""},
		{"string", `const s = "<in T, out U>", t = '<out T>', u = ` + "`<in T>`", ""},
		{"comment", "// a <out T> b\n/* <in T> */", ""},
		{"accessor alone", "class R { accessor label = 1 }", ""},
		{"accessor field", "class R { static accessor = 1 }", ""},
		{"comparison", "if (a < out && b, out == c) {}", ""},
		{"arrow", "f(a, out => out)", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := blankModifiers([]byte(tt.src))
			want := tt.want
			if want == "" {
				want = tt.src
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("blankModifiers(%q) (-want +got):\n%s", tt.src, diff)
			}
			if ok != (tt.want != "") {
				t.Errorf("blankModifiers(%q) found = %v, want %v", tt.src, ok, tt.want != "")
			}
		})
	}
}

func TestNameDefaultSignatures(t *testing.T) {
	tests := []struct {
		name, src, want string
	}{
		{"anonymous", "export default function (): {\n    localeError: X;\n};", "export function  default(): {\n    localeError: X;\n};"},
		{"no space", "export default function(): X;", "export function default(): X;"},
		{"generic", "export  default function <T>(x: T): T;", "export  function  default<T>(x: T): T;"},
		{"named", "export default function f(): X;", ""},
		{"default value", "export default f;", ""},
		{"in a string", `const s = "export default function (): X;";`, ""},
		{"in a comment", "// export default function (): X;", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := nameDefaultSignatures([]byte(tt.src))
			want := tt.want
			if want == "" {
				want = tt.src
			}
			if diff := cmp.Diff(want, string(got)); diff != "" {
				t.Errorf("nameDefaultSignatures(%q) (-want +got):\n%s", tt.src, diff)
			}
			if ok != (tt.want != "") {
				t.Errorf("nameDefaultSignatures(%q) found = %v, want %v", tt.src, ok, tt.want != "")
			}
		})
	}
}

func TestRewriteCode(t *testing.T) {
	tests := []struct {
		name, src, visited string
	}{
		{"code only", "a<b>", "a<b>"},
		{"line comment and the space after", "x // y\nz", "x z"},
		{"block comment and the space after", "x /* y */ z", "x z"},
		{"strings", `a "b\"c" 'd' e`, "a   e"},
		{"template with ${}", "a `b${c}` d", "a  d"},
		{"unterminated string ends at the line", "a 'b\nc", "a \nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var visited []byte
			got, ok := rewriteCode([]byte(tt.src), func(_ func() []byte, i int) int {
				visited = append(visited, tt.src[i])
				return i + 1
			})
			if diff := cmp.Diff(tt.visited, string(visited)); diff != "" {
				t.Errorf("bytes visited in %q (-want +got):\n%s", tt.src, diff)
			}
			if ok || string(got) != tt.src {
				t.Errorf("no edit asked: got %q, %v; want the source, false", got, ok)
			}
		})
	}
	// Edits go to a copy; a callback that does not move on still ends.
	src := []byte("ab")
	got, ok := rewriteCode(src, func(edit func() []byte, i int) int {
		edit()[i] = 'x'
		return i
	})
	if diff := cmp.Diff("xx", string(got)); diff != "" || !ok || string(src) != "ab" {
		t.Errorf("edit: got %q, %v, source now %q; want \"xx\", true, \"ab\" (-want +got):\n%s", got, ok, src, diff)
	}
}
