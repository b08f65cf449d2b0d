package cinclude

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCompileDB(t *testing.T) {
	tests := []struct {
		name, db string
		want     []Command
		dirs     []string
		err      string
	}{
		{name: "arguments", db: `[{"directory": "b", "file": "../src/a.c", "arguments": ["cc", "-Iinc", "-isystem", "/sys", "-iquote", "q", "-c", "a.c"]}]`,
			want: []Command{{Directory: "/r/b", File: "/r/src/a.c", Arguments: []string{"cc", "-Iinc", "-isystem", "/sys", "-iquote", "q", "-c", "a.c"}}},
			dirs: []string{"/r/b/q", "/r/b/inc", "/sys"}},
		{name: "command", db: `[{"directory": "/x", "file": "a.c", "command": "cc -I 'my dir' -DX=\"1 2\" -c a.c", "output": "a.o"}]`,
			want: []Command{{Directory: "/x", File: "/x/a.c", Arguments: []string{"cc", "-I", "my dir", "-DX=1 2", "-c", "a.c"}, Output: "a.o"}},
			dirs: []string{"/x/my dir"}},
		{name: "not json", db: `{`, err: "parse compilation database"},
		{name: "no file", db: `[{"directory": "/x", "command": "cc"}]`, err: "entry 0: no file"},
		{name: "no command", db: `[{"directory": "/x", "file": "a.c"}]`, err: "neither arguments nor command"},
		{name: "bad quote", db: `[{"directory": "/x", "file": "a.c", "command": "cc 'a"}]`, err: "split command"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCompileDB([]byte(tt.db), "/r")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.dirs, got[0].IncludeDirs()); diff != "" {
				t.Errorf("include dirs (-want +got):\n%s", diff)
			}
		})
	}
}
