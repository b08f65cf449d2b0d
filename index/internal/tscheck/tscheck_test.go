//go:build cgo

// Package tscheck checks relay's TypeScript call edges against the
// TypeScript compiler's own call hierarchy (callhier.js: the language
// service's provideCallHierarchyOutgoingCalls) on rxjs 7.8.1, which ships
// its .ts sources on npm. It is a test package only: the reference needs
// Node.js and the npm packages of package.json (scripts/setup.sh installs
// them).
//
// The comparison is by caller/callee pair: for every top-level function,
// function bound to a top-level name and method, constructor or
// function-valued field of a top-level class, the distinct in-repository
// callees (declaration files excluded) of both sides. A call of a class
// (new C(), super()) is the class for the compiler and the constructor
// for relay when the class declares one: both count as the class. The
// compiler gives the calls inside a nested function (a callback) to that
// function, relay to the enclosing declaration: relay's calls on lines
// inside nested functions are left out, unless the compiler reports a
// call of the declaration itself on that line.
//
// The call hierarchy has no item for a function assigned to a property
// (Route.prototype.dispatch = function …) and resolves no call of one;
// TestAssignedMethods measures those with defs.js instead: the language
// service's go-to-definition of every call in each declaration, on
// express 4.21.2 and three other CommonJS packages written that way.
package tscheck

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/embedded"
	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/internal/testutil"
)

// need returns node's path, skipping (failing under CI) when Node.js or the
// npm packages are missing.
func need(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		if _, err = os.Stat(filepath.Join("node_modules", "typescript", "package.json")); err == nil {
			_, err = os.Stat(filepath.Join("node_modules", "rxjs", "src", "index.ts"))
		}
		if err == nil {
			_, err = os.Stat(filepath.Join("node_modules", "lodash", "package.json"))
		}
		if err == nil {
			_, err = os.Stat(filepath.Join("node_modules", "dayjs", "esm", "index.js"))
		}
		for _, p := range []string{"express/lib", "commander/index.js", "send/index.js", "body-parser/lib"} {
			if err == nil {
				_, err = os.Stat(filepath.Join("node_modules", filepath.FromSlash(p)))
			}
		}
	}
	if err != nil {
		testutil.Missing(t, fmt.Sprintf("Node.js or the npm packages of index/internal/tscheck are missing (%v)", err),
			"run scripts/setup.sh, or npm ci in index/internal/tscheck after package.json changed")
	}
	return node
}

// copyTree copies src into dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		out := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(out, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

type score struct {
	callers, truth, relay, hit int
	blind                      int    // relay edges from or to a declaration the compiler cannot see, left out
	blindWhy                   string // what blind counts, when not var/let-bound functions
	misses, wrong              []string
}

func (s score) precision() float64 { return float64(s.hit) / float64(max(s.relay, 1)) }
func (s score) recall() float64    { return float64(s.hit) / float64(max(s.truth, 1)) }

func (s score) String() string {
	why := s.blindWhy
	if why == "" {
		why = "var/let-bound functions the compiler cannot see"
	}
	return fmt.Sprintf("callers %d, compiler edges %d, relay edges %d (%d more left out: %s), both %d, precision %.4f, recall %.4f",
		s.callers, s.truth, s.relay, s.blind, why, s.hit, s.precision(), s.recall())
}

