package tracker

import (
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestCapText(t *testing.T) {
	long := strings.Repeat("é", MaxTextBytes) // two bytes a rune: the cut falls inside one unless it moves back
	tests := []struct {
		name    string
		in      string
		wantCut bool
	}{
		{"short", "# Title\n\nbody", false},
		{"exactly the cap", strings.Repeat("a", MaxTextBytes), false},
		{"one byte over", strings.Repeat("a", MaxTextBytes+1), true},
		{"multi-byte runes", long, true},
		{"28 MB", strings.Repeat("x", 28<<20), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, cut := CapText(tt.in)
			if cut != tt.wantCut {
				t.Fatalf("cut = %v, want %v", cut, tt.wantCut)
			}
			if !tt.wantCut {
				if got != tt.in {
					t.Fatal("an uncut text changed")
				}
				if kept, note := SplitCut(got); CutNote(got) != "" || note != "" || kept != got {
					t.Fatal("CutNote or SplitCut finds a note in an uncut text")
				}
				return
			}
			if len(got) > MaxTextBytes || !utf8.ValidString(got) {
				t.Fatalf("cut text: %d bytes (cap %d), valid UTF-8 %v", len(got), MaxTextBytes, utf8.ValidString(got))
			}
			if CutNote(got) == "" || !strings.Contains(got, "256 KiB") {
				t.Fatalf("the cut text does not say it was cut: ...%q", got[len(got)-200:])
			}
			if !strings.HasPrefix(tt.in, strings.TrimSuffix(strings.TrimSuffix(got, CutNote(got)), "\n\n")) {
				t.Fatal("the cut text is not the start of the input")
			}
			kept, note := SplitCut(got)
			if note != CutNote(got) || kept+"\n\n"+note != got {
				t.Errorf("SplitCut = %d bytes and %q", len(kept), note)
			}
			again, cutAgain := CapText(got)
			if cutAgain || again != got {
				t.Fatal("cutting a cut text again changed it")
			}
		})
	}
}

// TestIssueTextHuge is the audit's probe: an issue with a 28 MB body. Its
// text stays within MaxTextBytes, says it was cut, keeps the title and the
// start of the body, and is built without copying the whole body.
func TestIssueTextHuge(t *testing.T) {
	body := "panic: boom\n" + strings.Repeat("log line 0123456789\n", 28<<20/20)
	is := Issue{Title: "Server crashes", Body: body, Comments: []Comment{{Author: "ann", Body: "same here"}}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	text := is.Text()
	runtime.ReadMemStats(&after)
	if d := time.Since(start); d > time.Minute { // a hang guard
		t.Errorf("Text of a 28 MB issue took %v", d)
	}
	if len(text) > MaxTextBytes || CutNote(text) == "" {
		t.Fatalf("text: %d bytes (cap %d), cut note %q", len(text), MaxTextBytes, CutNote(text))
	}
	if !strings.HasPrefix(text, "# Server crashes\n\npanic: boom\n") {
		t.Fatalf("text starts %q", text[:60])
	}
	if strings.Contains(text, "same here") {
		t.Error("a comment after the cut is in the text")
	}
	// The body alone is 28 MB: a copy of it would show here.
	if n := after.TotalAlloc - before.TotalAlloc; n > 8*MaxTextBytes {
		t.Errorf("Text of a 28 MB issue allocated %d bytes", n)
	}
}

func TestIssueTextNormal(t *testing.T) {
	is := Issue{Title: " Title ", Body: "Body\n", Comments: []Comment{
		{Author: "ann", Body: "first"},
		{Author: "relay[bot]", Bot: true, Body: "report"},
		{Author: "bob", Body: "second"},
	}}
	want := "# Title\n\nBody\n\n---\nComment by ann:\n\nfirst\n\n---\nComment by bob:\n\nsecond\n"
	if diff := cmp.Diff(want, is.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}
