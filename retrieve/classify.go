package retrieve

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strings"

	enry "github.com/go-enry/go-enry/v2"

	"github.com/relayhq/relay/internal/safefs"
)

// DESIGN: ranking treats a file by what it is to the project, besides its
// language. The classes come from GitHub Linguist's rules through go-enry
// (its test, vendored and generated matchers, the last also on the head of
// the content: minified code, source maps, "Code generated … DO NOT EDIT"
// headers, protobuf and Thrift output…), a warning against editing in a
// file's first lines (amalgamations such as Catch2's single header, which
// repeat the sources they were merged from), plus the build tools' conventions
// Linguist leaves out: folders named test, tests, __tests__, spec, specs,
// testdata or benches (Maven's and Gradle's src/test, Jest's and Mocha's
// test/, Cargo's tests/ and benches/), and file names that say test
// (*_test.go, test_*.py, *_test.c, base-test.cc, Misc.tests.cpp, *.spec.ts, *Test.java,
// *Tests.java, *_spec.rb). A class named Test* outside a test folder is
// not taken for a test: mockito's src/main holds TestFinishedEvent.
//
// Two of Linguist's vendored rules are overruled: TypeScript declaration
// files (*.d.ts), which Localize ranks with the code they declare (see
// withDeclarations), and folders named cache or env, which in Go and
// Python projects hold the project's own packages.
//
// Tests come after the other files in Localize, and score ×TestPenalty
// in a search that does not mention tests; generated, bundled, minified
// and vendored files come after the tests, and score ×DemotedPenalty in
// every search, after the graph re-ranking, the other hits keeping their
// order: they stay searchable, a query only they match still finds them.
// Localize does not demote hits, it orders the files by class: a demoted
// chunk changes the ranks the file fusion sees (pgtype's numeric.go lost
// its first place for a report about numeric conversion when its
// generated numeric_array.go moved down).

// FileClass is what a file is to ranking, besides its language.
type FileClass uint8

const (
	// ClassSource is the project's own code, declaration files included.
	ClassSource FileClass = iota
	// ClassTest is a test, test data or a fixture.
	ClassTest
	// ClassGenerated is generated, bundled or minified code.
	ClassGenerated
	// ClassVendored is third-party code kept in the tree.
	ClassVendored
)

// String names the class.
func (c FileClass) String() string {
	switch c {
	case ClassTest:
		return "test"
	case ClassGenerated:
		return "generated"
	case ClassVendored:
		return "vendored"
	}
	return "source"
}

// Demoted reports whether files of the class rank after the project's
// own code and its tests.
func (c FileClass) Demoted() bool { return c == ClassGenerated || c == ClassVendored }

// DemotedPenalty multiplies the search score of hits in generated,
// bundled, minified and vendored files.
const DemotedPenalty = 0.5

// ClassifyPath classifies a repository-relative path by its name alone.
func ClassifyPath(p string) FileClass { return ClassifyFile(p, nil) }

// ClassifyFile classifies a repository-relative path, with head the start
// of its content (nil: by name alone).
func ClassifyFile(p string, head []byte) FileClass {
	switch {
	case IsTestPath(p):
		return ClassTest
	case isDeclaration(p):
		return ClassSource
	case isVendored(p):
		return ClassVendored
	case enry.IsGenerated(p, head), editWarning(head):
		return ClassGenerated
	}
	return ClassSource
}

// editWarningLines is how many lines from the top editWarning reads.
const editWarningLines = 20

// editWarningRe matches the warning generators and bundlers put at the
// top of what they write: "DO NOT EDIT", "Please don't edit it directly"
// (Catch2's single header), "You probably shouldn't edit it directly"
// (Catch2's amalgamation).
var editWarningRe = regexp.MustCompile(`(?i)\b(do not|don't|should not|shouldn't) edit\b`)

