package index

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index/internal/frontend"
)

// TestYieldFiles: a language's shared files go to the language it yields
// them to only when that language has files of its own.
func TestYieldFiles(t *testing.T) {
	langs := []frontend.Lang{
		{Name: "c", Yields: func(rel string) bool { return strings.HasSuffix(rel, ".h") }, YieldsTo: "cpp"},
		{Name: "cpp"},
	}
	tests := []struct {
		name string
		in   [][]string
		want [][]string
	}{
		{name: "no C++", in: [][]string{{"a.c", "a.h"}, nil}, want: [][]string{{"a.c", "a.h"}, nil}},
		{name: "C++ sources", in: [][]string{{"a.c", "a.h"}, {"b.cpp"}}, want: [][]string{{"a.c"}, {"b.cpp", "a.h"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := make([][]fileEntry, len(tt.in))
			for i, rels := range tt.in {
				for _, rel := range rels {
					in[i] = append(in[i], fileEntry{rel: rel})
				}
			}
			yieldFiles(langs, in)
			got := make([][]string, len(in))
			for i, fes := range in {
				for _, fe := range fes {
					got[i] = append(got[i], fe.rel)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
