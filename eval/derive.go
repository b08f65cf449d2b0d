package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/udiff"
)

// Gold is the answer a fix implies for a localization instance: the files
// and functions of the pre-fix source that the fix changed.
type Gold struct {
	Files     []string `json:"gold_files"`
	Functions []string `json:"gold_functions"`
	// Lines gives, per gold file, the lines of the pre-fix file a reader
	// must see to make the fix (GoldLines); files the diff has no hunks
	// for (DiffTrees of non-Go files) have none.
	Lines map[string][]int `json:"gold_lines,omitempty"`
	// Skipped lists changed files left out of the gold, each with why
	// (new file, test, generated, not Go source).
	Skipped []string `json:"-"`
}

// GoldFromDiff derives the gold answer of a fix given as a unified diff
// against the pre-fix checkout at root. Only Go source counts: tests,
// testdata, vendor and generated files are skipped, and so are files the fix
// adds (they cannot be found in the pre-fix tree). A function is gold when
// a deleted or modified line falls in its declaration (doc comment
// excluded) or lines are inserted strictly inside it; location names are
// "path/file.go:Func" and "path/file.go:Recv.Method", as the graph writes
// them.
func GoldFromDiff(root string, diffs []udiff.FileDiff) (Gold, error) {
	return GoldFromDiffGraph(context.Background(), root, diffs, nil)
}

// GoldFromDiffGraph is GoldFromDiff for every language: Go files as
// GoldFromDiff reads them, and the source files of any other language
// (retrieve's SourceLanguages, tests excluded) through the graph of the
// checkout, graph, by mapping the changed lines to its function and method
// nodes (see goldFromNodes). A file of a language graph has no functions
// for is gold with its functions unknown (noted in Skipped). graph may be
// nil: only Go source counts then, as in GoldFromDiff.
func GoldFromDiffGraph(ctx context.Context, root string, diffs []udiff.FileDiff, graph graphdb.Reader) (Gold, error) {
	var g Gold
	for _, d := range diffs {
		p := d.OldPath
		switch {
		case d.Status == udiff.StatusAdded || p == "":
			g.Skipped = append(g.Skipped, d.Path()+": new file")
			continue
		case !strings.HasSuffix(p, ".go") && graph != nil:
			if err := goldFromGraph(ctx, root, d, graph, &g); err != nil {
				return Gold{}, err
			}
			continue
		case !strings.HasSuffix(p, ".go"):
			g.Skipped = append(g.Skipped, p+": not Go source")
			continue
		case strings.HasSuffix(p, "_test.go"):
			g.Skipped = append(g.Skipped, p+": test")
			continue
		case skippedDir(p):
			g.Skipped = append(g.Skipped, p+": testdata, vendor or hidden directory")
			continue
		case d.Status == udiff.StatusRenamed && len(d.Hunks) == 0:
			g.Skipped = append(g.Skipped, p+": renamed without edits")
			continue
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return Gold{}, fmt.Errorf("%s is in the diff but not in the checkout %s: %w (is the diff against this tree?)", p, root, err)
		}
		fset := token.NewFileSet()
		f, _ := parser.ParseFile(fset, p, src, parser.ParseComments|parser.SkipObjectResolution)
		if f != nil && ast.IsGenerated(f) {
			g.Skipped = append(g.Skipped, p+": generated")
			continue
		}
		if tag := neverBuilt(src); tag != "" {
			g.Skipped = append(g.Skipped, p+": built only with the "+tag+" tag")
			continue
		}
		if d.Status != udiff.StatusDeleted {
			if why := trivialChange(d.Hunks, isCodeLine); why != "" {
				g.Skipped = append(g.Skipped, p+": "+why)
				continue
			}
		}
		g.Files = append(g.Files, p)
		if f == nil {
			continue // unparsable: the file is gold, its functions unknown
		}
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			start, end := fset.Position(fd.Pos()).Line, fset.Position(fd.End()).Line
			if d.Status == udiff.StatusDeleted || touches(d.Hunks, start, end) {
				g.Functions = append(g.Functions, p+":"+golang.FuncLocName(fd))
			}
		}
	}
	slices.Sort(g.Files)
	g.Files = slices.Compact(g.Files)
	slices.Sort(g.Functions)
	g.Functions = slices.Compact(g.Functions)
	if ls := GoldLines(diffs, g.Files); len(ls) > 0 {
		g.Lines = ls
	}
	if g.Files == nil {
		g.Files = []string{}
	}
	if g.Functions == nil {
		g.Functions = []string{}
	}
	return g, nil
}

