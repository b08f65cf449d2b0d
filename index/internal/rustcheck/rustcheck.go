// Package rustcheck checks relay's Rust call edges against the compiler:
// rustc's save-analysis (RUSTC_BOOTSTRAP=1 rustc -Zsave-analysis, in the
// rustc Debian packages, 1.63) records, for every path and method call it
// resolved, a reference from the call's name to the function's
// definition. It owns the comparison and the build that writes the
// analysis (build.go); its tests run it on a fixture crate and on a crate
// of Debian's local Cargo registry (/usr/share/cargo/registry).
//
// DESIGN: the comparison is by call site, as index/internal/javacheck's
// is: a truth entry is (file, line of the callee's name, callee), and
// relay's calls edges carry the same site. rustc's references are kept
// when they are calls (the text after the name is "(" or a turbofish
// followed by "(": a function passed as a value is a reference, not a
// call) and their definition is in the crate. Definitions map to relay's
// nodes by file, name and line (rustc's definition span is the name, which
// lies within relay's node's lines). A method call that goes through a
// trait is recorded by rustc against the trait's method declaration, since
// the implementation is chosen after type checking; relay points such a
// call at the implementation when the receiver's type is evident, so an
// edge to any method rustc lists as an implementation of that trait
// method (same trait, same name) counts as a hit. Only code rustc
// compiled is compared: relay's edges count when the function they come
// from has a rustc definition (code behind a cfg that was off has none),
// and only in the files rustc read. Definitions relay has no node for
// (functions made by macro_rules! expansions, closures) are counted as
// unmapped and left out.
package rustcheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/relayhq/relay/graphdb"
)

// Score counts call sites.
type Score struct {
	Truth, Relay, Hit int
	Right             int // relay's edges the truth has
	Unmapped          int // calls whose callee relay has no node for
	// External: relay's edges to the crate's implementation of a trait of
	// another crate (Debug::fmt, Deref::deref, From::from) where rustc
	// records the call against that trait's method, outside the crate:
	// neither right nor wrong, so left out
	External int
}

// Precision is the share of relay's edges that the compiler's resolution
// has; Recall the share of the compiler's calls that relay has.
func (s Score) Precision() float64 { return float64(s.Right) / float64(max(s.Relay, 1)) }
func (s Score) Recall() float64    { return float64(s.Hit) / float64(max(s.Truth, 1)) }

func (s Score) String() string {
	return fmt.Sprintf("truth %d relay %d hit %d right %d: precision %.4f recall %.4f (left out: %d unmapped, %d to implementations of other crates' traits)",
		s.Truth, s.Relay, s.Hit, s.Right, s.Precision(), s.Recall(), s.Unmapped, s.External)
}

// Result is the score with the differences.
type Result struct {
	Score
	Misses   []string // in the truth, not in relay
	Wrong    []string // in relay, not in the truth
	Unmapped []string
}

// Store is what Check reads.
type Store interface {
	graphdb.Scanner
}

// analysis is the part of a save-analysis file the check reads.
type analysis struct {
	Defs []def `json:"defs"`
	Refs []ref `json:"refs"`
}

type defID struct {
	Krate uint32 `json:"krate"`
	Index uint32 `json:"index"`
}

// span is a place in a file; its byte offsets are the compiler's across
// all files, so the line and (1-based, in characters) columns place it.
type span struct {
	File     string `json:"file_name"`
	Line     int    `json:"line_start"`
	LineEnd  int    `json:"line_end"`
	ColStart int    `json:"column_start"`
	ColEnd   int    `json:"column_end"`
}

type def struct {
	Kind     string `json:"kind"`
	ID       defID  `json:"id"`
	Span     span   `json:"span"`
	Name     string `json:"name"`
	Qualname string `json:"qualname"`
	Parent   *defID `json:"parent"`
}

type ref struct {
	Kind  string `json:"kind"`
	Span  span   `json:"span"`
	RefID defID  `json:"ref_id"`
}

// readAnalysis reads a save-analysis JSON file.
func readAnalysis(name string) (*analysis, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("read save-analysis: %w", err)
	}
	var a analysis
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, fmt.Errorf("decode save-analysis %s: %w", name, err)
	}
	return &a, nil
}

// graph is relay's Rust graph as the check needs it.
type graph struct {
	funcs map[string][]graphdb.Node // functions and methods by file
	calls []call
}

type call struct {
	from graphdb.NodeID
	file string
	line int
	to   graphdb.NodeID
}

