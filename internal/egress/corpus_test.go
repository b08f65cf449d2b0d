package egress_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/egress/egresstest"
)

var corpus = flag.String("corpus", "", "directory whose non-test .go files TestScanCorpus scans (e.g. $(go env GOROOT)/src)")

// TestScannerLabelledSet measures the filter on the labelled set: every
// canary of the canary repository must be found (recall), no look-alike
// touched (precision). The figures go to BENCHMARKS.md.
func TestScannerLabelledSet(t *testing.T) {
	f, err := egress.New(egress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var redacted strings.Builder
	for _, data := range egresstest.Files() {
		redacted.WriteString(f.String(data))
	}
	tp, fn := 0, 0
	for _, c := range egresstest.Canaries() {
		if strings.Contains(redacted.String(), c.Value) {
			fn++
			t.Errorf("missed %s", c.Kind)
		} else {
			tp++
		}
	}
	fp := 0
	for _, v := range egresstest.Lookalikes() {
		if out := f.String("value: " + v + "\n"); out != "value: "+v+"\n" {
			fp++
			t.Errorf("look-alike %q redacted: %q", v, out)
		}
	}
	_, total := f.Stats()
	t.Logf("canaries %d: found %d, missed %d (recall %.2f); look-alikes %d: redacted %d; values redacted in all %d",
		len(egresstest.Canaries()), tp, fn, float64(tp)/float64(tp+fn), len(egresstest.Lookalikes()), fp, total)
}

// TestScanCorpus scans a real corpus (-corpus DIR; skipped without it) and
// logs what the filter would redact there: on Go's own sources every
// finding is a false positive. go test ./internal/egress -run TestScanCorpus -v -corpus $(go env GOROOT)/src
func TestScanCorpus(t *testing.T) {
	if *corpus == "" {
		t.Skip("no -corpus given")
	}
	f, err := egress.New(egress.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var files, flagged int
	var size int64
	start := time.Now()
	examples := map[string][]string{}
	err = filepath.WalkDir(*corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "/testdata/") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files++
		size += int64(len(data))
		res := f.Redact(string(data))
		if res.N() > 0 {
			flagged++
			rel, _ := filepath.Rel(*corpus, p)
			for rule := range res.Counts {
				if len(examples[rule]) < 3 {
					examples[rule] = append(examples[rule], rel)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	per, total := f.Stats()
	rules := make([]string, 0, len(per))
	for r := range per {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool { return per[rules[i]] > per[rules[j]] })
	t.Logf("%d files, %.1f MB in %s: %d values redacted in %d files", files, float64(size)/(1<<20), time.Since(start).Round(time.Second), total, flagged)
	for _, r := range rules {
		t.Logf("  %-28s %4d  e.g. %s", r, per[r], strings.Join(examples[r], ", "))
	}
}
