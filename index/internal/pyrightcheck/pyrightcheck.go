// Package pyrightcheck compares relay's Python call graph with the call
// hierarchy of Pyright's language server (npm package pyright, installed
// in this directory by scripts/setup.sh), a reference no one here wrote.
// For a deterministic sample of a repository's functions and methods it
// asks Pyright for textDocument/prepareCallHierarchy and
// callHierarchy/outgoingCalls (and incomingCalls for part of the sample)
// and scores relay's callees and callers against them: precision and
// recall on the calls whose target (or caller) is a function or method
// relay has a node for, so calls into the standard library's stubs,
// builtins and nested functions do not count. Neither do calls of dunder
// methods (__init__, __add__, ...): Pyright's call hierarchy reports a
// constructor call as a reference to the class and leaves operators,
// with and for out, while relay records them as calls of the methods. Relay attributes the calls
// of nested functions to the enclosing declaration; the reference does
// the same by adding the outgoing calls of the nested definitions Pyright
// reports inside a sampled function. Functions are compared by location
// name (path:Class.method), so a property's getter and setter, which
// Pyright reports together for one access, count once. incomingCalls
// searches the whole workspace for references and can take minutes on a
// large one: Options.RequestBudget cancels it through Pyright's
// file-based cancellation (lsp.go), and the test can bound the workspace
// to some packages of a source (RELAY_PYRIGHTCHECK_PACKAGES).
package pyrightcheck

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// Options says what to check.
type Options struct {
	Root     string // the indexed repository
	Dir      string // where node_modules/pyright is installed
	Sample   int    // functions whose callees are compared
	Incoming int    // of those, functions whose callers are compared too
	// Budget, when positive, stops sampling once it has passed (Pyright
	// on a large workspace answers slowly); Result.Functions says how
	// many were compared.
	Budget time.Duration
	Log    func(msg string) // progress, one line per function; nil: none
	// RequestBudget, when positive, cancels an incomingCalls request that
	// has not answered within it (Pyright searches every file of the
	// workspace for references); that function's callers are then not
	// compared, on either side, and Result.CallersCancelled counts it.
	RequestBudget time.Duration
	// Typeshed, for a copy of the standard library: Pyright resolves an
	// import of a stdlib module to its bundled typeshed stub, not to the
	// copy, so its call hierarchy cannot name a function in another file
	// of a stubbed module. Then only calls whose other end is in the
	// sampled function's own file, or in a module typeshed has no stub
	// for (test, idlelib, ...), are compared, on both sides.
	Typeshed bool
}

// Score counts one direction's edges.
type Score struct {
	Truth, Relay, Hit int // reference edges, relay edges, relay edges the reference has
	// Functions: compared functions with an edge on either side.
	Functions int
	// ByValue: relay edges the reference lacks whose every call site does
	// not name the callee (a call of an alias, a parameter, a container
	// element or a returned function). Pyright's call hierarchy names the
	// declaration of the called name only, so it cannot report them.
	ByValue       int
	Misses, Wrong []string
}

func (s Score) Precision() float64 { return float64(s.Hit) / float64(max(s.Relay, 1)) }
func (s Score) Recall() float64    { return float64(s.Hit) / float64(max(s.Truth, 1)) }

// PrecisionNamed is the precision over the relay edges with a site that
// names the callee: ByValue edges left out.
func (s Score) PrecisionNamed() float64 {
	return float64(s.Hit) / float64(max(s.Relay-s.ByValue, 1))
}

func (s Score) String() string {
	return fmt.Sprintf("%d functions with edges: reference %d, relay %d, common %d, precision %.4f, recall %.4f; %d relay-only at value sites, precision without them %.4f",
		s.Functions, s.Truth, s.Relay, s.Hit, s.Precision(), s.Recall(), s.ByValue, s.PrecisionNamed())
}

// Result is the comparison of a sample.
type Result struct {
	Functions        int  // sampled functions Pyright prepared a call hierarchy for
	Unprepared       int  // sampled functions it did not
	OutOfTime        bool // Options.Budget ended the sample early
	CallersCancelled int  // functions whose incomingCalls ran past Options.RequestBudget
	Callees, Callers Score
}

// def is a relay function or method located at its name.
type def struct {
	node      graphdb.Node
	line, col int // 0-based position of the name in the def line
}

var defRe = regexp.MustCompile(`^\s*(?:async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)`)