// touches reports whether the hunks change code on old lines start..end:
// a deleted code line inside, or code inserted strictly between two of its
// lines. In a hunk with one contiguous change, the deleted lines count when
// the change adds code (a comment replaced by code).
func touches(hs []udiff.Hunk, start, end int) bool {
	for _, h := range hs {
		addCode := slices.ContainsFunc(h.AddedText, isCodeLine)
		single := contiguous(h.Deleted) && contiguous(h.Added)
		for i, l := range h.Deleted {
			if l < start || l > end {
				continue
			}
			if (i < len(h.DeletedText) && isCodeLine(h.DeletedText[i])) || (addCode && single) {
				return true
			}
		}
		if !addCode {
			continue
		}
		for _, l := range h.Inserted {
			if l > start && l <= end {
				return true
			}
		}
	}
	return false
}

func contiguous(ls []int) bool {
	for i := 1; i < len(ls); i++ {
		if ls[i] != ls[i-1]+1 {
			return false
		}
	}
	return true
}

// isCodeLine reports whether a source line holds code: not blank, not a
// line comment, not the inside of a block comment written with leading *.
func isCodeLine(s string) bool {
	t := strings.TrimSpace(s)
	return t != "" && !strings.HasPrefix(t, "//") && !strings.HasPrefix(t, "/*") && !strings.HasPrefix(t, "*")
}

// versionLine matches a version constant being set: Version = "1.2.3".
var versionLine = regexp.MustCompile(`(?i)version\w*\s*(string\s*)?=\s*"v?\d+(\.\d+)+[^"]*"\s*(//.*)?$`)

// trivialChange says why a file's change is no fix ("" when it may be):
// only comments and blank lines changed, or only a version constant.
func trivialChange(hs []udiff.Hunk, isCode func(string) bool) string {
	code, versions := 0, 0
	for _, h := range hs {
		for _, l := range slices.Concat(h.DeletedText, h.AddedText) {
			if !isCode(l) {
				continue
			}
			code++
			if versionLine.MatchString(l) {
				versions++
			}
		}
	}
	switch {
	case code == 0 && len(hs) > 0:
		return "comments or blank lines only"
	case code > 0 && versions == code:
		return "version constant only"
	}
	return ""
}

// ignoredDir reports whether DiffTrees leaves a directory out: testdata,
// vendor and hidden directories.
func ignoredDir(name string) bool {
	return name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".")
}

// skippedDir reports whether a path lies in a directory no gold comes from:
// an ignoredDir, or one the go command ignores ("_" prefix).
func skippedDir(p string) bool {
	parts := strings.Split(p, "/")
	for _, d := range parts[:len(parts)-1] {
		if ignoredDir(d) || strings.HasPrefix(d, "_") {
			return true
		}
	}
	return false
}

// neverBuilt returns "ignore" or "gofuzz" when the file's build constraint
// cannot hold without that tag (a harness or a go:generate program, not part
// of any build), "" otherwise.
func neverBuilt(src []byte) string {
	var expr constraint.Expr
	for line := range bytes.SplitSeq(src, []byte("\n")) {
		t := strings.TrimSpace(string(line))
		if strings.HasPrefix(t, "package ") {
			break
		}
		if constraint.IsGoBuild(t) || (expr == nil && constraint.IsPlusBuild(t)) {
			if e, err := constraint.Parse(t); err == nil {
				expr = e
			}
		}
	}
	if expr == nil {
		return ""
	}
	tags := map[string]bool{}
	expr.Eval(func(tag string) bool { tags[tag] = true; return true })
	var others []string
	for t := range tags {
		if t != "ignore" && t != "gofuzz" {
			others = append(others, t)
		}
	}
	if len(others) > 16 {
		return ""
	}
	for mask := 0; mask < 1<<len(others); mask++ {
		set := map[string]bool{}
		for i, t := range others {
			set[t] = mask&(1<<i) != 0
		}
		if expr.Eval(func(tag string) bool { return set[tag] }) {
			return "" // satisfiable with ignore and gofuzz off
		}
	}
	for _, t := range []string{"ignore", "gofuzz"} {
		if tags[t] {
			return t
		}
	}
	return ""
}

