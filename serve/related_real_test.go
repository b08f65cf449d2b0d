package serve

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/lines"
)

// TestDuplicateThresholdRealPairs measures DuplicateThreshold on real
// issues: the folders of RELAY_RELATED_EVAL (comma-separated) are `relay
// eval real --out` folders of ../shared/realissues and
// realissues-systems. A duplicate pair is two instances of one repository
// with the same problem statement: one issue that two merged pull requests
// resolved (the sets keep no record of issues closed as duplicates and
// their bundles no history; BENCHMARKS.md, "Related and duplicate
// issues"). Every other pair of one repository is a non-duplicate. Each
// instance is localized twice: relay's localization of its text (method
// "relay", what the bot keeps from a model's run) and its fix's own files
// and functions (the gold, in patch order). The table goes to the log; the
// test fails when DuplicateThreshold keeps less than half the pairs or
// flags more non-duplicates than duplicates.
func TestDuplicateThresholdRealPairs(t *testing.T) {
	dirs := os.Getenv("RELAY_RELATED_EVAL")
	if dirs == "" {
		t.Skip("RELAY_RELATED_EVAL not set: folders written by relay eval real --out")
	}
	var all []realLocalized
	for _, dir := range strings.Split(dirs, ",") {
		all = append(all, readRealLocalized(t, dir)...)
	}
	for _, method := range []string{"relay", "gold"} {
		dup, other := realPairScores(all, method)
		if len(dup) == 0 {
			t.Fatalf("%s: no duplicate pair among %d instances", method, len(all))
		}
		t.Logf("%s localization: %d duplicate pairs (scores %.2f), %d non-duplicate pairs of the same repositories (highest %.2f)",
			method, len(dup), dup, len(other), slices.Max(append(other, 0)))
		t.Logf("| threshold | flagged duplicates | flagged non-duplicates | precision | recall |")
		for _, th := range []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
			tp, fp := countAtLeast(dup, th), countAtLeast(other, th)
			t.Logf("| %.2f | %d | %d | %s | %.2f |", th, tp, fp, ratio(tp, tp+fp), float64(tp)/float64(len(dup)))
		}
		if tp, fp := countAtLeast(dup, DuplicateThreshold), countAtLeast(other, DuplicateThreshold); method == "relay" && (2*tp < len(dup) || fp > tp) {
			t.Errorf("DuplicateThreshold %.2f: %d of %d duplicate pairs, %d non-duplicates flagged", DuplicateThreshold, tp, len(dup), fp)
		}
	}
}

// realLocalized is one scored instance of a relay eval real --out folder.
type realLocalized struct {
	ID, Repo, Problem string
	Relay, Gold       Localization
}

func readRealLocalized(t *testing.T, dir string) []realLocalized {
	t.Helper()
	var res struct {
		Results []struct {
			ID     string       `json:"instance_id"`
			Method string       `json:"method"`
			Pred   Localization `json:"prediction"`
		} `json:"results"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("%s/results.json: %v", dir, err)
	}
	relay := map[string]Localization{}
	for _, r := range res.Results {
		if r.Method == "relay" {
			relay[r.ID] = r.Pred
		}
	}
	f, err := os.Open(filepath.Join(dir, "instances.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []realLocalized
	err = lines.Each(f, func(_ int, line []byte) error {
		var in struct {
			ID        string   `json:"instance_id"`
			Repo      string   `json:"repo"`
			Problem   string   `json:"problem_statement"`
			Files     []string `json:"gold_files"`
			Functions []string `json:"gold_functions"`
		}
		if err := json.Unmarshal(line, &in); err != nil {
			return err
		}
		if loc, ok := relay[in.ID]; ok {
			out = append(out, realLocalized{ID: in.ID, Repo: in.Repo, Problem: strings.TrimSpace(in.Problem), Relay: loc.Top(),
				Gold: Localization{Files: in.Files, Functions: in.Functions}})
		}
		return nil
	})
	if err != nil {
		t.Fatalf("%s/instances.jsonl: %v", dir, err)
	}
	return out
}

// realPairScores scores every pair of instances of one repository:
// duplicates (the same problem statement) and the others.
func realPairScores(all []realLocalized, method string) (dup, other []float64) {
	for i, a := range all {
		for _, b := range all[i+1:] {
			if a.Repo != b.Repo {
				continue
			}
			la, lb := a.Relay, b.Relay
			if method == "gold" {
				la, lb = a.Gold, b.Gold
			}
			if s := Overlap(la, lb); a.Problem == b.Problem {
				dup = append(dup, s)
			} else {
				other = append(other, s)
			}
		}
	}
	return dup, other
}

func countAtLeast(scores []float64, th float64) int {
	n := 0
	for _, s := range scores {
		if s >= th {
			n++
		}
	}
	return n
}

func ratio(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}