func load(ctx context.Context, st Store) (*graph, error) {
	g := &graph{funcs: map[string][]graphdb.Node{}}
	err := st.ScanNodes(ctx, func(_ string, n graphdb.Node) error {
		if n.Language == "rust" && (n.Kind == graphdb.KindFunction && n.SubKind == "function" || n.Kind == graphdb.KindMember && n.SubKind == "method") {
			g.funcs[n.File] = append(g.funcs[n.File], n)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan nodes: %w", err)
	}
	err = st.ScanEdges(ctx, func(_ string, e graphdb.Edge) error {
		if e.Kind == graphdb.EdgeCalls {
			g.calls = append(g.calls, call{e.From, e.File, e.Line, e.To})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("scan edges: %w", err)
	}
	return g, nil
}

// nodeAt is the innermost function or method of file named name (any
// name when "") whose lines hold line.
func (g *graph) nodeAt(file, name string, line int) (graphdb.Node, bool) {
	var best graphdb.Node
	found := false
	for _, n := range g.funcs[file] {
		if (name == "" || n.Name == name) && n.StartLine <= line && line <= n.EndLine {
			if !found || n.EndLine-n.StartLine < best.EndLine-best.StartLine {
				best, found = n, true
			}
		}
	}
	return best, found
}

// site is where a call is.
type site struct {
	file string
	line int
}

// Check compares relay's calls edges in st (the crate indexed at root)
// with the save-analysis file of the crate.
func Check(ctx context.Context, st Store, root, analysisFile string) (Result, error) {
	g, err := load(ctx, st)
	if err != nil {
		return Result{}, err
	}
	a, err := readAnalysis(analysisFile)
	if err != nil {
		return Result{}, err
	}
	m := mapDefs(g, a)
	var r Result
	t := m.truth(a, &sources{root: root, files: map[string][]byte{}}, &r)
	ours := map[site]map[graphdb.NodeID]bool{}
	for _, c := range g.calls {
		if !m.compiled[c.from] || !t.files[c.file] {
			continue
		}
		s := site{c.file, c.line}
		if ours[s] == nil {
			ours[s] = map[graphdb.NodeID]bool{}
		}
		if ours[s][c.to] {
			continue
		}
		ours[s][c.to] = true
		if name, ok := m.extImpl[c.to]; ok && !t.accept[s][c.to] && t.extCalls[s][name] {
			r.External++
			continue
		}
		r.Relay++
		if t.accept[s][c.to] {
			r.Right++
		} else {
			r.Wrong = append(r.Wrong, fmt.Sprintf("%s:%d -> %s", s.file, s.line, c.to))
		}
	}
	for s, tos := range t.calls {
		for to, ok := range tos {
			r.Truth++
			hit := false
			for id := range ok {
				hit = hit || ours[s][id]
			}
			if hit {
				r.Hit++
			} else {
				r.Misses = append(r.Misses, fmt.Sprintf("%s:%d -> %s", s.file, s.line, to))
			}
		}
	}
	sort.Strings(r.Misses)
	sort.Strings(r.Wrong)
	sort.Strings(r.Unmapped)
	return r, nil
}

// defMap links rustc's definitions to relay's nodes.
type defMap struct {
	defs     map[defID]def
	impls    map[string][]defID // "<trait index>/<name>": the methods implementing that trait method
	node     map[defID]graphdb.NodeID
	compiled map[graphdb.NodeID]bool   // relay's functions rustc compiled
	extImpl  map[graphdb.NodeID]string // implementations of other crates' trait methods: their names
}

func mapDefs(g *graph, a *analysis) *defMap {
	m := &defMap{defs: map[defID]def{}, impls: map[string][]defID{}, node: map[defID]graphdb.NodeID{},
		compiled: map[graphdb.NodeID]bool{}, extImpl: map[graphdb.NodeID]string{}}
	for _, d := range a.Defs {
		m.defs[d.ID] = d
		if d.Kind == "Method" && d.Parent != nil && strings.HasPrefix(d.Qualname, "<") {
			k := fmt.Sprintf("%d/%s", d.Parent.Index, d.Name)
			m.impls[k] = append(m.impls[k], d.ID)
		}
		if d.ID.Krate != 0 || d.Kind != "Function" && d.Kind != "Method" {
			continue
		}
		if n, ok := g.nodeAt(d.Span.File, d.Name, d.Span.Line); ok {
			m.node[d.ID] = n.ID
			m.compiled[n.ID] = true
			if d.Parent != nil && d.Parent.Krate != 0 {
				m.extImpl[n.ID] = d.Name
			}
		}
	}
	return m
}

// truthSet is rustc's calls by site.
type truthSet struct {
	calls    map[site]map[graphdb.NodeID]map[graphdb.NodeID]bool // site → callee → the targets accepted for it
	accept   map[site]map[graphdb.NodeID]bool                    // site → every target accepted there
	extCalls map[site]map[string]bool                            // calls of other crates' functions: the names called
	files    map[string]bool                                     // the files rustc read
}

// truth collects rustc's calls (see the DESIGN note), counting the
// unmapped ones in r.
func (m *defMap) truth(a *analysis, src *sources, r *Result) *truthSet {
	t := &truthSet{calls: map[site]map[graphdb.NodeID]map[graphdb.NodeID]bool{}, accept: map[site]map[graphdb.NodeID]bool{},
		extCalls: map[site]map[string]bool{}, files: map[string]bool{}}
	for _, rf := range a.Refs {
		t.files[rf.Span.File] = true
		if rf.Kind != "Function" || !src.isCall(rf.Span) {
			continue
		}
		s := site{rf.Span.File, rf.Span.Line}
		if rf.RefID.Krate != 0 {
			if t.extCalls[s] == nil {
				t.extCalls[s] = map[string]bool{}
			}
			t.extCalls[s][src.text(rf.Span)] = true
			continue
		}
		d, ok := m.defs[rf.RefID]
		if !ok {
			continue
		}
		to, ok := m.node[d.ID]
		if !ok {
			r.Score.Unmapped++
			r.Unmapped = append(r.Unmapped, fmt.Sprintf("%s:%d %s (%s)", s.file, s.line, d.Qualname, d.Span.File))
			continue
		}
		if t.calls[s] == nil {
			t.calls[s], t.accept[s] = map[graphdb.NodeID]map[graphdb.NodeID]bool{}, map[graphdb.NodeID]bool{}
		}
		if t.calls[s][to] != nil {
			continue
		}
		ok2 := map[graphdb.NodeID]bool{to: true}
		if d.Kind == "Method" && d.Parent != nil && !strings.HasPrefix(d.Qualname, "<") {
			for _, im := range m.impls[fmt.Sprintf("%d/%s", d.Parent.Index, d.Name)] {
				if id, ok := m.node[im]; ok {
					ok2[id] = true
				}
			}
		}
		t.calls[s][to] = ok2
		for id := range ok2 {
			t.accept[s][id] = true
		}
	}
	return t
}

// sources reads the crate's files to tell calls from other references.
type sources struct {
	root  string
	files map[string][]byte
}

// text is the source text of sp.
func (s *sources) text(sp span) string {
	data := s.read(sp.File)
	i, j := offset(data, sp.Line, sp.ColStart), offset(data, sp.LineEnd, sp.ColEnd)
	if i > j {
		return ""
	}
	return string(data[i:j])
}

func (s *sources) read(file string) []byte {
	data, ok := s.files[file]
	if !ok {
		data, _ = os.ReadFile(filepath.Join(s.root, filepath.FromSlash(file)))
		s.files[file] = data
	}
	return data
}

// isCall reports whether the reference at sp is called: "(" follows the
// name, or a turbofish and then "(".
func (s *sources) isCall(sp span) bool {
	data := s.read(sp.File)
	i := offset(data, sp.LineEnd, sp.ColEnd)
	skip := func() {
		for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\t' || data[i] == '\r') {
			i++
		}
	}
	skip()
	if strings.HasPrefix(string(data[min(i, len(data)):min(i+3, len(data))]), "::<") {
		depth := 0
		for i += 2; i < len(data); i++ {
			if data[i] == '<' {
				depth++
			} else if data[i] == '>' {
				if depth--; depth == 0 {
					i++
					break
				}
			}
		}
		skip()
	}
	return i < len(data) && data[i] == '('
}

// offset is the byte offset of a 1-based line and character column.
func offset(data []byte, line, col int) int {
	i := 0
	for l := 1; l < line && i < len(data); l++ {
		j := bytes.IndexByte(data[i:], '\n')
		if j < 0 {
			return len(data)
		}
		i += j + 1
	}
	for c := 1; c < col && i < len(data); c++ {
		_, n := utf8.DecodeRune(data[i:])
		i += n
	}
	return i
}