// DiffTrees compares the Go files of two source trees (old and new) and
// returns their differences as FileDiffs with hunks, as a unified diff
// between them would give; other files are reported without hunks.
// Directories named testdata, vendor or starting with "." are skipped.
func DiffTrees(oldRoot, newRoot string) ([]udiff.FileDiff, error) {
	oldFiles, err := treeFiles(oldRoot)
	if err != nil {
		return nil, err
	}
	newFiles, err := treeFiles(newRoot)
	if err != nil {
		return nil, err
	}
	var out []udiff.FileDiff
	for _, p := range sortedKeys(oldFiles, newFiles) {
		_, inOld := oldFiles[p]
		_, inNew := newFiles[p]
		switch {
		case !inOld:
			out = append(out, udiff.FileDiff{NewPath: p, Status: udiff.StatusAdded})
			continue
		case !inNew:
			out = append(out, udiff.FileDiff{OldPath: p, Status: udiff.StatusDeleted})
			continue
		}
		a, err := os.ReadFile(filepath.Join(oldRoot, p))
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(filepath.Join(newRoot, p))
		if err != nil {
			return nil, err
		}
		if bytes.Equal(a, b) {
			continue
		}
		fd := udiff.FileDiff{OldPath: p, NewPath: p, Status: udiff.StatusModified}
		if strings.HasSuffix(p, ".go") {
			fd.Hunks = lineDiff(lines.Split(string(a)), lines.Split(string(b)))
		}
		out = append(out, fd)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s and %s hold the same files: nothing changed", oldRoot, newRoot)
	}
	return out, nil
}

func treeFiles(root string) (map[string]bool, error) {
	fi, err := os.Stat(root)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", root)
	}
	files := map[string]bool{}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && ignoredDir(name) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		files[filepath.ToSlash(rel)] = true
		return nil
	})
	return files, err
}

func sortedKeys(ms ...map[string]bool) []string {
	var out []string
	for _, m := range ms {
		for k := range m {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// lineDiff computes a shortest edit script between a and b (Myers) and
// returns one hunk per run of changes (no context lines), with the changed
// lines' numbers and text; a run that only adds records the old line it is
// inserted before.
func lineDiff(a, b []string) []udiff.Hunk {
	var out []udiff.Hunk
	var cur *udiff.Hunk
	i, j := 0, 0
	for _, op := range myers(a, b) {
		if op == ' ' {
			cur = nil
			i++
			j++
			continue
		}
		if cur == nil {
			out = append(out, udiff.Hunk{OldStart: i + 1, NewStart: j + 1})
			cur = &out[len(out)-1]
		}
		switch op {
		case '-':
			i++
			cur.Deleted = append(cur.Deleted, i)
			cur.DeletedText = append(cur.DeletedText, a[i-1])
			cur.OldLines++
		case '+':
			if cur.OldLines == 0 && cur.NewLines == 0 {
				cur.Inserted = append(cur.Inserted, i+1)
			}
			j++
			cur.Added = append(cur.Added, j)
			cur.AddedText = append(cur.AddedText, b[j-1])
			cur.NewLines++
		}
	}
	return out
}

// myers returns the edit script turning a into b as a sequence of ' '
// (keep), '-' (delete from a) and '+' (insert from b).
func myers(a, b []string) []byte {
	n, m := len(a), len(b)
	maxD := n + m
	if maxD == 0 {
		return nil
	}
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	for d := 0; d <= maxD; d++ {
		// v as it was before round d, for k in [-d-1, d+1] (index k+d+1).
		trace = append(trace, slices.Clone(v[off-d-1:off+d+2]))
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || (k != d && v[off+k-1] < v[off+k+1]) {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == b[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				return backtrack(trace, n, m, d)
			}
		}
	}
	return nil
}

func backtrack(trace [][]int, x, y, d int) []byte {
	var ops []byte
	for ; d > 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d+1] }
		k := x - y
		var pk int
		if k == -d || (k != d && at(k-1) < at(k+1)) {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := at(pk)
		py := px - pk
		for x > px && y > py {
			ops = append(ops, ' ')
			x--
			y--
		}
		if x == px {
			ops = append(ops, '+')
			y--
		} else {
			ops = append(ops, '-')
			x--
		}
	}
	for x > 0 && y > 0 {
		ops = append(ops, ' ')
		x--
		y--
	}
	slices.Reverse(ops)
	return ops
}

// DeriveFromModules derives the gold answer of the change between two
// versions of a Go module ("MODULE@FROM" → "MODULE@TO"), both fetched with
// `go mod download` (the module cache first): the pre-fix source is FROM.
func DeriveFromModules(ctx context.Context, module, from, to string) (Gold, error) {
	if module == "" || from == "" || to == "" {
		return Gold{}, errors.New("derive needs a module and two versions")
	}
	oldDir, err := downloadModule(ctx, module+"@"+from)
	if err != nil {
		return Gold{}, err
	}
	newDir, err := downloadModule(ctx, module+"@"+to)
	if err != nil {
		return Gold{}, err
	}
	diffs, err := DiffTrees(oldDir, newDir)
	if err != nil {
		return Gold{}, err
	}
	return GoldFromDiff(oldDir, diffs)
}
