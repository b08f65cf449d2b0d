package retrieve

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLocalizeSpans localizes a report about one function: the first span
// is that function's lines, the spans respect the budget, never overlap,
// and stay within the top files.
func TestLocalizeSpans(t *testing.T) {
	t.Parallel()
	root, _, s := testRepo(t, nil)
	for _, budget := range []int{5, 12, 100} {
		l, err := s.LocalizeSpans(t.Context(), "computeDelay overflows after many retries", SearchOptions{}, budget)
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Spans) == 0 {
			t.Fatalf("budget %d: no spans", budget)
		}
		first := l.Spans[0]
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(first.Path)))
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		if first.Path != "storage/retry.go" || first.End > len(lines) || !strings.Contains(strings.Join(lines[first.Start-1:first.End], "\n"), "computeDelay") {
			t.Errorf("budget %d: first span %v, want storage/retry.go around computeDelay", budget, first)
		}
		total := 0
		for i, sp := range l.Spans {
			total += sp.Lines()
			if sp.Start < 1 || sp.End < sp.Start {
				t.Errorf("budget %d: span %v is empty or before line 1", budget, sp)
			}
			for _, o := range l.Spans[:i] {
				if o.Path == sp.Path && o.Start <= sp.End && sp.Start <= o.End {
					t.Errorf("budget %d: span %v overlaps %v", budget, sp, o)
				}
			}
			if !slices.Contains(l.Files[:min(spanFiles, len(l.Files))], sp.Path) {
				t.Errorf("budget %d: span %v is not in a top file %v", budget, sp, l.Files)
			}
		}
		if total > budget {
			t.Errorf("budget %d: %d lines", budget, total)
		}
	}
}

func TestAddSpan(t *testing.T) {
	t.Parallel()
	out := []Span{{"a.go", 10, 20}, {"a.go", 30, 35}, {"b.go", 1, 100}}
	for _, tt := range []struct {
		in   Span
		want Span
		n    int
	}{
		{Span{"a.go", 1, 5}, Span{"a.go", 1, 5}, 5},
		{Span{"a.go", 15, 25}, Span{"a.go", 21, 25}, 5},
		{Span{"a.go", 18, 40}, Span{"a.go", 21, 29}, 9}, // the longest uncovered run
		{Span{"a.go", 11, 19}, Span{}, 0},
		{Span{"c.go", 11, 19}, Span{"c.go", 11, 19}, 9},
	} {
		got, n := addSpan(out, tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" || n != tt.n {
			t.Errorf("addSpan(%v) = %v, %d; want %v, %d %s", tt.in, got, n, tt.want, tt.n, diff)
		}
	}
}

// TestNarrow narrows a long function to the window holding the most
// distinct matched terms.
func TestNarrow(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("func long() {\n")
	for i := 2; i <= 100; i++ {
		switch i {
		case 70:
			b.WriteString("\toverflow := delay * factor\n")
		case 75:
			b.WriteString("\tjitter(overflow)\n")
		default:
			b.WriteString("\tx++\n")
		}
	}
	b.WriteString("}\n")
	s := &Searcher{lines: map[string][]string{"long.go": strings.Split(b.String(), "\n")}}
	got := s.narrow(Hit{Chunk: Chunk{Path: "long.go", StartLine: 1, EndLine: 101}, Matched: []string{"overflow", "jitter", "delay"}})
	if got.Lines() != maxSpanLines || got.Start > 70 || got.End < 75 {
		t.Errorf("narrow = %v, want %d lines holding 70-75", got, maxSpanLines)
	}
	short := s.narrow(Hit{Chunk: Chunk{Path: "long.go", StartLine: 3, EndLine: 9}, Matched: []string{"x"}})
	if short != (Span{"long.go", 3, 9}) {
		t.Errorf("short function narrowed to %v", short)
	}
}