// editWarning reports whether one of the first lines of head warns
// against editing the file: it was generated or merged from other files.
// Linguist knows the warning only in Go's form and a few generators'.
func editWarning(head []byte) bool {
	for i := 0; i < editWarningLines && len(head) > 0; i++ {
		line, rest, _ := bytes.Cut(head, []byte("\n"))
		if editWarningRe.Match(line) {
			return true
		}
		head = rest
	}
	return false
}

// IsTestPath reports whether a repo-relative path is a test file, test
// data or a fixture, by Linguist's rules and the build tools' conventions
// (see the DESIGN note of classify.go).
func IsTestPath(p string) bool {
	if enry.IsTest(p) {
		return true
	}
	dir, base := path.Split(p)
	for _, seg := range strings.Split(strings.TrimSuffix(dir, "/"), "/") {
		switch seg {
		case "test", "tests", "__tests__", "spec", "specs", "testdata", "benches":
			return true
		}
	}
	stem := base
	if i := strings.IndexByte(base, '.'); i > 0 {
		stem = base[:i]
	}
	switch {
	case strings.Contains(base, ".test."), strings.Contains(base, ".tests."), strings.Contains(base, ".spec."),
		strings.HasPrefix(stem, "test_"), strings.HasPrefix(stem, "test-"),
		strings.HasSuffix(base, "Test.java"), strings.HasSuffix(base, "Tests.java"):
		return true
	}
	for _, suffix := range []string{"_test", "-test", "_tests", "-tests", "_spec", "_unittest"} {
		if strings.HasSuffix(stem, suffix) {
			return true
		}
	}
	return false
}

// isDeclaration reports whether p is a TypeScript declaration file.
func isDeclaration(p string) bool {
	return strings.HasSuffix(p, ".d.ts") || strings.HasSuffix(p, ".d.mts") || strings.HasSuffix(p, ".d.cts")
}

// isVendored is Linguist's vendored rule, less its rules for folders
// named cache and env (see the DESIGN note).
func isVendored(p string) bool {
	if !enry.IsVendor(p) {
		return false
	}
	segs := strings.Split(p, "/")
	kept := segs[:0:0]
	for _, seg := range segs[:len(segs)-1] {
		if seg != "cache" && seg != "env" {
			kept = append(kept, seg)
		}
	}
	return enry.IsVendor(strings.Join(append(kept, segs[len(segs)-1]), "/"))
}

// classHead is how much of a file fileClass reads: enough for the headers
// and the line lengths Linguist's generated rules look at.
const classHead = 32 << 10

// fileClass is ClassifyFile of an indexed file with the head of its
// content, memoised; a file that cannot be read is classified by name.
func (s *Searcher) fileClass(p string) FileClass {
	if c, ok := s.classes.Load(p); ok {
		return c.(FileClass)
	}
	c := ClassifyPath(p)
	if c == ClassSource && !isDeclaration(p) {
		if head := s.fileHead(p); len(head) > 0 {
			c = ClassifyFile(p, head)
		}
	}
	s.classes.Store(p, c)
	return c
}

// fileHead returns up to classHead bytes from the start of the file at
// rel, nil when it cannot be read.
func (s *Searcher) fileHead(rel string) []byte {
	files := s.rootFiles()
	if files == nil {
		return nil
	}
	f, fi, err := files.Open(rel)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi.IsDir() {
		return nil
	}
	head := make([]byte, min(fi.Size(), classHead))
	n, _ := io.ReadFull(f, head)
	return head[:n]
}

// rootFiles opens the repository root on first use. Index paths name
// files as they were when indexed; they are read beneath the root now, so
// a file since replaced by a symlink out of the repository (or a FIFO) is
// not followed.
func (s *Searcher) rootFiles() *safefs.Root {
	s.filesOnce.Do(func() {
		var err error
		if s.files, err = safefs.OpenRoot(s.root); err != nil {
			s.log.Warn("the repository's files cannot be read: no snippets, files classified by name", "err", err)
		}
	})
	return s.files
}

