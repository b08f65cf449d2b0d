package retrieve

import (
	"context"
	"regexp"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// DefaultMentionWeight weighs the "mentions" ranker in the fusion: symbols a
// question names explicitly (`Flag.Set`, parseConfig, max_retries).
const DefaultMentionWeight = 0.5

var (
	backtickRe = regexp.MustCompile("`([^`\n]{2,80})`")
	codeWordRe = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?`)
)

// maxMentionMatches drops a mention that names too many symbols to mean one.
const maxMentionMatches = 12

// mentions extracts the words of q that look like code: anything in
// backticks, and words with an inner capital, an underscore, a dot between
// identifiers or a trailing "()". Prose words are left to BM25.
func mentions(q string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(w string) {
		w = strings.TrimSuffix(strings.Trim(w, "*&()[]{}:;,"), "()")
		if len(w) < 3 || seen[w] {
			return
		}
		seen[w] = true
		out = append(out, w)
	}
	for _, m := range backtickRe.FindAllStringSubmatch(q, -1) {
		for _, w := range codeWordRe.FindAllString(m[1], -1) {
			add(w)
		}
	}
	for _, w := range codeWordRe.FindAllString(q, -1) {
		if looksLikeCode(w) {
			add(w)
		}
	}
	return out
}

func looksLikeCode(w string) bool {
	if strings.HasSuffix(w, "()") || strings.Contains(strings.Trim(w, "_"), "_") {
		return true
	}
	if i := strings.IndexByte(w, '.'); i > 0 && i < len(w)-1 {
		// "e.g" and "i.e" are prose; package.Name is code.
		return len(w) > 4
	}
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// mentionRanking resolves the question's code mentions in the graph: each
// mention by dotted suffix or short name; ambiguous mentions (more than
// maxMentionMatches symbols) are dropped.
func (s *Searcher) mentionRanking(ctx context.Context, q string, keep func(int32) bool) ([]int32, error) {
	if s.graph == nil {
		return nil, nil
	}
	var out []int32
	seen := map[int32]bool{}
	for _, m := range mentions(q) {
		sq := graphdb.SymbolQuery{Name: m, Limit: maxMentionMatches + 1}
		if strings.Contains(m, ".") {
			sq = graphdb.SymbolQuery{Suffix: m, Limit: maxMentionMatches + 1}
		}
		nodes, err := s.graph.FindSymbols(ctx, sq)
		if err != nil {
			return nil, err
		}
		nodes = typesNotConstructors(nodes)
		if len(nodes) > maxMentionMatches {
			continue
		}
		for _, n := range nodes {
			d, ok := s.byNode[n.ID]
			if !ok || seen[d] || (keep != nil && !keep(d)) {
				continue
			}
			seen[d] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// typesNotConstructors drops the constructors named after a type the
// mention also names (Java names a constructor after its class): a report
// that names a class is about the class, and each of its constructors
// taking a place of its own pushed the methods the text is about down
// (and a class with a dozen constructors made the mention look ambiguous).
// A constructor the text is about still comes through BM25.
func typesNotConstructors(nodes []graphdb.Node) []graphdb.Node {
	types := map[string]bool{}
	for _, n := range nodes {
		if n.Kind == graphdb.KindType {
			types[n.QName] = true
		}
	}
	if len(types) == 0 {
		return nodes
	}
	out := nodes[:0:0]
	for _, n := range nodes {
		q, _, _ := strings.Cut(n.QName, "(") // overloads carry their parameter types
		if n.SubKind == "constructor" && types[q[:max(strings.LastIndexByte(q, '.'), 0)]] {
			continue
		}
		out = append(out, n)
	}
	return out
}
