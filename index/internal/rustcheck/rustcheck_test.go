//go:build cgo

package rustcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
)

// need returns Debian's rustc and cargo, skipping (failing under CI)
// when they are missing.
func need(t *testing.T) Tools {
	t.Helper()
	tools, err := FindTools()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Debian's rustc and cargo are required under CI (run scripts/setup.sh): %v", err)
		}
		t.Skipf("no rustc with -Zsave-analysis: %v", err)
	}
	return tools
}

// check indexes root and compares it with the save-analysis file.
func check(t *testing.T, root, analysisFile string) Result {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d files in %s", sum.Files, time.Since(start).Round(time.Millisecond))
	r, err := Check(t.Context(), st, root, analysisFile)
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range r.Misses {
		if i < 60 {
			t.Logf("missed: %s", m)
		}
	}
	for i, w := range r.Wrong {
		if i < 60 {
			t.Logf("not in rustc's: %s", w)
		}
	}
	for i, u := range r.Unmapped {
		if i < 10 {
			t.Logf("unmapped: %s", u)
		}
	}
	t.Logf("%s", r.Score)
	if name := os.Getenv("RELAY_RUSTCHECK_LOG"); name != "" { // every difference, to study
		text := "missed: " + strings.Join(r.Misses, "\nmissed: ") + "\nwrong: " + strings.Join(r.Wrong, "\nwrong: ") + "\nunmapped: " + strings.Join(r.Unmapped, "\nunmapped: ") + "\n"
		if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// TestFixture compiles testdata/fixture with rustc and requires relay's
// calls to be rustc's: every call the fixture makes is evident.
func TestFixture(t *testing.T) {
	tools := need(t)
	root, err := filepath.Abs(filepath.Join("testdata", "fixture"))
	if err != nil {
		t.Fatal(err)
	}
	a, err := AnalyzeFile(t.Context(), tools, root, "src/lib.rs", "fixture", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	r := check(t, root, a)
	if r.Truth < 20 {
		t.Fatalf("rustc recorded %d calls in the fixture; the analysis was not read", r.Truth)
	}
	if r.Hit != r.Truth || r.Right != r.Relay {
		t.Errorf("fixture: %s; want every call matched", r.Score)
	}
}

// TestRegistryCrate builds tokio from Debian's Cargo registry
// (librust-tokio-dev, scripts/setup.sh) with save-analysis and requires
// precision >= 0.95 and recall >= 0.80 of relay's call edges against it.
// RELAY_RUSTCHECK_CRATE names another registry crate directory; with
// RELAY_RUSTCHECK_ANALYSIS too, the crate directory is a copy built
// before and that is its save-analysis file (no build).
func TestRegistryCrate(t *testing.T) {
	tools := need(t)
	if testing.Short() {
		t.Skip("builds a crate of some 300 files: minutes")
	}
	crate := os.Getenv("RELAY_RUSTCHECK_CRATE")
	features := []string{"full"}
	if crate == "" {
		m, _ := filepath.Glob(filepath.Join(Registry, "tokio-1.*"))
		if len(m) == 0 {
			if os.Getenv("CI") == "true" {
				t.Fatalf("no tokio in %s under CI (scripts/setup.sh installs librust-tokio-dev)", Registry)
			}
			t.Skipf("no tokio in %s (apt-get install librust-tokio-dev)", Registry)
		}
		crate = m[0]
	} else {
		features = nil
	}
	root, a := crate, os.Getenv("RELAY_RUSTCHECK_ANALYSIS") // a crate built before: its copy and its save-analysis file
	if a == "" {
		var err error
		if root, a, err = AnalyzeCrate(t.Context(), tools, crate, t.TempDir(), features); err != nil {
			t.Fatal(err)
		}
	}
	r := check(t, root, a)
	if r.Precision() < 0.95 || r.Recall() < 0.80 {
		t.Errorf("%s: %s; want precision >= 0.95, recall >= 0.80", filepath.Base(crate), r.Score)
	}
}
