package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadTickets(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name    string
		file    string
		body    string
		want    []Ticket
		wantErr string
	}{
		{name: "jsonl", file: "t.jsonl", body: `{"id":"a-1","title":"T","body":"B"}` + "\n\n" + `{"id":42,"title":"","body":"only body"}` + "\n",
			want: []Ticket{{ID: "a-1", Title: "T", Body: "B"}, {ID: "42", Body: "only body"}}},
		{name: "jsonl with ref only", file: "t.jsonl", body: `{"id":"7","ref":"jira:SHOP-7"}`, want: []Ticket{{ID: "7", Ref: "jira:SHOP-7"}}},
		{name: "csv with BOM and reordered columns", file: "t.csv", body: "\ufeffbody,ID,title\n\"multi\nline\",x1,Title\n",
			want: []Ticket{{ID: "x1", Title: "Title", Body: "multi\nline"}}},
		{name: "bad id", file: "t.jsonl", body: `{"id":"../etc","title":"t"}`, wantErr: `t.jsonl:1: ticket id "../etc" must be 1-128 letters`},
		{name: "empty ticket", file: "t.jsonl", body: `{"id":"a"}`, wantErr: `ticket "a" has neither title nor body`},
		{name: "not JSON", file: "t.jsonl", body: "{\"id\":\"a\",\"title\":\"t\"}\nnope\n", wantErr: "t.jsonl:2: not a JSON object"},
		{name: "duplicate", file: "t.jsonl", body: `{"id":"a","title":"t"}` + "\n" + `{"id":"a","title":"u"}`, wantErr: `ticket id "a" appears twice`},
		{name: "csv without id", file: "t.csv", body: "title,body\nt,b\n", wantErr: "has no id column; want id,title,body"},
		{name: "csv bad row", file: "t.csv", body: "id,title\nok,t\n,t\n", wantErr: `t.csv:3: ticket id ""`},
		{name: "unknown format", file: "t.txt", body: "x", wantErr: "unknown format; name it .jsonl"},
		{name: "empty", file: "t.jsonl", body: "\n", wantErr: "holds no tickets"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(dir, fmt.Sprint(i), tc.file)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadTickets(p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tickets (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReadTicketsLongLine: a ticket on one 20 MB line (a pasted log) is
// read whole; bufio.Scanner used to stop with "token too long".
func TestReadTicketsLongLine(t *testing.T) {
	t.Parallel()
	body := strings.Repeat("x", 20<<20)
	p := filepath.Join(t.TempDir(), "t.jsonl")
	data := `{"id":"a","title":"short"}` + "\n" + `{"id":"big","title":"log","body":"` + body + `"}` + "\n" + `{"id":"c","title":"last"}`
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTickets(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[1].ID != "big" || len(got[1].Body) != len(body) || got[2].ID != "c" {
		t.Errorf("read %d tickets; want a, big (20 MiB body), c", len(got))
	}
}
