package retrieve

import (
	"path"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/relayhq/relay/retrieve/internal/tokenize"
)

// DESIGN: real issue text. Bug reports are long and noisy: stack traces,
// code blocks, logs, version strings, URLs and issue-template headings,
// unlike the changelog entries and hand-written questions the rankers were
// first tuned on. Two things help without knowing the project:
//
//   - cleanIssueText removes what matches code only by accident before the
//     lexical rankers see the text: URLs, version strings (v1.2.3, 2.13.0),
//     hex addresses and long numbers. What remains keeps its identifiers, so
//     a stack frame still contributes its class and method names.
//   - fileMentions ranks the files the text names outright, a signal BM25
//     dilutes in a long text: paths and file names ("src/plugin/utc.js",
//     "Bar.java:123"), module paths of imports ("dayjs/plugin/utc"),
//     qualified names and stack frames ("at com.foo.core.Bar.baz(Bar.java:1)"
//     → com/foo/core/Bar), and identifiers that are a file's name
//     (JsonPointer → JsonPointer.java; customParseFormat → the index file of
//     a folder of that name). It reads the file list of the index only, so it
//     works for languages the graph does not know yet. Names in the title
//     count double; an identifier naming more than maxNamedFiles files says
//     nothing and is dropped, and so is one that occurs in more than half
//     of the files (the project's own name: every gson issue says "Gson").

var (
	urlRe     = regexp.MustCompile(`(?i)\b(?:https?|ftp|file)://[^\s)\]>"'` + "`" + `]+`)
	versionRe = regexp.MustCompile(`(?i)\bv?\d+\.\d+(?:\.\d+)*(?:[-+.][0-9a-z.]+)?\b`)
	hexAddrRe = regexp.MustCompile(`(?i)\b0x[0-9a-f]+\b|\b[0-9a-f]{12,}\b|\b\d{5,}\b`)
	// pathRe matches slash-separated paths and bare file names with an
	// extension; frameRe the Java/Kotlin frame "at pkg.Class.method(File.java:12)";
	// dottedRe qualified names (pkg.Class, pkg.Class.method).
	pathRe  = regexp.MustCompile(`[\w$@.-]*[\w$]/[\w$@./-]*[\w$]|[\w$-]+\.[A-Za-z]{1,6}\b`)
	frameRe = regexp.MustCompile(`\bat\s+([\w$]+(?:\.[\w$<>]+)+)\s*\(`)
	// jsFrameRe matches a JavaScript frame "at fn (/path/file.js:12:3)".
	jsFrameRe = regexp.MustCompile(`\bat\s+[^\n]*\(?[\w./\\-]+\.[cm]?[jt]sx?:\d+:\d+\)?`)
	dottedRe  = regexp.MustCompile(`\b[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*){1,}\b`)
)

// Issue-template noise: HTML comments (template instructions), images and
// tags, short markdown headings and bold-only lines ("**Expected
// behavior**", "### Steps to reproduce"), and environment lists ("- OS:
// Windows 10", "- Browser: Chrome 87", "* Jackson version: 2.15"): words
// that every report of a project shares and that match build and test
// configuration rather than the code at fault.
var (
	htmlCommentRe = regexp.MustCompile(`(?s)<!--.*?-->`)
	imageRe       = regexp.MustCompile(`!\[[^\]\n]*\]\([^)\n]*\)|</?[A-Za-z][^>\n]*>`)
	headingRe     = regexp.MustCompile(`(?m)^[ \t]*(?:#{1,6}[ \t]+[^\n]{0,60}|\*\*[^*\n]{1,60}\*\*:?|__[^_\n]{1,60}__:?)[ \t]*\r?$`)
	envLineRe     = regexp.MustCompile(`(?m)^[ \t]*[-*+][ \t]+\**[A-Za-z][\w. ()/-]{0,30}?\**[ \t]*:\**[ \t]*[^\n]{0,40}\r?$`)
)

