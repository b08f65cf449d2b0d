package lines

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"\n", nil},
		{"a", []string{"a"}},
		{"a\n", []string{"a"}},
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"a\n\nb", []string{"a", "", "b"}},
	}
	for _, tt := range tests {
		if got := Split(tt.in); !cmp.Equal(tt.want, got) {
			t.Errorf("Split(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOne(t *testing.T) {
	t.Parallel()
	if got := One("func F(\n\ta int,\n) error", 100); got != "func F( a int, ) error" {
		t.Errorf("One = %q", got)
	}
	if got := One("abcdef", 3); got != "abc…" {
		t.Errorf("One cut = %q", got)
	}
}

// TestEach: lines of any length, numbered from 1, the last one without
// "\n" included; fn's error stops the walk.
func TestEach(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 20<<20) // over a bufio.Scanner's token limit
	var got []string
	var nums []int
	err := Each(strings.NewReader("a\n"+long+"\nlast"), func(n int, line []byte) error {
		nums = append(nums, n)
		got = append(got, string(line[:min(len(line), 4)]))
		return nil
	})
	if err != nil || !cmp.Equal([]string{"a", "xxxx", "last"}, got) || !cmp.Equal([]int{1, 2, 3}, nums) {
		t.Errorf("Each = %q %v, %v", got, nums, err)
	}
	stop := errors.New("stop")
	if err := Each(strings.NewReader("a\nb\n"), func(int, []byte) error { return stop }); !errors.Is(err, stop) {
		t.Errorf("Each error = %v, want fn's", err)
	}
}
