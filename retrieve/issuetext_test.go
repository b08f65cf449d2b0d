package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/graphdb/memstore"
	"github.com/relayhq/relay/internal/testutil"
	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

func TestCleanIssueText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"see https://github.com/o/r/issues/12 for details", "see   for details"},
		{"Day.js Version: v1.8.0 and 2.13.0-rc.1", "Day.js Version:   and  "},
		{"at 0x7ffd1234 addr deadbeefcafe12 ts 1600000000", "at   addr   ts  "},
		{"parseFlags fails on -x", "parseFlags fails on -x"},
	} {
		if got := cleanIssueText(tt.in); got != tt.want {
			t.Errorf("cleanIssueText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// namedRepo is a small Java + JavaScript tree for TestFileMentions.
var namedRepo = map[string]string{
	"src/main/java/com/acme/core/JsonParser.java":          "package com.acme.core;\npublic class JsonParser { Acme a; }\n",
	"src/main/java/com/acme/core/json/ReaderParser.java":   "package com.acme.core.json;\nclass ReaderParser extends JsonParser { Acme a; }\n",
	"src/main/java/com/acme/core/util/TextBuffer.java":     "package com.acme.core.util;\nclass TextBuffer { Acme a; }\n",
	"src/main/java/com/acme/core/Acme.java":                "package com.acme.core;\nclass Acme {}\n",
	"src/test/java/com/acme/core/JsonParserTest.java":      "class JsonParserTest { Acme a; }\n",
	"src/plugin/customParseFormat/index.js":                "export default () => {}\n",
	"src/plugin/utc/index.js":                              "export default () => {}\n",
	"src/locale/en.js":                                     "export default { name: 'en' }\n",
	"src/index.js":                                         "export default {}\n",
	"lib/a/index.js":                                       "x\n",
	"lib/b/index.js":                                       "x\n",
	"lib/c/index.js":                                       "x\n",
	"lib/d/index.js":                                       "x\n",
	"src/main/java/com/acme/core/sym/Canonicalizer.java":   "class Canonicalizer { Acme a; }\n",
	"src/main/java/com/acme/core/sym/CanonicalizerB.java":  "class CanonicalizerB { Acme a; }\n",
	"src/main/java/com/acme/core/base/ParserBase.java":     "class ParserBase { Acme a; }\n",
	"src/main/java/com/acme/core/base/GeneratorBase.java":  "class GeneratorBase { Acme a; }\n",
	"src/main/java/com/acme/core/base/ParserMinimal.java":  "class ParserMinimal { Acme a; }\n",
	"src/main/java/com/acme/core/base/FactoryBuilder.java": "class FactoryBuilder { Acme a; }\n",
}

// TestFileMentions: stack frames, paths, import module paths, file names
// and class or folder names in an issue text name files; the title counts
// double; a name of the project that occurs in most files, an identifier
// naming too many files and names of no file say nothing.
func TestFileMentions(t *testing.T) {
	s := openFiles(t, namedRepo)
	names := func(q string) []string {
		var out []string
		for _, d := range s.fileMentions(q, nil) {
			out = append(out, s.ix.Files[d].Path)
		}
		return out
	}
	for _, tt := range []struct {
		name, q string
		want    []string
	}{
		{"java frame", "Parser fails\n\njava.lang.IllegalStateException: boom\n\tat com.acme.core.json.ReaderParser._parse(ReaderParser.java:123)\n\tat java.base/java.lang.Thread.run(Thread.java:829)",
			[]string{"src/main/java/com/acme/core/json/ReaderParser.java"}},
		{"qualified name in prose", "Calling com.acme.core.util.TextBuffer.contentsAsString() twice",
			[]string{"src/main/java/com/acme/core/util/TextBuffer.java"}},
		{"class names, title first", "TextBuffer loses data\n\nWhen JsonParser reads a long string",
			[]string{"src/main/java/com/acme/core/util/TextBuffer.java", "src/main/java/com/acme/core/JsonParser.java"}},
		{"import module path and folder name", "utc plugin breaks\n\n```js\nimport utc from 'dayjs/plugin/utc'\ndayjs.extend(customParseFormat)\n```",
			[]string{"src/plugin/utc/index.js", "src/plugin/customParseFormat/index.js"}},
		{"js frame path", "TypeError\n\n    at Object.<anonymous> (/app/node_modules/dayjs/locale/en.js:1:20)",
			[]string{"src/locale/en.js"}},
		{"project name is ubiquitous", "Acme throws\n\nAcme fails in Acme", nil},
		{"too many files", "lib index broken\n\nsee index.js", nil},
		{"nothing named", "dates are off by one day", nil},
	} {
		if d := cmp.Diff(tt.want, names(tt.q)); d != "" {
			t.Errorf("%s: fileMentions (-want +got):\n%s", tt.name, d)
		}
	}
}

// TestLocalizeTestsLast: a report that quotes its failing test still
// ranks the code under test first, and every test file after every other
// file.
func TestLocalizeTestsLast(t *testing.T) {
	_, _, s := testRepo(t, nil)
	files, _, err := s.Localize(t.Context(), "TestRetry fails in store_test.go: computeDelay overflows after many retries (v2.3.1, https://example.com/x)", SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seenTest := false
	for _, f := range files {
		if IsTestPath(f) {
			seenTest = true
		} else if seenTest {
			t.Fatalf("non-test file %s after a test file: %v", f, files)
		}
	}
	if len(files) == 0 || files[0] != "storage/retry.go" || !seenTest {
		t.Errorf("files = %v, want storage/retry.go first and the test file after the code", files)
	}
}

func TestNoisyTitle(t *testing.T) {
	for _, tt := range []struct {
		text, want string
		noisy      bool
	}{
		{"Parser drops the last byte", "", false},
		{"Use spaces for SQL sanitization.\n\nThis avoids breaking `set foo to $1`.", "", false},
		{"Deep stubs fail\n\n```java\nwhen(x.y()).thenReturn(1);\n```", "Deep stubs fail", true},
		{"NPE in parser\n\njava.lang.NullPointerException\n\tat com.acme.Parser.next(Parser.java:12)", "NPE in parser", true},
		{"utc breaks\n\nTypeError: x is undefined\n    at Object.<anonymous> (/app/node_modules/dayjs/plugin/utc.js:1:2042)", "utc breaks", true},
	} {
		got, noisy := noisyTitle(tt.text)
		if got != tt.want || noisy != tt.noisy {
			t.Errorf("noisyTitle(%q) = %q, %v; want %q, %v", tt.text, got, noisy, tt.want, tt.noisy)
		}
	}
}

// TestTitleWeighted: terms of a title over a body weigh TitleWeight; a
// one-line text is left alone (all of it is the title).
func TestTitleWeighted(t *testing.T) {
	terms := func() []bm25.QueryTerm {
		p, b := Tokenize("Parser")[0], Tokenize("buffer")[0]
		return []bm25.QueryTerm{{Term: p, Orig: p, Weight: 1}, {Term: b, Orig: b, Weight: 1}}
	}
	got := titleWeighted(terms(), "Parser fails\n\nthe buffer is full")
	if got[0].Weight != TitleWeight || got[1].Weight != 1 {
		t.Errorf("title over a body: %+v", got)
	}
	got = titleWeighted(terms(), "Parser fails when the buffer is full")
	if got[0].Weight != 1 || got[1].Weight != 1 {
		t.Errorf("one line: %+v", got)
	}
}

// TestRankFunctions: with a share, a function in the top file overtakes
// one ranked just above it in a file ranked low; without, the hit order
// stays.
func TestRankFunctions(t *testing.T) {
	hits := []Hit{
		{Chunk: Chunk{Path: "b.js", Loc: "b.js:f", Kind: ChunkFunction}},
		{Chunk: Chunk{Path: "a.js", Loc: "a.js:g", Kind: ChunkFunction}},
		{Chunk: Chunk{Path: "a.js", Loc: "a.js:g", Kind: ChunkFunction}},
		{Chunk: Chunk{Path: "a.js", Kind: ChunkText}},
	}
	files := []string{"a.js", "c.js", "d.js", "e.js", "b.js"}
	if d := cmp.Diff([]string{"a.js:g", "b.js:f"}, rankFunctions(hits, files, 0.5, nil, ClassifyPath)); d != "" {
		t.Errorf("share 0.5 (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"b.js:f", "a.js:g"}, rankFunctions(hits, files, 0, nil, ClassifyPath)); d != "" {
		t.Errorf("share 0 (-want +got):\n%s", d)
	}
}

// TestRankFunctionsCommonNames reproduces dayjs issue 602 in small: the
// one-line `locale.ordinal` of many sibling locale files match a report
// about `.locale()` before the plugin function it is about. Only the first
// of a common name keeps its place; the others follow every other
// function. A name that fewer than half of the files define (the
// plugins' `default`) keeps every place.
func TestRankFunctionsCommonNames(t *testing.T) {
	t.Parallel()
	var chunks []Chunk
	fn := func(path, name string) Chunk {
		return Chunk{Path: path, Loc: path + ":" + name, Kind: ChunkFunction}
	}
	for _, l := range []string{"en", "en-au", "en-ca", "en-gb", "en-ie", "en-nz", "fr", "de"} {
		chunks = append(chunks, fn("src/locale/"+l+".js", "locale.ordinal"))
	}
	for _, p := range []string{"localeData", "utc", "badMutable"} {
		chunks = append(chunks, fn("src/plugin/"+p+"/index.js", "default"))
	}
	chunks = append(chunks, fn("src/index.js", "Dayjs.isSame"), Chunk{Path: "README.md", Kind: ChunkSection})
	s := &Searcher{ix: &diskindex.Index{Chunks: chunks}}
	if d := cmp.Diff(map[string]bool{"locale.ordinal": true}, s.commonNames()); d != "" {
		t.Fatalf("commonNames (-want +got):\n%s", d)
	}
	order := []int{0, 8, 1, 2, 9, 3, 11, 10}
	var hits []Hit
	for _, i := range order {
		hits = append(hits, Hit{Chunk: chunks[i]})
	}
	want := []string{
		"src/locale/en.js:locale.ordinal",
		"src/plugin/localeData/index.js:default",
		"src/plugin/utc/index.js:default",
		"src/index.js:Dayjs.isSame",
		"src/plugin/badMutable/index.js:default",
		"src/locale/en-au.js:locale.ordinal",
		"src/locale/en-ca.js:locale.ordinal",
		"src/locale/en-gb.js:locale.ordinal",
	}
	if d := cmp.Diff(want, rankFunctions(hits, nil, 0, s.commonNames(), ClassifyPath)); d != "" {
		t.Errorf("rankFunctions (-want +got):\n%s", d)
	}
	// Without the common names, the locales take three of the first four places.
	plain := []string{
		"src/locale/en.js:locale.ordinal",
		"src/plugin/localeData/index.js:default",
		"src/locale/en-au.js:locale.ordinal",
		"src/locale/en-ca.js:locale.ordinal",
		"src/plugin/utc/index.js:default",
		"src/locale/en-gb.js:locale.ordinal",
		"src/index.js:Dayjs.isSame",
		"src/plugin/badMutable/index.js:default",
	}
	if d := cmp.Diff(plain, rankFunctions(hits, nil, 0, nil, ClassifyPath)); d != "" {
		t.Errorf("rankFunctions without common names (-want +got):\n%s", d)
	}
}

// TestWithWindowMembers reproduces dayjs issue 1502 ("Implement ordinal in
// Bulgarian translation") in small: the window over bg.js's locale object
// matches `ordinal`, so the member `locale.ordinal` it holds follows it into
// the function ranking; `locale.meridiem`, whose name the window did not
// match, and the function outside the window do not.
func TestWithWindowMembers(t *testing.T) {
	t.Parallel()
	chunks := []Chunk{
		{Path: "src/locale/bg.js", Kind: ChunkText, Name: "lines 1-40", StartLine: 1, EndLine: 40},
		{Path: "src/locale/bg.js", Kind: ChunkFunction, Name: "locale.ordinal", Loc: "src/locale/bg.js:locale.ordinal", StartLine: 12, EndLine: 20},
		{Path: "src/locale/bg.js", Kind: ChunkFunction, Name: "locale.meridiem", Loc: "src/locale/bg.js:locale.meridiem", StartLine: 21, EndLine: 22},
		{Path: "src/locale/bg.js", Kind: ChunkFunction, Name: "ordinal", Loc: "src/locale/bg.js:ordinal", StartLine: 42, EndLine: 44},
		{Path: "src/plugin/calendar/index.js", Kind: ChunkFunction, Name: "default", Loc: "src/plugin/calendar/index.js:default", StartLine: 1, EndLine: 30},
	}
	s := &Searcher{ix: &diskindex.Index{Chunks: chunks, Files: []diskindex.FileEntry{
		{Path: "src/locale/bg.js", First: 0, Count: 4},
		{Path: "src/plugin/calendar/index.js", First: 4, Count: 1},
	}}}
	hits := []Hit{{Chunk: chunks[0], Matched: []string{"ordinal", "bulgarian"}}, {Chunk: chunks[4], Matched: []string{"current"}}}
	want := []string{"src/locale/bg.js:locale.ordinal", "src/plugin/calendar/index.js:default"}
	if d := cmp.Diff(want, rankFunctions(s.withWindowMembers(hits), nil, 0, nil, ClassifyPath)); d != "" {
		t.Errorf("functions (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want[1:], rankFunctions(hits, nil, 0, nil, ClassifyPath)); d != "" {
		t.Errorf("functions without the window's members (-want +got):\n%s", d)
	}
}

// TestWithWindowMembersByPath: windows of several files, in hit order
// unlike the index's file order, each get the members of their own file
// only (the lookup by path, not a scan that stops at the first file); a
// window of a file the index does not list gets none.
func TestWithWindowMembersByPath(t *testing.T) {
	t.Parallel()
	chunks := []Chunk{
		{Path: "src/locale/bg.js", Kind: ChunkText, Name: "lines 1-40", StartLine: 1, EndLine: 40},
		{Path: "src/locale/bg.js", Kind: ChunkFunction, Name: "locale.ordinal", Loc: "src/locale/bg.js:locale.ordinal", StartLine: 12, EndLine: 20},
		{Path: "src/locale/de.js", Kind: ChunkText, Name: "lines 1-30", StartLine: 1, EndLine: 30},
		{Path: "src/locale/de.js", Kind: ChunkFunction, Name: "locale.ordinal", Loc: "src/locale/de.js:locale.ordinal", StartLine: 5, EndLine: 9},
		{Path: "src/locale/fr.js", Kind: ChunkText, Name: "lines 1-30", StartLine: 1, EndLine: 30},
		{Path: "src/locale/fr.js", Kind: ChunkFunction, Name: "locale.ordinal", Loc: "src/locale/fr.js:locale.ordinal", StartLine: 31, EndLine: 33},
	}
	s := &Searcher{ix: &diskindex.Index{Chunks: chunks, Files: []diskindex.FileEntry{
		{Path: "src/locale/bg.js", First: 0, Count: 2},
		{Path: "src/locale/de.js", First: 2, Count: 2},
		{Path: "src/locale/fr.js", First: 4, Count: 2},
	}}}
	hits := []Hit{
		{Chunk: chunks[2], Matched: []string{"ordinal"}},
		{Chunk: Chunk{Path: "src/locale/gone.js", Kind: ChunkText, Name: "lines 1-9", StartLine: 1, EndLine: 9}, Matched: []string{"ordinal"}},
		{Chunk: chunks[4], Matched: []string{"ordinal"}}, // fr.js's member lies outside the window
		{Chunk: chunks[0], Matched: []string{"ordinal"}},
	}
	var got []string
	for _, h := range s.withWindowMembers(hits) {
		got = append(got, h.Path+" "+h.Name)
	}
	want := []string{
		"src/locale/de.js lines 1-30", "src/locale/de.js locale.ordinal",
		"src/locale/gone.js lines 1-9",
		"src/locale/fr.js lines 1-30",
		"src/locale/bg.js lines 1-40", "src/locale/bg.js locale.ordinal",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("hits (-want +got):\n%s", d)
	}
	for i, f := range s.ix.Files {
		if d, ok := s.fileOf(f.Path); !ok || int(d) != i {
			t.Errorf("fileOf(%s) = %d, %v; want %d", f.Path, d, ok, i)
		}
	}
	if _, ok := s.fileOf("src/locale/gone.js"); ok {
		t.Error("fileOf found a file the index does not list")
	}
}

// openFiles writes files (slash-separated path → content) into a new
// repository, builds its search index over an empty graph and opens it.
func openFiles(t *testing.T, files map[string]string) *Searcher {
	t.Helper()
	root := t.TempDir()
	for rel, data := range files {
		testutil.WriteFile(t, root, rel, data)
	}
	g := memstore.New()
	if _, err := Build(t.Context(), root, g, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	s, err := Open(root, g, OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}
