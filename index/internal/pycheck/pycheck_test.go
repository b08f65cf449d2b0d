// Package pycheck checks relay's Python call edges against a reference
// computed by Python itself (pycheck.py: ast + symtable) on the subset of
// calls that reference resolves exactly: plain-name calls of same-module
// functions and self.m() calls of the same class's methods. It is a test
// package only: the reference needs python3.
package pycheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// needPython returns python3's path, skipping (failing under CI) when it
// is missing.
func needPython(t *testing.T) string {
	t.Helper()
	testutil.Need(t, "install python3", "python3")
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

type site struct{ kind, caller, line string }

// score is precision and recall of relay's edges on the reference subset.
type score struct {
	truth, relay, hit int // reference edges, relay edges in the subset, relay edges in the reference
	found             int // reference edges relay has
	misses, wrong     []string
}

func (s score) String() string {
	return fmt.Sprintf("reference edges %d, relay edges in subset %d, precision %.4f, recall %.4f",
		s.truth, s.relay, float64(s.hit)/float64(max(s.relay, 1)), float64(s.found)/float64(max(s.truth, 1)))
}

func check(t *testing.T, python, root string) score {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), python, "pycheck.py", root).Output()
	if err != nil {
		t.Fatalf("pycheck.py: %v", err)
	}
	sites := map[site]bool{}
	truth := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			continue
		}
		sites[site{f[0], f[1], f[3]}] = true
		if f[2] != "" {
			truth[f[1]+" -> "+f[2]+" @"+f[3]] = true
		}
	}
	// Relay's edges at those sites whose target is of the subset's shape.
	files, err := st.Files(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	locs := map[graphdb.NodeID]graphdb.Node{}
	for _, rec := range files {
		ns, err := st.FindSymbols(t.Context(), graphdb.SymbolQuery{File: rec.Path})
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range ns {
			locs[n.ID] = n
		}
	}
	relay := map[string]bool{}
	for _, n := range locs {
		if n.Kind != graphdb.KindFunction && n.Kind != graphdb.KindMember {
			continue
		}
		es, err := st.Neighbors(t.Context(), n.ID, graphdb.EdgeCalls, graphdb.Outbound, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			to, ok := locs[e.To]
			if !ok || to.File != n.File {
				continue
			}
			line := fmt.Sprint(e.Line)
			kind := ""
			switch {
			case to.Kind == graphdb.KindFunction:
				kind = "plain"
			case to.Kind == graphdb.KindMember && n.Kind == graphdb.KindMember &&
				strings.HasPrefix(to.Loc, n.Loc[:strings.LastIndexByte(n.Loc, '.')+1]):
				kind = "self"
			}
			if kind != "" && sites[site{kind, n.Loc, line}] {
				relay[n.Loc+" -> "+to.Loc+" @"+line] = true
			}
		}
	}
	var s score
	s.truth, s.relay = len(truth), len(relay)
	for e := range relay {
		if truth[e] {
			s.hit++
		} else {
			s.wrong = append(s.wrong, e)
		}
	}
	for e := range truth {
		if relay[e] {
			s.found++
		} else {
			s.misses = append(s.misses, e)
		}
	}
	return s
}

// TestFixture: on index/python's basic golden repository relay finds exactly the
// reference edges.
func TestFixture(t *testing.T) {
	python := needPython(t)
	root := testutil.WriteTxtar(t, filepath.Join("..", "..", "python", "testdata", "basic.txtar"))
	s := check(t, python, root)
	if s.truth == 0 || s.hit != s.relay || s.found != s.truth {
		t.Errorf("%s\nwrong: %v\nmissed: %v", s, s.wrong, s.misses)
	}
}

// TestStdlib scores relay on the Python standard library (slow: set
// RELAY_PYCHECK_STDLIB=1). The figures are in BENCHMARKS.md.
func TestStdlib(t *testing.T) {
	if os.Getenv("RELAY_PYCHECK_STDLIB") == "" {
		t.Skip("set RELAY_PYCHECK_STDLIB=1 to score the Python standard library")
	}
	python := needPython(t)
	out, err := exec.Command(python, "-c", `import sysconfig; print(sysconfig.get_paths()["stdlib"])`).Output()
	if err != nil {
		t.Fatal(err)
	}
	s := check(t, python, strings.TrimSpace(string(out)))
	t.Log(s)
	for i, w := range s.wrong {
		if i < 15 {
			t.Logf("wrong: %s", w)
		}
	}
	for i, m := range s.misses {
		if i < 15 {
			t.Logf("missed: %s", m)
		}
	}
}
