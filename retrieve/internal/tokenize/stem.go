package tokenize

import "strings"

// DESIGN: the stemmer is the inflectional part of Snowball's English
// (Porter2) algorithm: its prelude, regions, steps 1a, 1b and 1c and its
// step 5, written here; its derivational steps 2 to 4 are left out.
// Snowball's full algorithm, as github.com/kljensen/snowball implements it,
// was measured first (BENCHMARKS.md, issue 20): it conflates words a code
// search must keep apart ("translator" and "translation" → "translat",
// "correctly" and "correct", "ordinal" and "ordin…") and ranked gold files
// lower on the Go dev set (pflag-12 first → third), the Go real set and
// dayjs (dayjs-1502: Serbian's `translator.correctGrammaticalCase` took
// the first place from the Bulgarian locale a report about a "translation"
// that is "more correctly" wrong was about). What a question needs
// from a stemmer is that the inflections of a word meet it ("retried",
// "retries", "retrying" and "retry" are all "retri"; "parsing", "parsed",
// "parses" and "parse" are all "pars"), and that is the part kept. The
// library stays the reference: TestStemAgreesWithSnowball checks on every
// word of this module that the full algorithm's stem equals the stem here
// or is a prefix of it, shorter by a derivational suffix.

// minStemLen is the length below which a term is not stemmed (Porter2
// leaves words of one or two letters alone; three-letter words are stemmed
// so that "try" meets "tried").
const minStemLen = 3

// maxStemCache bounds a tokenizer's memo of stems.
const maxStemCache = 1 << 16

// stemExceptions are Porter2's exceptional forms that stemming alone gets
// wrong, with their stems.
var stemExceptions = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// stemInvariant are the words Porter2 leaves as they are after step 1a.
var stemInvariant = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

// stem returns the inflectional Porter2 stem (see the DESIGN note) of a
// lower-case term made only of the letters a–z; any other term (digits,
// other scripts, too short) is returned as it is.
func stem(t string) string {
	if len(t) < minStemLen || !isASCIILetters(t) {
		return t
	}
	if s, ok := stemExceptions[t]; ok {
		return s
	}
	w := []byte(t)
	// Prelude: a y that starts the word or follows a vowel is a consonant (Y).
	for i, c := range w {
		if c == 'y' && (i == 0 || isVowel(w[i-1])) {
			w[i] = 'Y'
		}
	}
	r1, r2 := regions(w)
	w = step1a(w)
	if stemInvariant[string(w)] {
		return strings.ReplaceAll(string(w), "Y", "y")
	}
	w, r1, r2 = step1b(w, r1, r2)
	w = step1c(w)
	w = step5(w, r1, r2)
	return strings.ReplaceAll(string(w), "Y", "y")
}

// isVowel reports whether c is a Porter2 vowel (y is, Y is not).
func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions returns where Porter2's R1 and R2 start: R1 after the first
// non-vowel that follows a vowel (after "gener", "commun" or "arsen" when
// the word starts with one), R2 the same within R1.
func regions(w []byte) (r1, r2 int) {
	next := func(from int) int {
		for i := from + 1; i < len(w); i++ {
			if !isVowel(w[i]) && isVowel(w[i-1]) {
				return i + 1
			}
		}
		return len(w)
	}
	r1 = next(0)
	for _, p := range []string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(string(w), p) {
			r1 = len(p)
		}
	}
	if r1 >= len(w) {
		return len(w), len(w)
	}
	return r1, next(r1)
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// step1a: plurals and -ied.
func step1a(w []byte) []byte {
	n := len(w)
	switch {
	case hasSuffix(w, "sses"):
		return w[:n-2]
	case hasSuffix(w, "ied"), hasSuffix(w, "ies"):
		if n > 4 {
			return w[:n-2] // retried → retri
		}
		return w[:n-1] // ties → tie
	case hasSuffix(w, "us"), hasSuffix(w, "ss"):
		return w
	case hasSuffix(w, "s"):
		// Delete if a vowel precedes the s other than right before it.
		if n >= 3 && hasVowel(w[:n-2]) {
			return w[:n-1]
		}
	}
	return w
}

// step1b: -eed, -ed, -ing and their -ly forms.
func step1b(w []byte, r1, r2 int) ([]byte, int, int) {
	for _, suf := range []string{"eedly", "ingly", "edly", "ing", "eed", "ed"} {
		if !hasSuffix(w, suf) {
			continue
		}
		n := len(w) - len(suf)
		if suf == "eed" || suf == "eedly" {
			if n >= r1 {
				w = append(w[:n], "ee"...)
			}
			return w, min(r1, len(w)), min(r2, len(w))
		}
		if !hasVowel(w[:n]) {
			return w, r1, r2
		}
		w = w[:n]
		switch {
		case hasSuffix(w, "at"), hasSuffix(w, "bl"), hasSuffix(w, "iz"):
			w = append(w, 'e')
		case isDouble(w):
			w = w[:len(w)-1]
		case isShortWord(w, r1):
			w = append(w, 'e')
			return w, len(w), len(w)
		}
		return w, min(r1, len(w)), min(r2, len(w))
	}
	return w, r1, r2
}

func isDouble(w []byte) bool {
	n := len(w)
	return n >= 2 && w[n-1] == w[n-2] && strings.IndexByte("bdfgmnprt", w[n-1]) >= 0
}

// endsShortSyllable reports whether w ends in a short syllable: a vowel
// followed by a non-vowel other than w, x or Y and preceded by a
// non-vowel, or a vowel at the start followed by a non-vowel.
func endsShortSyllable(w []byte) bool {
	n := len(w)
	if n == 2 {
		return isVowel(w[0]) && !isVowel(w[1])
	}
	return n >= 3 && !isVowel(w[n-3]) && isVowel(w[n-2]) && !isVowel(w[n-1]) && strings.IndexByte("wxY", w[n-1]) < 0
}

func isShortWord(w []byte, r1 int) bool { return r1 >= len(w) && endsShortSyllable(w) }

// step1c: a final y or Y after a non-vowel that is not the first letter
// becomes i (cry → cri, retry → retri; by and say stay).
func step1c(w []byte) []byte {
	n := len(w)
	if n > 2 && (w[n-1] == 'y' || w[n-1] == 'Y') && !isVowel(w[n-2]) {
		w[n-1] = 'i'
	}
	return w
}

// step5: a final e in R2, or in R1 after no short syllable, goes; a final
// ll in R2 loses an l.
func step5(w []byte, r1, r2 int) []byte {
	n := len(w)
	switch {
	case hasSuffix(w, "e") && (n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(w[:n-1])):
		return w[:n-1]
	case hasSuffix(w, "ll") && n-1 >= r2:
		return w[:n-1]
	}
	return w
}

func hasSuffix(w []byte, s string) bool {
	return len(w) >= len(s) && string(w[len(w)-len(s):]) == s
}

// stemBytes is stem on a lower-case ASCII term, in place: it returns a
// prefix of t, into which it may write (stems are never longer than their
// word), memoised per tokenizer.
func (tk *tokenizer) stemBytes(t []byte) []byte {
	if len(t) < minStemLen || !isASCIILetterBytes(t) {
		return t
	}
	s, ok := tk.stems[string(t)]
	if !ok {
		s = stem(string(t))
		if tk.stems == nil {
			tk.stems = map[string]string{}
		}
		if len(tk.stems) < maxStemCache {
			tk.stems[string(t)] = s
		}
	}
	if len(s) > len(t) {
		return []byte(s)
	}
	return t[:copy(t, s)]
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isASCIILetterBytes(t []byte) bool {
	for _, c := range t {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
