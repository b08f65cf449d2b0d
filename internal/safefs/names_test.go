package safefs

import (
	"strings"
	"testing"
)

func TestDisplayPath(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"a/b.go", "a/b.go"},
		{"weird name/space.txt", "weird name/space.txt"},
		{"é/ü.go", "é/ü.go"},
		{"a\nb", `"a\nb"`},
		{"x\x7f", `"x\x7f"`},
		{"\xff", `"\xff"`},
		{`"x"`, `"\"x\""`},
		{"trail ", `"trail "`},
		{"rtl\u202e.go", `"rtl\u202e.go"`},
	} {
		got := DisplayPath(tc.in)
		if got != tc.want {
			t.Errorf("DisplayPath(%q) = %s, want %s", tc.in, got, tc.want)
		}
		if back, _ := UnquotePath(got); back != tc.in {
			t.Errorf("UnquotePath(%s) = %q, want %q", got, back, tc.in)
		}
	}
}

func TestQuote(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 150) // 300 bytes
	if got, want := Quote(long), `"`+strings.Repeat("é", 100)+`"… (300 bytes)`; got != want {
		t.Errorf("Quote(300 bytes) = %s, want %s", got, want)
	}
	if got := Quote("short"); got != `"short"` {
		t.Errorf("Quote(short) = %s", got)
	}
}