// defs locates relay's functions and methods by the line of their name.
func defs(ctx context.Context, st graphdb.Reader, root string) (map[string]def, []def, error) {
	files, err := st.Files(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("list files: %w", err)
	}
	byKey := map[string]def{}
	var all []def
	for _, f := range files {
		if f.Language != "python" {
			continue
		}
		ns, err := st.FindSymbols(ctx, graphdb.SymbolQuery{File: f.Path})
		if err != nil {
			return nil, nil, fmt.Errorf("symbols of %s: %w", f.Path, err)
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f.Path)))
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", f.Path, err)
		}
		lines := strings.Split(string(src), "\n")
		for _, n := range ns {
			if n.Kind != graphdb.KindFunction && n.Kind != graphdb.KindMember || dunder(n.Name) {
				continue
			}
			for l := n.StartLine - 1; l < n.EndLine && l < len(lines); l++ {
				if m := defRe.FindStringSubmatchIndex(lines[l]); m != nil && lines[l][m[2]:m[3]] == n.Name {
					d := def{node: n, line: l, col: len([]rune(lines[l][:m[2]]))}
					byKey[fmt.Sprintf("%s:%d", f.Path, l)] = d
					all = append(all, d)
					break
				}
			}
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].node.ID < all[j].node.ID })
	return byKey, all, nil
}

type position struct {
	Line      int `json:"line"`
	Character int `json:"character"`
}

type rng struct {
	Start position `json:"start"`
	End   position `json:"end"`
}

type item struct {
	Name           string `json:"name"`
	Kind           int    `json:"kind"`
	URI            string `json:"uri"`
	Range          rng    `json:"range"`
	SelectionRange rng    `json:"selectionRange"`
	Data           any    `json:"data,omitempty"`
}

type outCall struct {
	To item `json:"to"`
}

type inCall struct {
	From item `json:"from"`
}

// Check indexes nothing: st must hold root's index. It starts Pyright on
// root and compares a sample.
func Check(ctx context.Context, st graphdb.Reader, o Options) (Result, error) {
	var res Result
	s, err := newSession(ctx, st, o)
	if err != nil {
		return res, err
	}
	defer s.c.close()
	step := max(1, len(s.all)/max(o.Sample, 1))
	start := time.Now()
	for i := 0; i < len(s.all) && res.Functions < o.Sample; i += step {
		d := s.all[i]
		if err := ctx.Err(); err != nil {
			return res, err
		}
		if o.Budget > 0 && time.Since(start) > o.Budget {
			res.OutOfTime = true
			break
		}
		items, err := s.prepare(d)
		if err != nil {
			return res, err
		}
		if len(items) == 0 {
			res.Unprepared++
			continue // Pyright did not take the file (a syntax error it rejects)
		}
		res.Functions++
		if err := s.compare(ctx, d, items[0], res.Functions <= o.Incoming, &res); err != nil {
			return res, err
		}
		if o.Log != nil {
			o.Log(fmt.Sprintf("%d %s (%s)", res.Functions, d.node.Loc, time.Since(start).Round(time.Second)))
		}
	}
	return res, nil
}

// session is a running Pyright on the root and relay's defs there.
type session struct {
	st      graphdb.Reader
	o       Options
	c       *lsp
	rootURI string
	byKey   map[string]def // by "path:line" of the name
	all     []def          // by node id
	ids     map[graphdb.NodeID]graphdb.Node
	names   func(file string, line int, name string) bool
	stubbed map[string]bool // Options.Typeshed: modules with stubs
}

// newSession reads relay's defs and starts and initializes Pyright.
func newSession(ctx context.Context, st graphdb.Reader, o Options) (*session, error) {
	root, err := filepath.Abs(o.Root)
	if err != nil {
		return nil, err
	}
	s := &session{st: st, o: o, rootURI: fileURI(root), ids: map[graphdb.NodeID]graphdb.Node{}, names: siteNames(root)}
	if s.byKey, s.all, err = defs(ctx, st, root); err != nil {
		return nil, err
	}
	for _, d := range s.all {
		s.ids[d.node.ID] = d.node
	}
	if o.Typeshed {
		if s.stubbed, err = typeshedModules(o.Dir); err != nil {
			return nil, err
		}
	}
	if s.c, err = startLSP(ctx, o.Dir); err != nil {
		return nil, err
	}
	init := map[string]any{
		"processId": nil, "rootUri": s.rootURI,
		"capabilities":     map[string]any{"textDocument": map[string]any{"callHierarchy": map[string]any{}}},
		"workspaceFolders": []map[string]any{{"uri": s.rootURI, "name": "root"}},
	}
	err = s.c.call("initialize", init, nil)
	if err == nil {
		err = s.c.notify("initialized", map[string]any{})
	}
	if err != nil {
		s.c.close()
		return nil, err
	}
	return s, nil
}