// cleanIssueText drops issue-template noise, URLs, version strings, hex
// addresses and long numbers from an issue text; everything else is kept
// as it is.
func cleanIssueText(q string) string {
	q = htmlCommentRe.ReplaceAllString(q, " ")
	q = imageRe.ReplaceAllString(q, " ")
	q = headingRe.ReplaceAllString(q, " ")
	q = envLineRe.ReplaceAllString(q, " ")
	q = urlRe.ReplaceAllString(q, " ")
	q = versionRe.ReplaceAllString(q, " ")
	return hexAddrRe.ReplaceAllString(q, " ")
}

// maxNamedFiles drops an identifier or path that names more files than
// this: it does not point at one place.
const maxNamedFiles = 3

// Weights of a mention in fileMentions' score.
const (
	pathMentionWeight    = 2.0 // a path, file name, qualified name or frame
	identMentionWeight   = 1.0 // an identifier that is a file's name
	messageMentionWeight = 2.0 // a quoted message found literally in the file (issuemessage.go)
	titleMentionFactor   = 2.0 // mentions in the first line (the title)
)

// fileNames indexes the index's files by what a text may call them.
type fileNames struct {
	byTail map[string][]int32 // last two segments of the module path, lower-cased ("core/jsonparser", "plugin/utc")
	byStem map[string][]int32 // file name without extension, and folder name of index files (case kept)
	byBase map[string][]int32 // file name with extension, lower-cased
}

// modulePath is p without its extension and without a trailing
// "/index" (the module a folder's index file stands for).
func modulePath(p string) string {
	return strings.TrimSuffix(strings.TrimSuffix(p, path.Ext(p)), "/index")
}

// tail returns the last two segments of a slash path ("a/b/c" → "b/c"),
// lower-cased, or "" when it has fewer than two.
func tail(p string) string {
	segs := strings.Split(strings.Trim(p, "/"), "/")
	if len(segs) < 2 {
		return ""
	}
	return strings.ToLower(segs[len(segs)-2] + "/" + segs[len(segs)-1])
}

func (s *Searcher) fileNameIndex() *fileNames {
	s.namesOnce.Do(func() {
		fn := &fileNames{byTail: map[string][]int32{}, byStem: map[string][]int32{}, byBase: map[string][]int32{}}
		for i, f := range s.ix.Files {
			d := int32(i)
			mp := modulePath(f.Path)
			if t := tail(mp); t != "" {
				fn.byTail[t] = append(fn.byTail[t], d)
			}
			fn.byStem[path.Base(mp)] = append(fn.byStem[path.Base(mp)], d)
			fn.byBase[strings.ToLower(path.Base(f.Path))] = append(fn.byBase[strings.ToLower(path.Base(f.Path))], d)
		}
		s.names = fn
	})
	return s.names
}

// mentionScore accumulates a file's mention score and first position.
type mentionScore struct {
	score float64
	first int
}

// fileMentions ranks the files (indexes into the index's file list) that
// q names, best first; keep filters them (nil: all).
func (s *Searcher) fileMentions(q string, keep func(int32) bool) []int32 {
	names := s.fileNameIndex()
	scores := map[int32]*mentionScore{}
	pos := 0
	add := func(docs []int32, w float64) {
		if len(docs) == 0 || len(docs) > maxNamedFiles {
			return
		}
		for _, d := range docs {
			if keep != nil && !keep(d) {
				continue
			}
			m := scores[d]
			if m == nil {
				m = &mentionScore{first: pos}
				scores[d] = m
			}
			m.score += w
		}
		pos++
	}
	title, body, _ := strings.Cut(q, "\n")
	for part, text := range []string{title, body} {
		factor := 1.0
		if part == 0 {
			factor = titleMentionFactor
		}
		s.pathMentions(text, names, func(docs []int32) { add(docs, pathMentionWeight*factor) })
		s.messageFiles(text, keep, func(docs []int32) { add(docs, messageMentionWeight*factor) })
		forEachIdent(text, func(w string) {
			if !s.ubiquitous(w) {
				add(names.byStem[w], identMentionWeight*factor)
			}
		})
	}
	out := make([]int32, 0, len(scores))
	for d := range scores {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := scores[out[i]], scores[out[j]]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.first != b.first {
			return a.first < b.first
		}
		return out[i] < out[j]
	})
	return out
}

