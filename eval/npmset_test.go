package eval_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/relayhq/relay/eval"
	"github.com/relayhq/relay/internal/lines"
)

const npmSetPath = "testdata/npmset/instances.jsonl"

// npmSetSplit reads each instance's package and its held_out mark from
// the npm set, checking that the mark follows eval.HeldOut (the split is
// by rule, never by hand).
func npmSetSplit(t *testing.T) (pkgOf map[string]string) {
	t.Helper()
	f, err := os.Open(npmSetPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgOf = map[string]string{}
	err = lines.Each(f, func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var rec struct {
			ID      string `json:"instance_id"`
			Repo    string `json:"repo"`
			HeldOut *bool  `json:"held_out"`
		}
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("line %d: %v", n, err)
		}
		name, _, ok := eval.NPMPackage(rec.Repo)
		switch {
		case !ok:
			return fmt.Errorf("line %d (%s): repo %q is not npm:NAME@VERSION", n, rec.ID, rec.Repo)
		case rec.HeldOut == nil:
			return fmt.Errorf("line %d (%s): no held_out mark", n, rec.ID)
		case *rec.HeldOut != eval.HeldOut(name):
			return fmt.Errorf("line %d (%s): held_out %v, but eval.HeldOut(%q) is %v", n, rec.ID, *rec.HeldOut, name, eval.HeldOut(name))
		}
		pkgOf[rec.ID] = name
		return nil
	})
	if err != nil {
		t.Fatalf("%s: %v", npmSetPath, err)
	}
	return pkgOf
}

// TestNPMSetSplit checks the npm set's shape without the network: every
// instance names an npm package version, its held_out mark follows
// eval.HeldOut, both parts hold packages, and no package gives more than
// three instances.
func TestNPMSetSplit(t *testing.T) {
	insts, err := eval.ReadInstances(npmSetPath)
	if err != nil {
		t.Fatal(err)
	}
	pkgOf := npmSetSplit(t)
	per := map[string]int{}
	parts := map[string]map[string]bool{}
	for _, in := range insts {
		p := pkgOf[in.ID]
		per[p]++
		s := eval.SplitName(p)
		if parts[s] == nil {
			parts[s] = map[string]bool{}
		}
		parts[s][p] = true
		if len(in.GoldLines) == 0 {
			t.Errorf("%s: no gold lines", in.ID)
		}
	}
	for p, n := range per {
		if n > 3 {
			t.Errorf("package %s gives %d instances, the rule allows 3", p, n)
		}
	}
	if len(parts["held-out"]) == 0 || len(parts["tuning"]) == 0 {
		t.Errorf("parts %v: want packages on both sides", parts)
	}
	if len(per) < 12 || len(insts) < 40 {
		t.Errorf("%d packages, %d instances: want at least 12 and 40", len(per), len(insts))
	}
}

// TestNPMSet measures localization on real fixes of npm packages
// (testdata/npmset: changelog entries as problem statements, gold from
// the diff between the published release and the one before it, see its
// README), overall, on the held-out and tuning parts and per package:
//
//	RELAY_NPMSET=/tmp/npmset go test ./eval -run TestNPMSet -v
//
// The checkouts are fetched with npm pack into RELAY_NPMSET (kept between
// runs). It compares its figures with the golden ones in
// testdata/npmset_stats.txt as TestRealSet does (-update records a run).
func TestNPMSet(t *testing.T) {
	dir := os.Getenv("RELAY_NPMSET")
	if dir == "" {
		t.Skip("set RELAY_NPMSET=DIR to run the npm real-fix evaluation (fetches and indexes every instance's package)")
	}
	ctx := t.Context()
	insts, err := eval.ReadInstances(npmSetPath)
	if err != nil {
		t.Fatal(err)
	}
	pkgOf := npmSetSplit(t)
	if _, err := eval.MaterializeCheckouts(ctx, insts, dir); err != nil {
		t.Fatal(err)
	}
	checkGoldInGraph(t, insts, dir)
	rep, err := eval.Run(ctx, insts, eval.Options{Checkouts: dir, Prepare: prepareCheckout, Baseline: true})
	if err != nil {
		t.Fatal(err)
	}
	parts := eval.SummarizeGroups(rep.Results, func(id string) string { return eval.SplitName(pkgOf[id]) })
	perPkg := eval.SummarizeGroups(rep.Results, func(id string) string { return pkgOf[id] })
	all := eval.Report{Summaries: slices.Concat(rep.Summaries, parts, perPkg)}
	table := all.Table()
	var stats strings.Builder
	for _, r := range rep.Results {
		if r.Method != eval.MethodRelay {
			continue
		}
		fmt.Fprintf(&stats, "%-36s file_rr=%.2f file_all@5=%v func_any@10=%v func_rr=%.2f split=%s top_files=%s\n",
			r.ID, r.FileRR, r.FileAll[5], r.FuncAny[10], r.FuncRR, eval.SplitName(pkgOf[r.ID]), strings.Join(first(r.Pred.Files, 3), ","))
	}
	t.Logf("npm real-fix set (%d instances):\n%s", len(insts), table)
	out := "# npm real-fix localization (go test ./eval -run TestNPMSet with RELAY_NPMSET set)\n# rows: all instances, then held-out/ and tuning/ (eval.HeldOut), then per package\n\n" +
		strings.Join(all.TableRows(), "\n") + "\n\n# relay, per instance\n" + stats.String()
	checkFigures(t, "testdata/npmset_stats.txt", out)
}
