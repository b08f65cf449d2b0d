package repofs

import (
	"strings"
	"testing"
	"time"
)

// TestDeepPatternManyStars: a pattern of many "**" against a deep path
// that almost matches is answered at once (each pair of pattern name and
// path name is tried once), not after one try per way of splitting the
// path, which a hostile .gitignore could make astronomically many.
func TestDeepPatternManyStars(t *testing.T) {
	t.Parallel()
	pattern := "a/" + strings.Repeat("**/x/", 30) + "y\n"
	names := append([]string{"a"}, strings.Split(strings.Repeat("x/", 300)+"z", "/")...)
	var ig Ignores
	ig.Add("", []byte(pattern))
	done := make(chan bool, 1)
	go func() { done <- ig.Ignored(strings.Join(names, "/"), false) }()
	select {
	case got := <-done:
		if got {
			t.Error("a path ending in z matched a pattern ending in y")
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("matching a 30-** pattern against a 300-deep path did not finish in a minute")
	}
	if !ig.Ignored("a/"+strings.Repeat("x/", 40)+"y", false) {
		t.Error("a/x/…/x/y (40 x) is not matched by 30 **/x/ then y")
	}
}
