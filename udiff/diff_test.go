package udiff

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// parseCases are TestParseDiff's diffs and what Parse makes of them; the
// fuzz corpus starts from their diffs too (diffSeeds).
var parseCases = []struct {
	name string
	diff string
	want []FileDiff
}{
	{
		name: "modified with context and no newline at EOF",
		diff: `commit message lines are skipped
diff --git a/storage/retry.go b/storage/retry.go
index 1111111..2222222 100644
--- a/storage/retry.go
+++ b/storage/retry.go
@@ -10,4 +10,5 @@ func RetryWithBackoff(attempts int, fn func() error) error {
 	var err error
-	for i := 0; i < attempts; i++ {
+	for i := range attempts {
+		log.Printf("attempt %d", i)
 		if err = fn(); err == nil {
 		}
@@ -30 +31 @@ func isTransient(err error) bool {
-	return false
\ No newline at end of file
+	return true
\ No newline at end of file
`,
		want: []FileDiff{{OldPath: "storage/retry.go", NewPath: "storage/retry.go", Status: StatusModified, Hunks: []Hunk{
			{OldStart: 10, OldLines: 4, NewStart: 10, NewLines: 5, Section: "func RetryWithBackoff(attempts int, fn func() error) error {", Added: []int{11, 12}, Deleted: []int{11}},
			{OldStart: 30, OldLines: 1, NewStart: 31, NewLines: 1, Section: "func isTransient(err error) bool {", Added: []int{31}, Deleted: []int{30}, NoNewlineOld: true, NoNewlineNew: true},
		}}},
	},
	{
		name: "new, deleted, renamed and binary files",
		diff: `diff --git a/new.go b/new.go
new file mode 100644
index 0000000..3333333
--- /dev/null
+++ b/new.go
@@ -0,0 +1,2 @@
+package m
+func New() {}
diff --git a/old.go b/old.go
deleted file mode 100644
index 4444444..0000000
--- a/old.go
+++ /dev/null
@@ -1,2 +0,0 @@
-package m
-func Old() {}
diff --git a/a/x.go b/b/y.go
similarity index 100%
rename from a/x.go
rename to b/y.go
diff --git a/logo.png b/logo.png
index 5555555..6666666 100644
Binary files a/logo.png and b/logo.png differ
`,
		want: []FileDiff{
			{NewPath: "new.go", Status: StatusAdded, Hunks: []Hunk{{OldStart: 0, OldLines: 0, NewStart: 1, NewLines: 2, Added: []int{1, 2}, Inserted: []int{1}}}},
			{OldPath: "old.go", Status: StatusDeleted, Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 0, NewLines: 0, Deleted: []int{1, 2}}}},
			{OldPath: "a/x.go", NewPath: "b/y.go", Status: StatusRenamed},
			{OldPath: "logo.png", NewPath: "logo.png", Status: StatusModified, Binary: true},
		},
	},
	{
		name: "plain diff -u with timestamps and a rename with edits",
		diff: `--- config.yaml	2024-01-01 10:00:00
+++ config.yaml	2024-01-02 10:00:00
@@ -1,2 +1,2 @@
 listen: :8080
-replicas: 2
+replicas: 3
--- docs/old.md
+++ docs/new.md
@@ -3 +3,2 @@
-x
+y
+z
`,
		want: []FileDiff{
			{OldPath: "config.yaml", NewPath: "config.yaml", Status: StatusModified, Hunks: []Hunk{{OldStart: 1, OldLines: 2, NewStart: 1, NewLines: 2, Added: []int{2}, Deleted: []int{2}}}},
			{OldPath: "docs/old.md", NewPath: "docs/new.md", Status: StatusRenamed, Hunks: []Hunk{{OldStart: 3, OldLines: 1, NewStart: 3, NewLines: 2, Added: []int{3, 4}, Deleted: []int{3}}}},
		},
	},
	{
		name: "pure insertions: inside a hunk and a zero-length old range",
		diff: `--- a/m.go
+++ b/m.go
@@ -4,2 +4,4 @@ func F() {
 	a()
+	b()
+	c()
 }
@@ -9,0 +12 @@ func G() {
+	d()
`,
		want: []FileDiff{{OldPath: "m.go", NewPath: "m.go", Status: StatusModified, Hunks: []Hunk{
			{OldStart: 4, OldLines: 2, NewStart: 4, NewLines: 4, Section: "func F() {", Added: []int{5, 6}, Inserted: []int{5}},
			{OldStart: 9, OldLines: 0, NewStart: 12, NewLines: 1, Section: "func G() {", Added: []int{12}, Inserted: []int{10}},
		}}},
	},
	{
		name: "deleted line that looks like a header, blank context line",
		diff: `--- a/notes.md
+++ b/notes.md
@@ -1,3 +1,2 @@
--- a list item
 
 end
`,
		want: []FileDiff{{OldPath: "notes.md", NewPath: "notes.md", Status: StatusModified, Hunks: []Hunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 2, Deleted: []int{1}}}}},
	},
}

func TestParseDiff(t *testing.T) {
	t.Parallel()
	for _, tt := range parseCases {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(strings.NewReader(tt.diff))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Hunk{}, "AddedText", "DeletedText"), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseDiffErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, diff, want string
	}{
		{"empty", "", "no file changes found"},
		{"prose only", "just some text\nnothing else\n", "no file changes found"},
		{"bad hunk header", "--- a/x\n+++ b/x\n@@ -1,2 +1 @\n", "line 3: malformed hunk header"},
		{"hunk before file", "@@ -1 +1 @@\n", "line 1: hunk header before any file header"},
		{"garbage in hunk", "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n x\n?y\n", "line 5: unexpected \"?y\" inside hunk"},
		{"truncated hunk", "--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n x\n", "line 5: hunk @@ -1,3 +1,3 @@ ends early"},
		{"too many added", "--- a/x\n+++ b/x\n@@ -1,1 +1,1 @@\n+a\n+b\n", "line 5: added line \"+b\" exceeds"},
		{"plus without minus", "+++ b/x\n", "line 1: \"+++ b/x\" without a preceding --- line"},
		{"line number out of range", "--- a/x\n+++ b/x\n@@ -99999999999999999999,1 +1 @@\n-a\n+b\n", "line 3: hunk header \"@@ -99999999999999999999,1 +1 @@\": line number 99999999999999999999 is out of range"},
		{"range at line 0", "--- a/x\n+++ b/x\n@@ -0,1 +1 @@\n-a\n+b\n", "line 3: hunk header \"@@ -0,1 +1 @@\": a range holding lines starts at line 1, not 0"},
		{"no path on either side", "--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n", "line 1: file change without a path on either side"},
		{"deleted with a new path", "diff --git 0 0\ndeleted file mode\n+++ 00", "line 1: file \"0\" is marked deleted (deleted file mode or +++ /dev/null) but also has the new path \"00\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse(strings.NewReader(tt.diff))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
			if tt.want == "no file changes found" && !errors.Is(err, ErrEmpty) {
				t.Errorf("err = %v, want ErrEmpty", err)
			}
		})
	}
}