// key maps a Pyright item to the relay def at its name, if any.
func (s *session) key(it item) (def, bool) {
	p, ok := strings.CutPrefix(it.URI, s.rootURI+"/")
	if !ok {
		return def{}, false
	}
	p, err := url.PathUnescape(p)
	if err != nil {
		return def{}, false
	}
	d, ok := s.byKey[fmt.Sprintf("%s:%d", p, it.SelectionRange.Start.Line)]
	return d, ok
}

// prepare asks Pyright for the call hierarchy item of d; none when
// Pyright does not take the file.
func (s *session) prepare(d def) ([]item, error) {
	uri := s.rootURI + "/" + (&url.URL{Path: d.node.File}).EscapedPath()
	// Pyright answers nothing until it has read the workspace: retry.
	var items []item
	for try := 0; try < 4 && len(items) == 0; try++ {
		if try > 0 {
			time.Sleep(time.Duration(try) * 500 * time.Millisecond)
		}
		err := s.c.call("textDocument/prepareCallHierarchy", map[string]any{
			"textDocument": map[string]any{"uri": uri},
			"position":     position{d.line, d.col},
		}, &items)
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

// compare scores d's callees, and its callers when incoming, into res.
func (s *session) compare(ctx context.Context, d def, it item, incoming bool, res *Result) error {
	truth, err := outgoing(s.c, it, s.key)
	if err != nil {
		return err
	}
	relay, err := relayEdges(ctx, s.st, d.node, graphdb.Outbound, s.ids, s.names)
	if err != nil {
		return err
	}
	res.Callees.add(d.node.Loc, keep(truth, d.node.File, s.stubbed), keep(relay, d.node.File, s.stubbed), " -> ")
	if !incoming {
		return nil
	}
	var ins []inCall
	err = s.c.callWithin("callHierarchy/incomingCalls", map[string]any{"item": it}, &ins, s.o.RequestBudget)
	if errors.Is(err, errCancelled) {
		res.CallersCancelled++
		return nil
	}
	if err != nil {
		return err
	}
	callers := map[string]bool{}
	for _, in := range ins {
		if f, ok := enclosing(in.From, s.key, s.byKey); ok {
			callers[f.node.Loc] = true
		}
	}
	relayIn, err := relayEdges(ctx, s.st, d.node, graphdb.Inbound, s.ids, s.names)
	if err != nil {
		return err
	}
	res.Callers.add(d.node.Loc, keep(callers, d.node.File, s.stubbed), keep(relayIn, d.node.File, s.stubbed), " <- ")
	return nil
}

// outgoing is Pyright's callees of it that are relay defs, with the calls
// of the nested definitions inside it added.
func outgoing(c *lsp, it item, key func(item) (def, bool)) (map[string]bool, error) {
	out := map[string]bool{}
	queue, seen := []item{it}, 0
	for len(queue) > 0 && seen < 32 {
		cur := queue[0]
		queue, seen = queue[1:], seen+1
		var calls []outCall
		if err := c.call("callHierarchy/outgoingCalls", map[string]any{"item": cur}, &calls); err != nil {
			return nil, err
		}
		for _, oc := range calls {
			if d, ok := key(oc.To); ok {
				out[d.node.Loc] = true
				continue
			}
			if oc.To.URI == it.URI && inside(oc.To.SelectionRange.Start.Line, it.Range) {
				queue = append(queue, oc.To) // a nested function: its calls are it's
			}
		}
	}
	return out, nil
}

func inside(line int, r rng) bool { return line > r.Start.Line && line <= r.End.Line }

// enclosing maps a caller item to the relay def whose calls include it: the
// def itself, or the def enclosing a nested function.
func enclosing(from item, key func(item) (def, bool), byKey map[string]def) (def, bool) {
	if d, ok := key(from); ok {
		return d, true
	}
	var best def
	found := false
	for _, d := range byKey {
		if !strings.HasSuffix(from.URI, "/"+d.node.File) {
			continue
		}
		if l := from.SelectionRange.Start.Line; l > d.line && l < d.node.EndLine && (!found || d.line > best.line) {
			best, found = d, true
		}
	}
	return best, found
}

// relayEdges is relay's calls of (or to) n whose other end is a def, by
// the other end's location name: true when a call site names the callee
// (names reports whether a site line calls a name), false when every site
// calls it through a value.
func relayEdges(ctx context.Context, st graphdb.Reader, n graphdb.Node, dir graphdb.Direction, ids map[graphdb.NodeID]graphdb.Node, names func(file string, line int, name string) bool) (map[string]bool, error) {
	es, err := st.Neighbors(ctx, n.ID, graphdb.EdgeCalls, dir, 0)
	if err != nil {
		return nil, fmt.Errorf("calls of %s: %w", n.ID, err)
	}
	out := map[string]bool{}
	for _, e := range es {
		other, callee := e.To, ids[e.To]
		if dir == graphdb.Inbound {
			other, callee = e.From, n
		}
		if o, ok := ids[other]; ok {
			out[o.Loc] = out[o.Loc] || names(e.File, e.Line, callee.Name)
		}
	}
	return out, nil
}

// siteNames returns a test of whether line (1-based) of a file under
// root calls name by name ("name(", an attribute ".name", which a property
// read or a method call is, a decorator "@…name"); files are read once.
func siteNames(root string) func(file string, line int, name string) bool {
	files := map[string][]string{}
	res := map[string]*regexp.Regexp{}
	return func(file string, line int, name string) bool {
		lines, ok := files[file]
		if !ok {
			data, _ := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
			lines = strings.Split(string(data), "\n")
			files[file] = lines
		}
		if name == "" || line < 1 || line > len(lines) {
			return true // unknown: count it as named
		}
		re, ok := res[name]
		if !ok {
			q := regexp.QuoteMeta(name)
			re = regexp.MustCompile(`(^|[^A-Za-z0-9_])` + q + `\s*(\(|$)|\.` + q + `\b|@.*` + q)
			res[name] = re
		}
		return re.MatchString(lines[line-1])
	}
}

func (s *Score) add(from string, truth, relay map[string]bool, arrow string) {
	if len(truth)+len(relay) > 0 {
		s.Functions++
	}
	s.Truth += len(truth)
	s.Relay += len(relay)
	for loc, named := range relay {
		switch {
		case truth[loc]:
			s.Hit++
		case !named:
			s.ByValue++
			s.Wrong = append(s.Wrong, from+arrow+loc+" [value site]")
		default:
			s.Wrong = append(s.Wrong, from+arrow+loc)
		}
	}
	for loc := range truth {
		if _, ok := relay[loc]; !ok {
			s.Misses = append(s.Misses, from+arrow+loc)
		}
	}
}

func fileURI(p string) string {
	return "file://" + (&url.URL{Path: filepath.ToSlash(p)}).EscapedPath()
}

// dunder reports whether name is a special method (__x__).
func dunder(name string) bool {
	return len(name) > 4 && strings.HasPrefix(name, "__") && strings.HasSuffix(name, "__")
}

// typeshedModules lists the top-level modules Pyright's bundled typeshed
// has stdlib stubs for.
func typeshedModules(dir string) (map[string]bool, error) {
	es, err := os.ReadDir(filepath.Join(dir, "node_modules", "pyright", "dist", "typeshed-fallback", "stdlib"))
	if err != nil {
		return nil, fmt.Errorf("typeshed stubs: %w", err)
	}
	out := map[string]bool{}
	for _, e := range es {
		out[strings.TrimSuffix(e.Name(), ".pyi")] = true
	}
	return out, nil
}

// keep drops from m (location names "path:Name") the functions in another
// file than file whose top-level module is stubbed; m itself when stubbed
// is nil.
func keep[V any](m map[string]V, file string, stubbed map[string]bool) map[string]V {
	if stubbed == nil {
		return m
	}
	out := map[string]V{}
	for loc, v := range m {
		f, _, _ := strings.Cut(loc, ":")
		top, _, _ := strings.Cut(strings.TrimSuffix(f, ".py"), "/")
		if f == file || !stubbed[top] {
			out[loc] = v
		}
	}
	return out
}
