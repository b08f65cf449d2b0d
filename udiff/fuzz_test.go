package udiff

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// diffSeeds are the fuzz corpus's starting points: the diffs of
// TestParseDiff's cases (real git output, plain diff -u, no-newline
// markers, pure insertions), and here new and deleted files without index
// lines, binary patches, copies, quoted names, CRLF, mode changes, broken
// and huge hunk headers and the empty input.
var diffSeeds = append(caseDiffs(), []string{
	"",
	"\n",
	"just a commit message\n",
	`diff --git a/new.go b/new.go
new file mode 100644
--- /dev/null
+++ b/new.go
@@ -0,0 +1,2 @@
+package m
+func New() {}
diff --git a/old.go b/old.go
deleted file mode 100644
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
	"diff --git a/bin.dat b/bin.dat\nindex 1..2 100644\nGIT binary patch\nliteral 10\nRcmZ?wbhEHbRA6CX0RR6000\n\nliteral 0\nHcmV?d00001\n\n",
	"diff --git \"a/with space\\tand tab.go\" \"b/with space\\tand tab.go\"\n--- \"a/with space\\tand tab.go\"\n+++ \"b/with space\\tand tab.go\"\n@@ -1 +1 @@\n-a\n+b\n",
	"diff --git a/x.go b/x.go\r\n--- a/x.go\r\n+++ b/x.go\r\n@@ -1,2 +1,2 @@\r\n a\r\n-b\r\n+c\r\n",
	"diff --git a/m.sh b/m.sh\nold mode 100644\nnew mode 100755\n",
	"diff --git a/c.go b/d.go\nsimilarity index 90%\ncopy from c.go\ncopy to d.go\n--- a/c.go\n+++ b/d.go\n@@ -1 +1 @@\n-x\n+y\n",
	"--- a/x\n+++ b/x\n@@ -1,2 +1 @\n",
	"@@ -1 +1 @@\n",
	"--- a/x\n+++ b/x\n@@ -99999999999999999999,1 +1,1 @@\n-a\n+b\n",
	"--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+x\n",
}...)

// caseDiffs returns the diffs of parseCases.
func caseDiffs() []string {
	var out []string
	for _, c := range parseCases {
		out = append(out, c.diff)
	}
	return out
}

func FuzzParseDiff(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	if b, err := os.ReadFile(filepath.Join("testdata", "review", "change.diff")); err == nil {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := Parse(strings.NewReader(string(data)))
		if err != nil {
			if files != nil {
				t.Errorf("error %v with %d files", err, len(files))
			}
			return
		}
		if err := checkDiffInvariants(files); err != nil {
			t.Errorf("%v\ninput:\n%q", err, data)
		}
	})
}

// checkDiffInvariants states what every successful parse guarantees.
func checkDiffInvariants(files []FileDiff) error {
	if len(files) == 0 {
		return errors.New("no error and no files (want ErrEmpty)")
	}
	for i, f := range files {
		where := fmt.Sprintf("file %d (%q → %q)", i, f.OldPath, f.NewPath)
		if f.Path() == "" {
			return fmt.Errorf("%s: no path", where)
		}
		switch f.Status {
		case StatusAdded:
			if f.OldPath != "" {
				return fmt.Errorf("%s: added but has an old path", where)
			}
		case StatusDeleted:
			if f.NewPath != "" {
				return fmt.Errorf("%s: deleted but has a new path", where)
			}
		case StatusRenamed:
			if f.OldPath == "" || f.NewPath == "" {
				return fmt.Errorf("%s: renamed without both paths", where)
			}
		case StatusModified:
		default:
			return fmt.Errorf("%s: unknown status %q", where, f.Status)
		}
		for j, h := range f.Hunks {
			if err := checkHunk(h); err != nil {
				return fmt.Errorf("%s hunk %d: %v", where, j, err)
			}
		}
	}
	return nil
}

func checkHunk(h Hunk) error {
	if h.OldLines < 0 || h.NewLines < 0 || h.OldStart < 0 || h.NewStart < 0 {
		return fmt.Errorf("negative range %+v", h)
	}
	if len(h.Added) != len(h.AddedText) || len(h.Deleted) != len(h.DeletedText) {
		return errors.New("line numbers and texts differ in count")
	}
	if len(h.Added) > h.NewLines || len(h.Deleted) > h.OldLines {
		return fmt.Errorf("%d added / %d deleted lines exceed the header's %d / %d", len(h.Added), len(h.Deleted), h.NewLines, h.OldLines)
	}
	// Changed lines lie inside the declared ranges, 1-based, in order.
	inRange := func(ls []int, start, n int) bool {
		return slices.IsSorted(ls) && (len(ls) == 0 || (ls[0] >= max(start, 1) && ls[len(ls)-1] <= start+n-1))
	}
	if !inRange(h.Added, h.NewStart, h.NewLines) {
		return fmt.Errorf("added lines %v outside +%d,%d", h.Added, h.NewStart, h.NewLines)
	}
	if !inRange(h.Deleted, h.OldStart, h.OldLines) {
		return fmt.Errorf("deleted lines %v outside -%d,%d", h.Deleted, h.OldStart, h.OldLines)
	}
	for _, at := range h.Inserted {
		if at < h.OldStart || at > h.OldStart+h.OldLines+1 {
			return fmt.Errorf("insertion point %d outside -%d,%d", at, h.OldStart, h.OldLines)
		}
	}
	if (h.OldStart == 0) != (h.OldLines == 0) && h.OldStart == 0 {
		return fmt.Errorf("old range -0,%d starts at line 0", h.OldLines)
	}
	if (h.NewStart == 0) != (h.NewLines == 0) && h.NewStart == 0 {
		return fmt.Errorf("new range +0,%d starts at line 0", h.NewLines)
	}
	return nil
}

// TestParseDiffSeeds runs the invariants over the seed corpus on every
// plain go test, so they cannot rot between fuzzing sessions.
func TestParseDiffSeeds(t *testing.T) {
	t.Parallel()
	for i, s := range diffSeeds {
		files, err := Parse(strings.NewReader(s))
		if err != nil {
			continue
		}
		if err := checkDiffInvariants(files); err != nil {
			t.Errorf("seed %d: %v", i, err)
		}
	}
}

// TestParseDiffLongLine: one 20 MB changed line (minified code) parses;
// bufio.Scanner used to stop at 16 MiB with "token too long".
func TestParseDiffLongLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 20<<20)
	diff := "--- a/app.min.js\n+++ b/app.min.js\n@@ -1 +1,2 @@\n-old\n+" + long + "\n+tail\n"
	files, err := Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	h := files[0].Hunks[0]
	if len(h.AddedText) != 2 || len(h.AddedText[0]) != len(long) || h.AddedText[1] != "tail" {
		t.Errorf("added lines: %d, first %d bytes; want 2, %d bytes", len(h.AddedText), len(h.AddedText[0]), len(long))
	}
}