// withDeclarations returns files (best first) where no TypeScript
// declaration file ranks above the code it declares: when it does, the
// code takes the declaration's place and the declaration follows it. A
// declaration file repeats the names of its module, so the two match a
// report alike, but a fix is made in the code and reaches the
// declarations only when the interface changes. A declaration below its
// code, or whose code is not in the list, keeps its place (pulling every
// declaration up to its code doubled the list's head on dayjs: 3 gold
// files fell out of the top 10).
func withDeclarations(files []string) []string {
	pos := map[string]int{}
	for i, f := range files {
		pos[f] = i
	}
	out := make([]string, 0, len(files))
	done := map[string]bool{}
	for i, f := range files {
		if done[f] {
			continue
		}
		if isDeclaration(f) {
			if code := declaredFile(f, files); code != "" && pos[code] > i && !done[code] {
				out = append(out, code)
				done[code] = true
			}
		}
		out = append(out, f)
		done[f] = true
	}
	return out
}

// declaredFile returns the file of files that the declaration file d
// declares: the JavaScript or TypeScript file of d's module name (see
// moduleName: types/plugin/utc.d.ts declares src/plugin/utc/index.js)
// that shares the most folders with d, the shortest path on a tie; ""
// when there is none. An index declaration also declares an index file at
// most one folder deeper (index.d.ts and types/index.d.ts declare
// src/index.js).
func declaredFile(d string, files []string) string {
	dname, dindex := moduleName(d)
	best, bestShared := "", -1
	for _, f := range files {
		if isDeclaration(f) || !isScript(f) {
			continue
		}
		fname, findex := moduleName(f)
		if (dname == "" || dname != fname) && !(dindex && findex && depth(f) <= depth(d)+1) {
			continue
		}
		shared := sharedFolders(d, f)
		if shared > bestShared || shared == bestShared && len(f) < len(best) {
			best, bestShared = f, shared
		}
	}
	return best
}

// moduleName returns the name of the module at p: its base name without
// extensions ("utc" of src/utc.js and of types/utc.d.ts), or for an index
// file its folder's name ("utc" of src/plugin/utc/index.js; "" at the
// root), and whether p is an index file.
func moduleName(p string) (string, bool) {
	base := path.Base(p)
	if i := strings.IndexByte(base, '.'); i > 0 {
		base = base[:i]
	}
	if base != "index" {
		return base, false
	}
	if dir := path.Dir(p); dir != "." {
		return path.Base(dir), true
	}
	return "", true
}

func depth(p string) int { return strings.Count(p, "/") }

// sharedFolders counts the folder names two paths have in common.
func sharedFolders(a, b string) int {
	in := map[string]bool{}
	for _, seg := range strings.Split(path.Dir(a), "/") {
		in[seg] = true
	}
	n := 0
	for _, seg := range strings.Split(path.Dir(b), "/") {
		if seg != "." && in[seg] {
			n++
			in[seg] = false
		}
	}
	return n
}

// isScript reports whether p is a JavaScript or TypeScript file.
func isScript(p string) bool {
	l, _ := LanguageOf(p)
	return l == "javascript" || l == "typescript"
}

// demote multiplies by DemotedPenalty the score of the hits in generated,
// bundled, minified and vendored files and moves each down to where its
// new score fits; the other hits keep their order.
func (s *Searcher) demote(hits []Hit) []Hit {
	var kept, demoted []Hit
	for _, h := range hits {
		if c := s.fileClass(h.Path); c.Demoted() {
			h.Score *= DemotedPenalty
			h.Why = append(h.Why, fmt.Sprintf("%s file (×%.1f)", c, DemotedPenalty))
			demoted = append(demoted, h)
			continue
		}
		kept = append(kept, h)
	}
	if len(demoted) == 0 {
		return hits
	}
	out := hits[:0]
	for _, h := range kept {
		for len(demoted) > 0 && demoted[0].Score > h.Score {
			out = append(out, demoted[0])
			demoted = demoted[1:]
		}
		out = append(out, h)
	}
	return append(out, demoted...)
}
