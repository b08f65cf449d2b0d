package tokenize

import "strings"

// DESIGN: the stemmer is a light one written here: it strips -s, -es,
// -ies, -ied, -ed and -ing and a final e, so that the inflections of a
// word meet it ("retried", "retries" and "retry" are all "retry";
// "parsing", "parsed", "parses" and "parse" are all "pars"), and does
// nothing else. Snowball's English (Porter2) stemmer, from
// github.com/kljensen/snowball, was measured first and then its
// inflectional steps alone (prelude, 1a–1c, 5); both ranked gold files
// lower (BENCHMARKS.md, issue 20). The full algorithm conflates words a
// code search must keep apart (its derivational steps: "translator" and
// "translation" are "translat", "correctly" is "correct": dayjs-1502's
// Bulgarian locale lost first place to Serbian's
// `translator.correctGrammaticalCase`); its inflectional steps alone
// still turn every final y after a consonant into i ("every", "empty",
// "query" → "everi", "empti", "queri") and stem three-letter words, which
// moved Go dev-set and real-set gold files down (pflag-04, cmp-01,
// client_golang-1_20_4, pgx5-5_5_5) and cost 1.5 points of function
// all@5 on the real issues. The one inflection the light stemmer missed
// was -ied ("retried" was "retri", "retry" stayed "retry"): it is now
// stemmed as -ies is.

// stem strips a few English inflections from a lower-case term made of
// the letters a–z (see the DESIGN note); any other term (digits, other
// scripts, shorter than four letters) is returned as it is.
func stem(t string) string {
	if len(t) < 4 || !isASCIILetters(t) {
		return t
	}
	switch {
	case (strings.HasSuffix(t, "ies") || strings.HasSuffix(t, "ied")) && len(t) > 4:
		t = t[:len(t)-3] + "y"
	case strings.HasSuffix(t, "ing") && len(t) > 5:
		t = undouble(t[:len(t)-3])
	case strings.HasSuffix(t, "ed") && len(t) > 4:
		t = undouble(t[:len(t)-2])
	case strings.HasSuffix(t, "es") && len(t) > 4 && !strings.HasSuffix(t, "ses"):
		t = t[:len(t)-1]
	case strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") && !strings.HasSuffix(t, "us") && !strings.HasSuffix(t, "is"):
		t = t[:len(t)-1]
	}
	if strings.HasSuffix(t, "e") && len(t) > 4 {
		t = t[:len(t)-1]
	}
	return t
}

// undouble turns "runn" (from "running") into "run"; "ll", "ss" and "zz"
// stay ("called" → "call").
func undouble(t string) string {
	n := len(t)
	if n >= 3 && t[n-1] == t[n-2] && !strings.ContainsRune("lsz", rune(t[n-1])) && !strings.ContainsRune("aeiou", rune(t[n-1])) {
		return t[:n-1]
	}
	return t
}

// stemBytes is stem on a lower-case ASCII term, in place and without
// allocating (the build's hot path): it returns a prefix of t, into which
// it may write (ies → y). TestTokenizeFastPathAgrees and FuzzTokenize
// hold it to stem.
func stemBytes(t []byte) []byte {
	if len(t) < 4 || !isASCIILetterBytes(t) {
		return t
	}
	n := len(t)
	switch {
	case (hasSuffix(t, "ies") || hasSuffix(t, "ied")) && n > 4:
		t[n-3] = 'y'
		t = t[:n-2]
	case hasSuffix(t, "ing") && n > 5:
		t = undoubleBytes(t[:n-3])
	case hasSuffix(t, "ed") && n > 4:
		t = undoubleBytes(t[:n-2])
	case hasSuffix(t, "es") && n > 4 && !hasSuffix(t, "ses"):
		t = t[:n-1]
	case hasSuffix(t, "s") && !hasSuffix(t, "ss") && !hasSuffix(t, "us") && !hasSuffix(t, "is"):
		t = t[:n-1]
	}
	if hasSuffix(t, "e") && len(t) > 4 {
		t = t[:len(t)-1]
	}
	return t
}

func hasSuffix(t []byte, s string) bool {
	return len(t) >= len(s) && string(t[len(t)-len(s):]) == s
}

func undoubleBytes(t []byte) []byte {
	n := len(t)
	if n >= 3 && t[n-1] == t[n-2] && !strings.ContainsRune("lsz", rune(t[n-1])) && !strings.ContainsRune("aeiou", rune(t[n-1])) {
		return t[:n-1]
	}
	return t
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
