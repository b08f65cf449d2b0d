package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/tracker"
)

// TestHugeIssueCut is the audit's probe: an offline `relay scope` of a
// 28 MB issue took 20 s and 520 MB. The issue is now read up to
// tracker.MaxTextBytes only, the report says it was cut, and stderr says so
// too; a normal issue is untouched.
func TestHugeIssueCut(t *testing.T) {
	t.Parallel()
	repo := sampleRepo(t)
	// Index once, so the timings below are the issue's alone.
	if code, _, stderr := relay(t, "", "index", "--repo", repo); code != 0 {
		t.Fatalf("index = %d: %s", code, stderr)
	}
	huge := "SMS sent twice when the gateway is slow\n" + strings.Repeat("gateway timeout while sending the SMS, retrying\n", 28<<20/48)
	file := filepath.Join(t.TempDir(), "huge.md")
	if err := os.WriteFile(file, []byte(huge), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		stdin   string
		args    []string
		wantCut bool
	}{
		{"file of 28 MB", "", []string{"--file", file}, true},
		{"stdin of 28 MB", huge, []string{"-"}, true},
		{"normal issue", "", []string{"SMS sent twice when the gateway is slow"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			code, stdout, stderr := relay(t, tt.stdin, append([]string{"scope", "--repo", repo, "--format", "json"}, tt.args...)...)
			took := time.Since(start)
			if code != 0 {
				t.Fatalf("scope = %d: %s", code, stderr)
			}
			// 20 s before the cut. A hang guard only: on a busy machine a
			// normal scope took 29.5 s; BenchmarkHugeIssueCut measures it.
			t.Logf("scope took %v", took)
			if took > 2*time.Minute {
				t.Errorf("scope took %v", took)
			}
			var js struct {
				Input string   `json:"input"`
				Terms []string `json:"terms"`
				Notes []string `json:"notes"`
				Files []struct {
					Path string `json:"path"`
				} `json:"files"`
			}
			if err := json.Unmarshal([]byte(stdout), &js); err != nil {
				t.Fatalf("JSON: %v", err)
			}
			noted := strings.Contains(strings.Join(js.Notes, "\n"), "cut")
			said := strings.Contains(stderr, "only its first 256 KiB are read")
			if noted != tt.wantCut || said != tt.wantCut {
				t.Errorf("cut: report note %v, stderr %v; want %v\nstderr: %s", noted, said, tt.wantCut, stderr)
			}
			// The note is for the reader, not searched as the issue's words.
			if strings.Contains(js.Input, "was cut") || slices.Contains(js.Terms, "kib") {
				t.Errorf("the note was searched: terms %v", js.Terms)
			}
			if len(js.Input) > tracker.MaxTextBytes {
				t.Errorf("the report's input is %d bytes, over the cap %d", len(js.Input), tracker.MaxTextBytes)
			}
			if len(js.Files) == 0 || js.Files[0].Path != "notify/sms.go" && !strings.Contains(stdout, "notify/sms.go") {
				t.Errorf("the report lost the SMS code: %+v", js.Files)
			}
		})
	}
}

// BenchmarkHugeIssueCut measures what TestHugeIssueCut only guards: an
// offline `relay scope` of a 28 MB issue on an indexed repository (the
// speed target: about what a normal issue costs).
//
//	go test ./cmd/relay -run '^$' -bench BenchmarkHugeIssueCut -benchtime 3x
func BenchmarkHugeIssueCut(b *testing.B) {
	repo := sampleRepo(b)
	quiet := func(string) string { return "" }
	var out, errb strings.Builder
	if code := run(b.Context(), []string{"index", "--repo", repo}, strings.NewReader(""), &out, &errb, quiet); code != 0 {
		b.Fatalf("index = %d: %s", code, errb.String())
	}
	huge := "SMS sent twice when the gateway is slow\n" + strings.Repeat("gateway timeout while sending the SMS, retrying\n", 28<<20/48)
	for _, c := range []struct{ name, stdin string }{{"huge", huge}, {"normal", "SMS sent twice when the gateway is slow"}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				out.Reset()
				errb.Reset()
				if code := run(b.Context(), []string{"scope", "--repo", repo, "--format", "json", "-"}, strings.NewReader(c.stdin), &out, &errb, quiet); code != 0 {
					b.Fatalf("scope = %d: %s", code, errb.String())
				}
			}
		})
	}
}
