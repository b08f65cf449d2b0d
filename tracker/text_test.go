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
			got := CapText(tt.in)
			if got.Cut != tt.wantCut {
				t.Fatalf("cut = %v, want %v", got.Cut, tt.wantCut)
			}
			if !tt.wantCut {
				if got.Body != tt.in || got.String() != tt.in || got.Note() != "" {
					t.Fatal("an uncut text changed or carries a note")
				}
				return
			}
			s := got.String()
			if len(s) > MaxTextBytes || !utf8.ValidString(s) {
				t.Fatalf("cut text: %d bytes (cap %d), valid UTF-8 %v", len(s), MaxTextBytes, utf8.ValidString(s))
			}
			if got.Note() == "" || !strings.HasSuffix(s, got.Note()) || !strings.Contains(s, "256 KiB") {
				t.Fatalf("the cut text does not say it was cut: ...%q", s[len(s)-200:])
			}
			if strings.Contains(got.Body, "256 KiB") || !strings.HasPrefix(tt.in, got.Body) {
				t.Fatal("the body is not the start of the input alone")
			}
			if s != got.Body+"\n\n"+got.Note() {
				t.Errorf("String = body + %d bytes, want the body, a blank line and the note", len(s)-len(got.Body))
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
	if s := text.String(); len(s) > MaxTextBytes || !text.Cut {
		t.Fatalf("text: %d bytes (cap %d), cut %v", len(s), MaxTextBytes, text.Cut)
	}
	if !strings.HasPrefix(text.Body, "# Server crashes\n\npanic: boom\n") {
		t.Fatalf("text starts %q", text.Body[:60])
	}
	if strings.Contains(text.Body, "same here") {
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
	if diff := cmp.Diff(Text{Body: want}, is.Text()); diff != "" {
		t.Errorf("Text (-want +got):\n%s", diff)
	}
}

// TestReadHead: a paste far over the cap is read only to one byte past it,
// enough for CapText to cut it and say so.
func TestReadHead(t *testing.T) {
	b, err := ReadHead(strings.NewReader(strings.Repeat("x", 3*MaxTextBytes)))
	if err != nil || len(b) != MaxTextBytes+1 {
		t.Fatalf("ReadHead = %d bytes, %v; want %d", len(b), err, MaxTextBytes+1)
	}
	if got := CapText(string(b)); !got.Cut {
		t.Error("the head of a long paste is not cut")
	}
	b, err = ReadHead(strings.NewReader("short issue"))
	if err != nil || string(b) != "short issue" {
		t.Errorf("ReadHead(short) = %q, %v", b, err)
	}
}
