package egress

import (
	"bytes"
	"slices"
	"sort"
	"strings"
)

// ValueRule is the rule name of a value of a secret-bearing file, in the
// "[redacted: <rule>]" mark and in the counts.
const ValueRule = "secret-file-value"

// valueMark replaces a value of a secret-bearing file.
const valueMark = "[redacted: " + ValueRule + "]"

// gram is the length of the n-grams the matcher is keyed by: the shortest
// value (minValue) is that long, so every value and every fragment starts
// with one.
const gram = minValue

// gramBits is log2 of the size of the prefilter's bit set.
const gramBits = 20

// gramBase is the rolling hash's multiplier (odd, so no bits are lost).
const gramBase = 0x100000001b3

// Values is the compiled matcher of a set of values of secret-bearing files
// (see [Values.Replace]); it is safe for concurrent use.
//
// DESIGN: a text is reduced to its lower-cased ASCII letters and digits;
// every value and every fragment (fragLen letters and digits of a
// random-looking value) begins with a gram-long n-gram. A rolling hash of
// each gram of the text is looked up in a bit set of the values' grams
// (128 KiB: with a few thousand grams, one position in a few hundred goes
// on), and only on a hit is the gram looked
// up in a map of the values starting with it and of the fragments' grams.
// Text that holds no value thus costs one reduction and one hash step per
// byte, however many values there are; an Aho-Corasick automaton
// (github.com/BobuSumisu/aho-corasick, which gitleaks uses) was the
// alternative, but its dense transition table costs 2 KiB per state, tens
// of MB for a private key's fragments.
type Values struct {
	values []string // lower-cased, longest first
	starts map[string][]int
	frags  map[string]bool
	bits   []uint64
}

// CompileValues builds the matcher of values (letters and digits, as
// [SecretValues] returns them; values shorter than 12 are left out).
func CompileValues(values []string) *Values {
	vs := &Values{starts: map[string][]int{}, frags: fragments(values), bits: make([]uint64, 1<<gramBits/64)}
	seen := map[string]bool{}
	for _, v := range values {
		if v = strings.ToLower(v); len(v) >= gram && !seen[v] {
			seen[v] = true
			vs.values = append(vs.values, v)
		}
	}
	sort.SliceStable(vs.values, func(i, j int) bool { return len(vs.values[i]) > len(vs.values[j]) })
	mark := func(g string) {
		h := gramHash([]byte(g))
		vs.bits[h>>6] |= 1 << (h & 63)
	}
	for i, v := range vs.values {
		vs.starts[v[:gram]] = append(vs.starts[v[:gram]], i)
		mark(v[:gram])
	}
	for f := range vs.frags {
		if _, ok := vs.starts[f[:gram]]; !ok {
			vs.starts[f[:gram]] = nil // present, without values
		}
		mark(f[:gram])
	}
	return vs
}

// gramHash is the prefilter's bit index of one gram.
func gramHash(g []byte) uint64 {
	var h uint64
	for _, c := range g {
		h = h*gramBase + uint64(c)
	}
	return mix(h)
}

func mix(h uint64) uint64 { return (h * 0x9e3779b97f4a7c15) >> (64 - gramBits) }

// Replace replaces in s every occurrence of the values (in any case, and
// however s spreads them over other characters: "Zq8v-L3nW…" holds
// "zq8vl3nw…") and every fragLen-long (16) piece of a random-looking one
// (upper- and lower-case letters and digits) with
// "[redacted: secret-file-value]"; it returns the text and how many it
// replaced. A nil Values replaces nothing.
func (vs *Values) Replace(s string) (string, int) {
	if vs == nil || len(vs.values) == 0 && len(vs.frags) == 0 || len(s) < gram {
		return s, 0
	}
	// n holds s's letters and digits, lower-cased; pos[i] is where n[i] is in s.
	n := make([]byte, 0, len(s))
	pos := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; isAlnum(c) {
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			n = append(n, c)
			pos = append(pos, i)
		}
	}
	hits, fragAt := vs.find(n)
	if len(hits) == 0 && fragAt == nil {
		return s, 0
	}
	covered := make([]bool, len(n))
	var spans []span
	// Whole values first, longest first, so a value replaces before a
	// shorter one inside it.
	for _, h := range hits {
		a, b := h.at, h.at+len(vs.values[h.value])
		if covered[a] || covered[b-1] {
			continue
		}
		for k := a; k < b; k++ {
			covered[k] = true
		}
		spans = append(spans, span{pos[a], pos[b-1] + 1})
	}
	// Pieces of a random-looking value: a value cut in two by a label or
	// quoted in part still gives away most of it.
	for a := 0; fragAt != nil && a+fragLen <= len(n); a++ {
		if !fragAt[a] {
			continue
		}
		b := a + fragLen
		for b < len(n) && fragAt[b+1-fragLen] {
			b++
		}
		if !covered[a] || !covered[b-1] {
			for k := a; k < b; k++ {
				covered[k] = true
			}
			spans = append(spans, span{pos[a], pos[b-1] + 1})
		}
		a = b - 1
	}
	return cutSpans(s, spans), len(spans)
}

type span struct{ from, to int }

// hit is an occurrence of values[value] at n[at:].
type hit struct{ at, value int }

// find returns the occurrences of whole values in n, longest value first,
// and where fragments start (nil when none does).
func (vs *Values) find(n []byte) (hits []hit, fragAt []bool) {
	if len(n) < gram {
		return nil, nil
	}
	var pow uint64 = 1 // gramBase^(gram-1)
	for range gram - 1 {
		pow *= gramBase
	}
	var h uint64
	for i := range gram {
		h = h*gramBase + uint64(n[i])
	}
	for a := 0; ; a++ {
		if m := mix(h); vs.bits[m>>6]&(1<<(m&63)) != 0 {
			if idx, ok := vs.starts[string(n[a:a+gram])]; ok {
				for _, i := range idx {
					if bytes.HasPrefix(n[a:], []byte(vs.values[i])) {
						hits = append(hits, hit{a, i})
					}
				}
				if a+fragLen <= len(n) && vs.frags[string(n[a:a+fragLen])] {
					if fragAt == nil {
						fragAt = make([]bool, len(n))
					}
					fragAt[a] = true
				}
			}
		}
		if a+gram >= len(n) {
			break
		}
		h = (h-uint64(n[a])*pow)*gramBase + uint64(n[a+gram])
	}
	slices.SortStableFunc(hits, func(x, y hit) int {
		if d := len(vs.values[y.value]) - len(vs.values[x.value]); d != 0 {
			return d
		}
		return x.value - y.value
	})
	return hits, fragAt
}

// cutSpans replaces the spans of s (overlapping ones are one) with the mark.
func cutSpans(s string, spans []span) string {
	if len(spans) == 0 {
		return s
	}
	sort.Slice(spans, func(i, j int) bool { return spans[i].from < spans[j].from })
	var out strings.Builder
	last := 0
	for _, sp := range spans {
		if sp.from < last {
			last = max(last, sp.to)
			continue
		}
		out.WriteString(s[last:sp.from])
		out.WriteString(valueMark)
		last = sp.to
	}
	out.WriteString(s[last:])
	return out.String()
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
