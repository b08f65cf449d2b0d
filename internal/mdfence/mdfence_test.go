package mdfence

import "testing"

func TestFence(t *testing.T) {
	t.Parallel()
	tests := []struct{ code, lang, want string }{
		{"x := 1", "go", "```go\nx := 1\n```"},
		{"", "", "```\n\n```"},
		{"a ``` b", "text", "````text\na ``` b\n````"},
		{"`````", "", "``````\n`````\n``````"},
		{"` `` `", "", "```\n` `` `\n```"},
	}
	for _, tt := range tests {
		if got := Fence(tt.code, tt.lang); got != tt.want {
			t.Errorf("Fence(%q, %q) = %q, want %q", tt.code, tt.lang, got, tt.want)
		}
	}
}
