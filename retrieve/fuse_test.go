package retrieve

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFuseRRF(t *testing.T) {
	t.Parallel()
	type ds = []int32
	tests := []struct {
		name     string
		rankings []Ranking
		want     []int32
		top      float64
	}{
		{"single list keeps order", []Ranking{{Name: "bm25", Weight: 1, Docs: ds{3, 1, 2}}}, ds{3, 1, 2}, 1.0 / 61},
		{"agreement wins", []Ranking{{Name: "bm25", Weight: 0.4, Docs: ds{1, 2, 3}}, {Name: "vector", Weight: 1, Docs: ds{2, 3, 1}}}, ds{2, 3, 1}, 0.4/62 + 1.0/61},
		{"weight decides a tie of ranks", []Ranking{{Name: "bm25", Weight: 0.4, Docs: ds{1}}, {Name: "vector", Weight: 1, Docs: ds{2}}}, ds{2, 1}, 1.0 / 61},
		{"equal scores break by doc", []Ranking{{Name: "a", Weight: 1, Docs: ds{5}}, {Name: "b", Weight: 1, Docs: ds{4}}}, ds{4, 5}, 1.0 / 61},
		{"duplicate in one list counts once", []Ranking{{Name: "a", Weight: 1, Docs: ds{7, 7}}}, ds{7}, 1.0 / 61},
		{"empty", nil, nil, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := FuseRRF(0, tt.rankings...)
			var docs []int32
			for _, f := range got {
				docs = append(docs, f.Doc)
			}
			if diff := cmp.Diff(tt.want, docs); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
			if len(got) > 0 && !near(got[0].Score, tt.top) {
				t.Errorf("top score = %v, want %v", got[0].Score, tt.top)
			}
		})
	}
}

func near(a, b float64) bool {
	d := a - b
	return d < 1e-12 && d > -1e-12
}
