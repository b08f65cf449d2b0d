package retrieve

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

func TestPlanSegments(t *testing.T) {
	t.Parallel()
	// The previous index: segments of the files named, in order.
	prev := func(segs ...string) *prevIndex {
		c := &diskindex.Commit{}
		for i, s := range segs {
			ref := diskindex.SegmentRef{Name: fmt.Sprintf("retrieve-%d.seg", i)}
			for _, p := range strings.Fields(s) {
				ref.Files = append(ref.Files, diskindex.FileEntry{Path: p})
			}
			c.Segments = append(c.Segments, ref)
		}
		return newPrevIndex("retrieve.idx", c)
	}
	show := func(plans []segPlan) []string {
		var out []string
		for _, p := range plans {
			what := "new"
			if p.keep >= 0 {
				what = fmt.Sprintf("keep%d", p.keep)
			}
			out = append(out, what+": "+strings.Join(p.paths, " "))
		}
		return out
	}
	tests := []struct {
		name    string
		prev    *prevIndex
		paths   string
		changed string // the paths that changed
		dirty   []int  // old segments rewritten whatever their files
		want    []string
	}{
		{"first build", nil, "a b c d e f g h i j", "", nil,
			[]string{"new: a b c", "new: d e f", "new: g h i j"}},
		{"nothing changed", prev("a b c d", "e f g h", "i j k l"), "a b c d e f g h i j k l", "", nil,
			[]string{"keep0: a b c d", "keep1: e f g h", "keep2: i j k l"}},
		{"one edit", prev("a b c d", "e f g h", "i j k l"), "a b c d e f g h i j k l", "f", nil,
			[]string{"keep0: a b c d", "new: e f g h", "keep2: i j k l"}},
		{"a file added and one removed", prev("a b c d", "e f g h", "i j k l"), "a b c d e ff g h i j k", "ff", nil,
			[]string{"keep0: a b c d", "new: e ff g h", "new: i j k"}},
		{"a file before the first", prev("b c d e", "f g h i"), "a b c d e f g h i", "a", nil,
			[]string{"new: a b c d e", "keep1: f g h i"}},
		{"walk order, not string order", prev("a/x a/y a.go b", "b/x b/y b.go c"), "a/x a/y a.go b b/w b/x b/y b.go c", "b/w", nil,
			[]string{"new: a/x a/y a.go b b/w", "keep1: b/x b/y b.go c"}},
		{"shrunk below half: takes in the next", prev("a b c d", "e f g h", "i j k l"), "a b c d e i j k l", "", nil,
			[]string{"keep0: a b c d", "new: e i j k l"}},
		{"shrunk at the end: taken in by the one before", prev("a b c d", "e f g h", "i j k l"), "a b c d e f g h i", "", nil,
			[]string{"keep0: a b c d", "new: e f g h i"}},
		{"grown past one and a half: split", prev("a b c d", "e f g h"), "a b c d e e1 e2 e3 f g h", "e1 e2 e3", nil,
			[]string{"keep0: a b c d", "new: e e1 e2", "new: e3 f g h"}},
		{"a damaged segment", prev("a b c d", "e f g h"), "a b c d e f g h", "", []int{0},
			[]string{"new: a b c d", "keep1: e f g h"}},
		{"every file gone", prev("a b c d"), "", "", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths := strings.Fields(tt.paths)
			changed := make([]bool, len(paths))
			for i, p := range paths {
				changed[i] = slices.Contains(strings.Fields(tt.changed), p)
			}
			var dirty []bool
			if tt.prev != nil {
				dirty = make([]bool, len(tt.prev.commit.Segments))
				for _, k := range tt.dirty {
					dirty[k] = true
				}
			}
			got := show(planSegments(paths, tt.prev, changed, dirty, 4))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

// segmentRepo writes a repository of 12 packages of 10 Go files and a
// README each into a temporary directory, and returns it with a writer.
func segmentRepo(t *testing.T) (string, func(rel, text string)) {
	t.Helper()
	root := t.TempDir()
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.22\n")
	// The walk meets p05/… before p05.md, which strings.Compare orders
	// the other way round.
	write("p05.md", "# p05\n\nNotes on the fifth package.\n")
	for i := range 120 {
		pkg := fmt.Sprintf("p%02d", i/10)
		write(fmt.Sprintf("%s/f%03d.go", pkg, i), segmentGoFile(pkg, i, "x := 1\n\t_ = x"))
		if i%10 == 0 {
			write(pkg+"/README.md", fmt.Sprintf("# Package %s\n\nIt handles requests and retries uploads.\n\n## Details\n\nMore about %s.\n", pkg, pkg))
		}
	}
	return root, write
}

func segmentGoFile(pkg string, i int, body string) string {
	return fmt.Sprintf("package %s\n\n// Handle%d serves request number %d and retries the upload.\nfunc Handle%d() int {\n\t%s\n\treturn %d\n}\n\n// Store%d keeps things for the server.\ntype Store%d struct{ n int }\n", pkg, i, i, i, body, i, i, i)
}

// segmentNames lists the segment files in dir.
func segmentNames(t *testing.T, dir string) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "retrieve-*.seg"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	return names
}

// scored runs queries and returns each hit's location and score.
func scored(t *testing.T, root, dir string, g graphdb.Reader, queries []string) []string {
	t.Helper()
	s, err := Open(root, g, OpenOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range queries {
		res, err := s.Search(t.Context(), q, SearchOptions{Limit: 20, NoFastPath: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			out = append(out, fmt.Sprintf("%s: %s:%d %s %.12g", q, h.Path, h.StartLine, h.Name, h.Score))
		}
		rep, err := s.Report(t.Context(), q, ReportOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Files {
			out = append(out, fmt.Sprintf("%s: file %s %.12g", q, f.Path, f.Score))
		}
	}
	return out
}

// TestIncrementalEqualsFullBuild: an index updated in place through a
// series of edits (segments of 8 files, so that the repository has 17 of
// them) answers every query with the same hits and scores as a full
// build of the same tree in one segment, and each update rewrites only
// the segments whose files changed.
func TestIncrementalEqualsFullBuild(t *testing.T) {
	t.Parallel()
	root, write := segmentRepo(t)
	dir := filepath.Join(root, ".relay")
	opts := BuildOptions{segmentFiles: 8}
	if _, err := Build(t.Context(), root, testutil.FakeIndex(t, root), opts); err != nil {
		t.Fatal(err)
	}
	queries := []string{"retry the upload", "Handle55 request", "server store", "package details", "refund budget", "p07 README"}
	steps := []struct {
		name    string
		edit    func()
		written int // segment files the update writes
	}{
		{"one-line edit", func() { write("p05/f055.go", segmentGoFile("p05", 55, "refundBudget := 7\n\t_ = refundBudget")) }, 1},
		{"a file added", func() { write("p11/f999.go", segmentGoFile("p11", 999, "added := true\n\t_ = added")) }, 1},
		{"files removed", func() {
			for i := 30; i < 36; i++ {
				os.Remove(filepath.Join(root, fmt.Sprintf("p03/f%03d.go", i)))
			}
		}, -1},
		{"a package added before the rest", func() {
			for i := range 20 {
				write(fmt.Sprintf("a00/g%02d.go", i), segmentGoFile("a00", 1000+i, "early := 1\n\t_ = early"))
			}
		}, -1},
		{"edits in two places", func() {
			write("p00/README.md", "# Package p00\n\nIt no longer retries.\n")
			write("p09/f095.go", segmentGoFile("p09", 95, "budget := 9\n\t_ = budget"))
		}, 2},
	}
	for _, step := range steps {
		before := segmentNames(t, dir)
		step.edit()
		g := testutil.FakeIndex(t, root)
		if _, err := Build(t.Context(), root, g, opts); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		after := segmentNames(t, dir)
		var written []string
		for _, n := range after {
			if !slices.Contains(before, n) {
				written = append(written, n)
			}
		}
		c, err := diskindex.ReadCommit(filepath.Join(dir, IndexFile))
		if err != nil {
			t.Fatal(err)
		}
		var named []string
		for _, seg := range c.Segments {
			named = append(named, seg.Name)
		}
		slices.Sort(named)
		if diff := cmp.Diff(named, after); diff != "" {
			t.Errorf("%s: segment files left beside the commit's (-named +files):\n%s", step.name, diff)
		}
		if step.written >= 0 && len(written) != step.written {
			t.Errorf("%s: %d segments written, want %d (of %d)", step.name, len(written), step.written, len(after))
		}
		full := t.TempDir()
		if _, err := Build(t.Context(), root, g, BuildOptions{Dir: full, Force: true}); err != nil {
			t.Fatal(err)
		}
		if n := len(segmentNames(t, full)); n != 1 {
			t.Fatalf("the full build wrote %d segments, want 1", n)
		}
		if diff := cmp.Diff(scored(t, root, full, g, queries), scored(t, root, dir, g, queries)); diff != "" {
			t.Errorf("%s: answers (-full build +updated in place):\n%s", step.name, diff)
		}
		matchesFullBuild(t, root, g)
	}
}

// TestSegmentDamage: a segment file damaged or missing is refused by Open
// with an error naming the index and the segment, and the next Build
// rebuilds the files of that segment only.
func TestSegmentDamage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		damage func(p string) error
		reason string
	}{
		{"bit flip", func(p string) error {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			data[len(data)/2] ^= 4
			return os.WriteFile(p, data, 0o644)
		}, "checksum mismatch"},
		{"missing", os.Remove, "is missing"},
		{"truncated", func(p string) error { return os.Truncate(p, 100) }, "bytes where the index records"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root, _ := segmentRepo(t)
			dir := filepath.Join(root, ".relay")
			g := testutil.FakeIndex(t, root)
			first, err := Build(t.Context(), root, g, BuildOptions{segmentFiles: 8})
			if err != nil {
				t.Fatal(err)
			}
			want := scored(t, root, dir, g, []string{"retry the upload"})
			c, err := diskindex.ReadCommit(filepath.Join(dir, IndexFile))
			if err != nil {
				t.Fatal(err)
			}
			seg := c.Segments[3]
			if err := tt.damage(filepath.Join(dir, seg.Name)); err != nil {
				t.Fatal(err)
			}
			_, err = Open(root, g, OpenOptions{})
			if !errors.Is(err, ErrIndexDamaged) || !strings.Contains(err.Error(), seg.Name) || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Open with segment %s damaged = %v, want ErrIndexDamaged naming it and %q", seg.Name, err, tt.reason)
			}
			var logs bytes.Buffer
			st, err := Build(t.Context(), root, g, BuildOptions{segmentFiles: 8, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			if err != nil {
				t.Fatal(err)
			}
			if st.Files != first.Files || st.Changed != len(seg.Files) {
				t.Errorf("rebuild = %+v, want the %d files of the damaged segment chunked again", st, len(seg.Files))
			}
			if !strings.Contains(logs.String(), "search index segment damaged; rebuilding its files") {
				t.Errorf("no log line on the damaged segment: %s", logs.String())
			}
			if diff := cmp.Diff(want, scored(t, root, dir, g, []string{"retry the upload"})); diff != "" {
				t.Errorf("answers after the rebuild (-before +after):\n%s", diff)
			}
		})
	}
}

// TestOlderFormatRebuiltWithLogLine: an index of an earlier format is
// rebuilt from scratch, and the build says so.
func TestOlderFormatRebuiltWithLogLine(t *testing.T) {
	t.Parallel()
	root := testutil.WriteTxtar(t, "testdata/repo.txtar")
	g := testutil.FakeIndex(t, root)
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/format9.idx")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, IndexFile), data, 0o600); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	st, err := Build(t.Context(), root, g, BuildOptions{Dir: dir, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	if err != nil || st.Reused != 0 || st.Changed != st.Files {
		t.Fatalf("Build over a format 9 index = %+v, %v; want a rebuild", st, err)
	}
	want := "search index of another relay version; rebuilding it"
	if !strings.Contains(logs.String(), want) || !strings.Contains(logs.String(), "format 9; this relay reads format") {
		t.Errorf("log = %s, want %q with the formats", logs.String(), want)
	}
}