// TestRxJS indexes rxjs's sources and requires precision >= 0.95 and
// recall >= 0.85 against the compiler's call hierarchy.
func TestRxJS(t *testing.T) {
	node := need(t)
	root := t.TempDir()
	pkg := filepath.Join("node_modules", "rxjs")
	copyTree(t, filepath.Join(pkg, "src"), filepath.Join(root, "src"))
	for _, f := range []string{"tsconfig.json", "package.json"} {
		data, err := os.ReadFile(filepath.Join(pkg, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check(t, "rxjs 7.8.1", compare(t, node, root), 500)
}

// check logs a score with its first misses and extra edges and requires
// precision >= 0.95 and recall >= 0.85 on at least minTruth reference
// edges.
func check(t *testing.T, name string, s score, minTruth int) {
	t.Helper()
	t.Logf("%s: %s", name, s)
	for i, m := range s.misses {
		if i < 15 {
			t.Logf("missed: %s", m)
		}
	}
	for i, w := range s.wrong {
		if i < 15 {
			t.Logf("not in the compiler's: %s", w)
		}
	}
	if s.truth < minTruth {
		t.Fatalf("only %d reference edges: the corpus is too small to measure", s.truth)
	}
	if s.precision() < 0.95 || s.recall() < 0.85 {
		t.Errorf("precision %.4f recall %.4f, want >= 0.95 and >= 0.85", s.precision(), s.recall())
	}
}

// TestLodash indexes lodash 4.17.21 (CommonJS JavaScript: one function
// per file, require and module.exports) and requires the same precision
// and recall against the compiler's call hierarchy with allowJs.
func TestLodash(t *testing.T) {
	node := need(t)
	root := t.TempDir()
	copyTree(t, filepath.Join("node_modules", "lodash"), root)
	check(t, "lodash 4.17.21", compare(t, node, root, "--js"), 300)
}

// TestDayjs indexes dayjs 1.11.23's ES-module build (esm/: the library,
// its plugins and locales as Babel emits them) and requires the same
// precision and recall against the compiler with allowJs. Babel binds
// nearly every function with var, which the compiler's call hierarchy
// does not see (callhier.js "blind"), so few edges are comparable; classes
// become functions with prototype methods, which neither side counts as
// callers. TestDayjsSource measures the sources.
func TestDayjs(t *testing.T) {
	node := need(t)
	root := t.TempDir()
	copyTree(t, filepath.Join("node_modules", "dayjs", "esm"), root)
	check(t, "dayjs 1.11.23 esm", compare(t, node, root, "--js"), 10)
}

// TestDayjsSource measures dayjs's own sources (src/ of a checkout of
// github.com/iamkun/dayjs, ES modules with classes and const-bound
// functions, which the npm package does not ship) when
// RELAY_TSCHECK_DAYJS names that checkout.
func TestDayjsSource(t *testing.T) {
	dir := os.Getenv("RELAY_TSCHECK_DAYJS")
	if dir == "" {
		t.Skip("set RELAY_TSCHECK_DAYJS to a checkout of github.com/iamkun/dayjs to measure its sources")
	}
	node := need(t)
	root := t.TempDir()
	copyTree(t, filepath.Join(dir, "src"), filepath.Join(root, "src"))
	check(t, "dayjs src", compare(t, node, root, "--js"), 50)
}

func compare(t *testing.T, node, root string, args ...string) score {
	t.Helper()
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := index.Run(t.Context(), st, index.Options{Root: root}); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd := exec.CommandContext(t.Context(), node, append([]string{"callhier.js", root}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("callhier.js: %v\n%s", err, stderr.String())
	}
	r := parseReference(string(out))
	truth := r.truth
	ours, blind := relayEdges(t, st, r)
	callers := r.callers
	return scored(score{callers: len(callers), truth: len(truth), relay: len(ours), blind: blind}, truth, ours)
}

// scored fills s's hits, misses and wrong edges from the reference's
// edges (truth) and relay's (ours).
func scored(s score, truth, ours map[string]bool) score {
	for e := range ours {
		if truth[e] {
			s.hit++
		} else {
			s.wrong = append(s.wrong, e)
		}
	}
	for e := range truth {
		if !ours[e] {
			s.misses = append(s.misses, e)
		}
	}
	sort.Strings(s.misses)
	sort.Strings(s.wrong)
	return s
}

// reference is what callhier.js printed.
type reference struct {
	callers map[string]bool
	blind   map[string]bool         // declarations the call hierarchy has no item for
	truth   map[string]bool         // "caller -> callee" in the repository
	nested  map[string][][2]int     // caller → line ranges of nested functions
	direct  map[string]map[int]bool // caller → lines holding its own calls
}

func parseReference(out string) reference {
	r := reference{callers: map[string]bool{}, blind: map[string]bool{}, truth: map[string]bool{}, nested: map[string][][2]int{}, direct: map[string]map[int]bool{}}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if c, ok := strings.CutPrefix(l, "caller "); ok {
			r.callers[c] = true
			continue
		}
		if c, ok := strings.CutPrefix(l, "blind "); ok {
			r.blind[c] = true
			continue
		}
		if n, ok := strings.CutPrefix(l, "nested "); ok {
			var a, b int
			f := strings.Split(n, "\t")
			if len(f) == 3 {
				fmt.Sscan(f[1], &a)
				fmt.Sscan(f[2], &b)
				r.nested[f[0]] = append(r.nested[f[0]], [2]int{a, b})
			}
			continue
		}
		f := strings.Split(l, "\t")
		if len(f) != 4 {
			continue
		}
		if r.direct[f[0]] == nil {
			r.direct[f[0]] = map[int]bool{}
		}
		for _, ln := range strings.Split(f[3], ",") {
			var n int
			fmt.Sscan(ln, &n)
			r.direct[f[0]][n] = true
		}
		if f[1] != "" {
			r.truth[f[0]+" -> "+f[1]] = true
		}
	}
	return r
}

// comparable reports whether a relay call of caller at line is one the
// compiler gives to caller: not inside a nested function, unless caller
// itself calls something on that line.
func (r reference) comparable(caller string, line int) bool {
	if r.direct[caller][line] {
		return true
	}
	for _, rg := range r.nested[caller] {
		if line >= rg[0] && line <= rg[1] {
			return false
		}
	}
	return true
}

// relayEdges returns relay's call edges from the given callers, as
// "caller -> callee" by location name, constructors as their class, and
// the number of edges left out because their callee is blind to the
// compiler (a function bound with var or let).
func relayEdges(t *testing.T, st graphdb.Store, r reference) (map[string]bool, int) {
	t.Helper()
	ctx := t.Context()
	locs, from := locations(t, st, r.callers)
	out, blind := map[string]bool{}, map[string]bool{}
	for _, n := range from {
		es, err := st.Neighbors(ctx, n.ID, graphdb.EdgeCalls, graphdb.Outbound, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range es {
			to, ok := locs[e.To]
			switch {
			case !ok || !r.comparable(n.Loc, e.Line):
			case r.blind[to]:
				blind[n.Loc+" -> "+to] = true
			default:
				out[n.Loc+" -> "+to] = true
			}
		}
	}
	return out, len(blind)
}

// TestZodSyntax indexes zod 4 as npm publishes it (npm pack zod; tar -xzf
// zod-*.tgz; RELAY_TSCHECK_ZOD=…/package): its schemas use variance
// annotations on type parameters (interface ZodType<out Output, …>) and its
// locale declaration files bodiless anonymous default functions, which the
// grammar lacks (126 syntax errors before the frontend rewrote them,
// BENCHMARKS.md); none may be left. Its v3/types.js (ESM) and v3/types.cjs
// (CommonJS) siblings must be named by extension rank: the ESM file keeps
// v3/types.
func TestZodSyntax(t *testing.T) {
	dir := os.Getenv("RELAY_TSCHECK_ZOD")
	if dir == "" {
		t.Skip("set RELAY_TSCHECK_ZOD to an unpacked zod npm package (npm pack zod) to check it parses")
	}
	st, err := embedded.Open(filepath.Join(t.TempDir(), "graph"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sum, err := index.Run(t.Context(), st, index.Options{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	var syntax []string
	for _, d := range sum.Errors {
		if strings.Contains(d.Msg, "syntax error") {
			syntax = append(syntax, d.Pos+": "+d.Msg)
		}
	}
	if len(syntax) > 0 {
		t.Errorf("%d syntax errors, want none:\n%s", len(syntax), strings.Join(syntax, "\n"))
	}
	for id, file := range map[graphdb.NodeID]string{"ts:v3/types.ZodType": "v3/types.js", "ts:v3/types.cjs.ZodType": "v3/types.cjs"} {
		n, err := st.Node(t.Context(), id)
		if err != nil {
			t.Errorf("node %s: %v", id, err)
			continue
		}
		if n.File != file {
			t.Errorf("node %s is in %s, want %s", id, n.File, file)
		}
	}
}
