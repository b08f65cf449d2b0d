package graphdb

import (
	"context"
	"math"
	"sort"
)

// Blast is the blast radius of changing one or more symbols.
type Blast struct {
	Targets    []Node   `json:"targets"`
	Direct     []Result `json:"direct_callers"`     // depth 1
	Transitive []Result `json:"transitive_callers"` // depth 2..MaxDepth
	Files      []string `json:"affected_files"`     // targets' and callers' files, sorted
	Tests      []Result `json:"tests"`              // callers declared in tests
	MaxDepth   int      `json:"max_depth"`
	Risk       int      `json:"risk"` // 0–100, see RiskScore
}

// DefaultBlastDepth bounds transitive callers when the caller gives 0.
const DefaultBlastDepth = 4

// BlastRadius collects the direct and transitive callers of targets (up to
// maxDepth hops, DefaultBlastDepth when 0), the files they live in, the tests
// among them, and a risk score.
func BlastRadius(ctx context.Context, r Reader, targets []NodeID, maxDepth int) (Blast, error) {
	if maxDepth <= 0 {
		maxDepth = DefaultBlastDepth
	}
	b := Blast{MaxDepth: maxDepth}
	inTargets := map[NodeID]bool{}
	files := map[string]bool{}
	for _, id := range targets {
		n, err := r.Node(ctx, id)
		if err != nil {
			return Blast{}, err
		}
		if inTargets[id] {
			continue
		}
		inTargets[id] = true
		b.Targets = append(b.Targets, n)
		if n.File != "" {
			files[n.File] = true
		}
	}
	best := map[NodeID]Result{}
	for _, id := range targets {
		rs, err := Query(ctx, r, OpCallers, id, maxDepth, 0)
		if err != nil {
			return Blast{}, err
		}
		for _, res := range rs {
			if inTargets[res.Node.ID] {
				continue
			}
			if old, ok := best[res.Node.ID]; !ok || res.Depth < old.Depth {
				best[res.Node.ID] = res
			}
		}
	}
	for _, res := range best {
		if res.Depth == 1 {
			b.Direct = append(b.Direct, res)
		} else {
			b.Transitive = append(b.Transitive, res)
		}
		if res.Node.Test {
			b.Tests = append(b.Tests, res)
		}
		if res.Node.File != "" {
			files[res.Node.File] = true
		}
	}
	SortResults(b.Direct)
	SortResults(b.Transitive)
	SortResults(b.Tests)
	for f := range files {
		b.Files = append(b.Files, f)
	}
	sort.Strings(b.Files)
	exported := false
	for _, n := range b.Targets {
		exported = exported || n.Exported
	}
	b.Risk = RiskScore(len(b.Direct), len(b.Transitive), len(b.Files), exported, len(b.Tests) == 0)
	return b, nil
}

// RiskScore maps blast-radius counts to 0–100:
//
//	risk = 100 × (0.35·s(direct, 5) + 0.25·s(transitive, 25) + 0.20·s(files, 10)
//	              + 0.10·[any target exported] + 0.10·[no test reaches a target])
//
// where s(x, k) = x/(x+k) saturates: k is the count at which a term gives
// half its weight. A private function with one caller in the same file and a
// test scores about 10; an exported hub with dozens of callers across many
// files and no test scores 80–95.
func RiskScore(direct, transitive, files int, exported, untested bool) int {
	s := func(x, k float64) float64 { return x / (x + k) }
	risk := 0.35*s(float64(direct), 5) + 0.25*s(float64(transitive), 25) + 0.20*s(float64(files), 10)
	if exported {
		risk += 0.10
	}
	if untested {
		risk += 0.10
	}
	return int(math.Round(100 * risk))
}
