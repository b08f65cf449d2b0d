package review

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestFeedbackLongLines: a feedback line far longer than a bufio.Scanner's
// token limit (the store used a 4 MiB one) imports and reads back whole;
// a bad line is still named by its number.
func TestFeedbackLongLines(t *testing.T) {
	t.Parallel()
	long := Feedback{File: "big/gen.go", Line: 7, Comment: "the table is regenerated; " + strings.Repeat("x", 8<<20), Accepted: true,
		Code: strings.Repeat("var a = 1\n", 100_000)}
	line, err := json.Marshal(long)
	if err != nil {
		t.Fatal(err)
	}
	short := `{"file": "a.go", "line": 1, "comment": "short one", "accepted": false}`
	st := OpenFeedback(t.TempDir())
	n, err := st.Import(strings.NewReader(short + "\n" + string(line) + "\n" + short)) // last line without "\n"
	if err != nil || n != 3 {
		t.Fatalf("Import = %d, %v; want 3 items", n, err)
	}
	all, skipped, err := st.All()
	if err != nil || len(skipped) != 0 {
		t.Fatal(err, skipped)
	}
	if len(all) != 3 || all[1].Comment != long.Comment || all[1].Code != long.Code || all[2].Comment != "short one" {
		t.Errorf("All returned %d items; the long one intact: %v", len(all), len(all) == 3 && all[1].Comment == long.Comment)
	}

	tests := []struct {
		name, in, want string
	}{
		{"bad line after a long one", string(line) + "\n" + `{"file": "x.go"}`, "line 2: feedback needs a comment"},
		{"two objects on one line", short + " " + short, "line 1: more than one JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := OpenFeedback(t.TempDir()).Import(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Import = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