// pathMentions calls found with the files each path, file name, stack
// frame or qualified name in text resolves to.
func (s *Searcher) pathMentions(text string, names *fileNames, found func([]int32)) {
	for _, m := range pathRe.FindAllString(text, -1) {
		m = strings.Trim(m, "./-@")
		if strings.Contains(m, "/") {
			found(names.byTail[tail(modulePath(m))])
			continue
		}
		if _, ok := LanguageOf(m); ok {
			found(names.byBase[strings.ToLower(m)])
		}
	}
	seen := map[string]bool{}
	for _, m := range frameRe.FindAllStringSubmatch(text, -1) {
		seen[m[1]] = true
		found(qualifiedFiles(m[1], names))
	}
	for _, m := range dottedRe.FindAllString(text, -1) {
		if !seen[m] && strings.Count(m, ".") >= 2 {
			seen[m] = true
			found(qualifiedFiles(m, names))
		}
	}
}

// qualifiedFiles resolves a qualified name (com.foo.core.Bar.baz, or
// com.foo.Bar$Inner) to the files of its class: the rightmost segment that
// starts with a capital and the one before it, as a path tail.
func qualifiedFiles(q string, names *fileNames) []int32 {
	segs := strings.Split(q, ".")
	for i := len(segs) - 1; i >= 1; i-- {
		seg, _, _ := strings.Cut(segs[i], "$")
		if seg == "" || seg[0] < 'A' || seg[0] > 'Z' {
			continue
		}
		return names.byTail[strings.ToLower(segs[i-1]+"/"+seg)]
	}
	return nil
}

// forEachIdent calls fn for each identifier of text at least four
// characters long that looks like code or starts with a capital (class
// names); prose words are left to BM25.
func forEachIdent(text string, fn func(string)) {
	for _, w := range codeWordRe.FindAllString(text, -1) {
		for _, part := range strings.Split(strings.TrimSuffix(w, "()"), ".") {
			if len(part) >= 4 && (looksLikeCode(part) || startsUpperMixed(part)) {
				fn(part)
			}
		}
	}
}

// startsUpperMixed reports whether w starts with a capital and has a lower-
// case letter after it: a class name (JsonParser, Gson), not an acronym or
// a shouted word.
func startsUpperMixed(w string) bool {
	if w == "" || w[0] < 'A' || w[0] > 'Z' {
		return false
	}
	return strings.ContainsAny(w[1:], "abcdefghijklmnopqrstuvwxyz")
}

// namesCache is the Searcher's fileNames, built on first use.
type namesCache struct {
	namesOnce sync.Once
	names     *fileNames
}

// ubiquitousShare is the share of files a word must occur in to say
// nothing about where a fix goes (the project's own name: Gson, Mockito).
const ubiquitousShare = 0.5

// ubiquitous reports whether the word occurs in more than ubiquitousShare
// of the indexed files: naming the file of that name is then no signal.
func (s *Searcher) ubiquitous(w string) bool {
	fl := s.ix.FileLex
	if fl == nil || len(fl.DocLen) == 0 {
		return false
	}
	// The index's term for the word: the word itself when it is a
	// compound, its stem otherwise ("Acme" is "acm").
	terms := tokenize.WordTerms(w)
	if len(terms) == 0 {
		return false
	}
	id, ok := fl.TermID(terms[0])
	return ok && float64(fl.DF[id]) > ubiquitousShare*float64(len(fl.DocLen))
}
