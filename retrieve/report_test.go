package retrieve

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/testutil"
)

func TestContextReport(t *testing.T) {
	t.Parallel()
	root, g, _ := testRepo(t, nil)
	q := "Uploads bigger than the limit are rejected but `BlobStore.Put` still retries on EAGAIN; where is the upload size checked?"
	rep, err := ContextReport(t.Context(), root, g, q, ReportOptions{Files: 4, Symbols: 4})
	if err != nil {
		t.Fatal(err)
	}
	rep.TookMS = 0
	md := rep.Markdown()
	if !strings.Contains(md, OfflineNotice) {
		t.Error("markdown does not say that no model was used")
	}
	testutil.Golden(t, "report.md", md)
	data, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Offline != OfflineNotice || len(back.Files) != 4 || len(back.Symbols) != 4 {
		t.Errorf("json round trip: offline=%q files=%d symbols=%d", back.Offline, len(back.Files), len(back.Symbols))
	}
	var files []string
	for _, f := range back.Files {
		files = append(files, f.Path)
	}
	if !slices.Contains(files, "storage/store.go") || !slices.Contains(files, "server/server.go") {
		t.Errorf("files = %v, want storage/store.go (named) and server/server.go (upload size) listed", files)
	}
	if len(back.Mentions) != 1 || back.Mentions[0] != "BlobStore.Put" {
		t.Errorf("mentions = %v", back.Mentions)
	}
	// A question that matches nothing says so.
	empty, err := ContextReport(t.Context(), root, g, "zzqx wvvy", ReportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(empty.Markdown(), "Nothing in the index matched") {
		t.Errorf("empty report:\n%s", empty.Markdown())
	}
}

func TestMentions(t *testing.T) {
	t.Parallel()
	got := mentions("Calling `cfg.Load()` then Config.Validate, parseFlags and max_retries, e.g. in HTTP; see i.e. foo()")
	want := []string{"cfg.Load", "Config.Validate", "parseFlags", "max_retries", "foo"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("mentions = %q, want %q", got, want)
	}
}
