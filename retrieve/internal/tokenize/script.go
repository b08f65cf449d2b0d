package tokenize

import (
	"unicode"
	"unicode/utf8"
)

// DESIGN: Chinese and Japanese put no spaces between words, and Korean
// text, although spaced, glues particles to its nouns; a run of Han,
// Kana or Hangul is therefore a word of its own (apart from the Latin
// letters and digits around it: "cli生成代码的import" is "cli", "生成代码的",
// "import"), and its terms are its overlapping bigrams ("生成", "成代",
// "代码", "码的"), as Lucene's CJK analyzer indexes them. Bigrams need no
// dictionary, so the same rule serves the three languages and any domain
// vocabulary; a query and a document agree on a word whenever they share
// two adjacent characters. A lone character is its own term.
//
// A run longer than maxCJKRunes is cut into pieces that overlap by one
// character, so that every bigram of the run is in exactly one piece and
// a piece stays a word the word table can hold (maxWordLen bytes).

// maxCJKRunes is the most characters of one CJK piece: every rune of
// these scripts takes three bytes in UTF-8, a few supplementary Han take
// four.
const maxCJKRunes = maxWordLen / 4

// isCJK reports whether r is of the Han, Hiragana, Katakana or Hangul
// script, or the Katakana prolonged sound mark (script Common, used only
// within Kana words).
func isCJK(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) || r == 'ー'
}

// cjkPieces calls fn with the pieces of the CJK run that starts at
// text[i] (see the DESIGN note) and returns where the run ends.
func cjkPieces(text string, i int, fn func(string)) int {
	start, n, last := i, 0, i // last: where the piece's last rune starts
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !isCJK(r) {
			break
		}
		if n == maxCJKRunes {
			fn(text[start:i])
			start, n = last, 1
		}
		last = i
		n++
		i += size
	}
	fn(text[start:i])
	return i
}

// appendCJKTerms appends the terms of a CJK piece: its overlapping
// bigrams, or the piece itself when it is one character.
func appendCJKTerms(out []string, w string) []string {
	_, size := utf8.DecodeRuneInString(w)
	if size == len(w) {
		return append(out, w)
	}
	prev := 0
	for i := size; i < len(w); {
		_, next := utf8.DecodeRuneInString(w[i:])
		out = append(out, w[prev:i+next])
		prev = i
		i += next
	}
	return out
}
