package retrieve

import "sort"

// Ranking is one ranker's output, best first, with the ranker's weight.
type Ranking struct {
	Name   string
	Weight float64
	Docs   []int32
}

// Fused is one document's fused score.
type Fused struct {
	Doc   int32
	Score float64
	Ranks map[string]int // ranker name → 1-based rank
}

// FuseRRF combines rankings with weighted Reciprocal Rank Fusion:
//
//	score(d) = Σ_r w_r / (k + rank_r(d))
//
// with 1-based ranks; a document absent from a ranking gets nothing from it.
// k ≤ 0 means RRFK (60). The result is sorted by score, then doc.
func FuseRRF(k int, rankings ...Ranking) []Fused {
	if k <= 0 {
		k = RRFK
	}
	acc := map[int32]*Fused{}
	for _, r := range rankings {
		for i, d := range r.Docs {
			f := acc[d]
			if f == nil {
				f = &Fused{Doc: d, Ranks: map[string]int{}}
				acc[d] = f
			}
			if _, dup := f.Ranks[r.Name]; dup {
				continue // a ranker lists a document once
			}
			f.Ranks[r.Name] = i + 1
			f.Score += r.Weight / float64(k+i+1)
		}
	}
	out := make([]Fused, 0, len(acc))
	for _, f := range acc {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Doc < out[j].Doc
	})
	return out
}
