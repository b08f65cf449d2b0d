// Package tokenize owns how relay's search index turns text into terms:
// the code-aware tokenizer (whole identifiers and their camelCase,
// snake_case and digit parts, lower-cased, stemmed, a small stop list),
// the split of Han, Kana and Hangul runs from Latin letters and digits
// (CJK runs become overlapping bigrams, see script.go), the word scanner,
// and Vocab, which numbers the terms of many texts and remembers the
// terms of each word it met (the build's hot path, see wordtable.go). The
// index's format version in package diskindex changes whenever what this
// package yields does: an index is only as good as the agreement of the
// terms it was built with and the terms of a query.
//
// The stemmer is written here rather than taken from a library: Snowball's
// English stemmer was measured and ranked worse (see the DESIGN note in
// stem.go). The ASCII fast path must agree term for term with the general
// path (TestTokenizeFastPathAgrees, FuzzTokenize), and Vocab with Text
// (TestVocabAgrees).
package tokenize

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// stopWords are dropped from queries and documents: English glue words and
// the few Go keywords that occur in nearly every body. The list is small on
// purpose; BM25's IDF already discounts frequent terms.
var stopWords = map[string]bool{
	"a": true, "an": true, "and": true, "are": true, "as": true, "at": true, "be": true, "but": true,
	"by": true, "do": true, "does": true, "for": true, "from": true, "has": true, "have": true,
	"i": true, "in": true, "is": true, "it": true, "its": true, "of": true, "on": true, "or": true,
	"so": true, "that": true, "the": true, "their": true, "then": true, "there": true, "these": true,
	"this": true, "to": true, "was": true, "were": true, "we": true, "what": true, "when": true,
	"where": true, "which": true, "while": true, "who": true, "will": true, "with": true, "would": true,
	"should": true, "can": true, "could": true, "my": true, "our": true, "you": true, "your": true,
	"me": true, "how": true, "why": true, "into": true, "than": true, "them": true, "they": true,
	"been": true, "being": true, "also": true, "any": true, "some": true, "all": true, "just": true,
	"func": true, "return": true, "nil": true, "if": true, "else": true, "var": true, "err": true,
	"self": true, "def": true, "let": true, "const": true,
}

// Text splits text into index terms, code-aware:
//
//   - words are maximal runs of letters, digits and '_';
//   - each word is kept whole (lower-cased), so an exact identifier such as
//     "parseflags" or an error code such as "e1234" matches itself;
//   - a word that is a compound (camelCase, PascalCase, snake_case, digits)
//     also yields its parts: "HTTPServer" → "httpserver", "http", "server";
//     parts that are only digits are dropped ("1h30m" keeps only itself);
//   - parts are lightly stemmed ("parsing", "parses", "parsed" → "pars";
//     "retried", "retries" → "retry") so prose in a question meets
//     identifiers in code;
//   - a run of Han, Kana or Hangul is a word apart from the letters and
//     digits around it, and yields its overlapping bigrams;
//   - stop words and one-letter tokens are dropped.
//
// Terms may repeat; callers count them.
func Text(text string) []string {
	var out []string
	var tk tokenizer
	tk.terms(text, func(t []byte) { out = append(out, string(t)) })
	return out
}

// Path splits a repository-relative path into terms: every
// directory and the file name are tokenized like identifiers, and the file
// name is also kept whole ("store_test.go").
func Path(p string) []string {
	var out []string
	var tk tokenizer
	tk.pathTerms(p, func(t []byte) { out = append(out, string(t)) })
	return out
}

// tokenizer produces the terms of Text without allocating for ASCII
// words: terms are handed to the callback as bytes of its buffer, valid
// only during the call (a caller that keeps one copies it, which a map
// lookup by string(b) does not). Indexing the standard library tokenizes
// some 100 MB of text, and this is where the search index spends its time.
// A tokenizer is not safe for concurrent use; its zero value is ready.
type tokenizer struct {
	buf [maxWordLen]byte
}

// terms calls fn with each term of text, in Text's order.
func (tk *tokenizer) terms(text string, fn func([]byte)) {
	forEachWord(text, func(w string) { tk.wordTerms(w, fn) })
}

// pathTerms calls fn with each term of Path(p), in order.
func (tk *tokenizer) pathTerms(p string, fn func([]byte)) {
	tk.terms(p, fn)
	base := p
	if i := strings.LastIndexByte(base, '/'); i >= 0 {
		base = base[i+1:]
	}
	if base != "" && strings.ContainsRune(base, '.') {
		fn([]byte(strings.ToLower(base)))
	}
}

// wordTerms calls fn with the terms of one word: the ASCII fast path
// lower-cases into the buffer and splits, stems and filters in place; any
// other word goes through the general (rune) path.
func (tk *tokenizer) wordTerms(w string, fn func([]byte)) {
	if len(w) > maxWordLen {
		return
	}
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			for _, t := range appendWordTerms(nil, w) {
				fn([]byte(t))
			}
			return
		}
	}
	lower := tk.buf[:len(w)]
	for i := 0; i < len(w); i++ {
		c := w[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
	}
	var parts [maxWordLen][2]uint8 // [start, end) of each part; a part is at least one byte
	n := splitASCII(w, &parts)
	if n <= 1 {
		if keepBytes(lower) {
			if t := stemBytes(lower); keepBytes(t) {
				fn(t)
			}
		}
		return
	}
	if keepBytes(lower) {
		fn(lower)
	}
	for _, p := range parts[:n] {
		part := lower[p[0]:p[1]]
		if isDigitBytes(part) {
			continue
		}
		// Stemming may write into the part (ied → i); the whole word was
		// already handed over, and parts do not overlap.
		if t := stemBytes(part); keepBytes(t) {
			fn(t)
		}
	}
}

// splitASCII is splitIdent for an ASCII word, recording the parts' byte
// ranges in parts; it returns how many there are.
func splitASCII(w string, parts *[maxWordLen][2]uint8) int {
	n, start := 0, 0
	flush := func(end int) {
		if end > start {
			parts[n] = [2]uint8{uint8(start), uint8(end)}
			n++
		}
		start = end
	}
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := w[i-1]
		switch {
		case isUpperASCII(c) && isLowerASCII(prev):
			flush(i)
		case isUpperASCII(c) && isUpperASCII(prev) && i+1 < len(w) && isLowerASCII(w[i+1]):
			flush(i)
		case isDigitASCII(c) != isDigitASCII(prev) && prev != '_':
			flush(i)
		}
	}
	flush(len(w))
	return n
}

func isUpperASCII(c byte) bool { return 'A' <= c && c <= 'Z' }
func isLowerASCII(c byte) bool { return 'a' <= c && c <= 'z' }
func isDigitASCII(c byte) bool { return '0' <= c && c <= '9' }

// longestStopWord bounds the stop-list lookup: longer terms are kept
// without one.
const longestStopWord = 6

func keepBytes(t []byte) bool {
	return len(t) >= 2 && (len(t) > longestStopWord || !stopWords[string(t)])
}

func isDigitBytes(t []byte) bool {
	for _, c := range t {
		if c < '0' || c > '9' {
			return false
		}
	}
	return len(t) > 0
}

// Words calls fn with each word of text: each maximal run of letters,
// digits and '_' outside the CJK scripts, and each piece of a run of Han,
// Kana or Hangul (see script.go): the units Text splits into terms.
func Words(text string, fn func(string)) { forEachWord(text, fn) }

// WordTerms returns the terms of one word of Words, in Text's order.
func WordTerms(w string) []string { return appendWordTerms(nil, w) }

// IsStopWord reports whether the lower-case word w is on the stop list:
// Text drops it.
func IsStopWord(w string) bool { return stopWords[w] }

// forEachWord calls fn for each word of text: each maximal run of
// letters, digits and '_' outside the CJK scripts, and each piece of a run
// of CJK characters (cjkPieces).
func forEachWord(text string, fn func(string)) {
	start := -1
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
			if isCJK(r) {
				if start >= 0 {
					fn(text[start:i])
					start = -1
				}
				i = cjkPieces(text, i, fn)
				continue
			}
		}
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			fn(text[start:i])
			start = -1
		}
		i += size
	}
	if start >= 0 {
		fn(text[start:])
	}
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// maxWordLen bounds the words indexed: longer runs are data (base64, hashes
// in test vectors), not identifiers.
const maxWordLen = 64

func appendWordTerms(out []string, w string) []string {
	if len(w) > maxWordLen {
		return out
	}
	if r, _ := utf8.DecodeRuneInString(w); isCJK(r) {
		return appendCJKTerms(out, w)
	}
	whole := strings.ToLower(w)
	parts := splitIdent(w)
	if len(parts) <= 1 {
		t := stem(whole)
		if keep(t) && keep(whole) {
			out = append(out, t)
		}
		return out
	}
	if keep(whole) {
		out = append(out, whole)
	}
	for _, p := range parts {
		if isDigits(p) {
			continue // "30" of "1h30m", "8" of "utf8": noise once split off
		}
		p = stem(strings.ToLower(p))
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

func keep(t string) bool {
	return len(t) >= 2 && !stopWords[t]
}

// splitIdent splits an identifier at '_', at lower→upper changes, at the
// last upper of an upper run followed by a lower ("HTTPServer" → HTTP,
// Server) and between letters and digits.
func splitIdent(w string) []string {
	var parts []string
	rs := []rune(w)
	start := 0
	flush := func(end int) {
		if end > start {
			parts = append(parts, string(rs[start:end]))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if r == '_' {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		prev := rs[i-1]
		switch {
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsUpper(prev) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		case unicode.IsDigit(r) != unicode.IsDigit(prev) && prev != '_':
			flush(i)
		}
	}
	flush(len(rs))
	return parts
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
