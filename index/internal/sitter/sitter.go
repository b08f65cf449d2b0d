//go:build cgo

package sitter

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/relayhq/relay/index/internal/frontend"
	sitter "github.com/tree-sitter/go-tree-sitter"
)

// syntaxErrors returns where tree-sitter could not parse a file ("line:col:
// syntax error", at most 10), for the tree-sitter frontends' file records.
// It walks with an explicit stack: a tree may be a million levels deep.
func SyntaxErrors(root *sitter.Node) []string {
	var errs []string
	stack := []*sitter.Node{root}
	for len(stack) > 0 && len(errs) < 10 {
		nd := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if nd.IsError() || nd.IsMissing() {
			p := nd.StartPosition()
			msg := "syntax error"
			if nd.IsMissing() {
				msg = "syntax error: missing " + nd.Kind()
			}
			errs = append(errs, fmt.Sprintf("%d:%d: %s", p.Row+1, p.Column+1, msg))
			continue
		}
		if !nd.HasError() {
			continue
		}
		cs := AllChildren(nd)
		for i := len(cs) - 1; i >= 0; i-- { // pushed last first: popped in source order
			stack = append(stack, cs[i])
		}
	}
	return errs
}

// errParseDeadline is what parseLimited reports for a parse that ran
// past its deadline.
var ErrParseDeadline = errors.New("parse deadline exceeded")

// parseLimited parses data with p, stopped when ctx is cancelled or, when
// timeout > 0, once it has run that long: tree-sitter calls the progress
// callback every few hundred steps, so a parse in progress stops within
// milliseconds. A stopped parse returns the reason and leaves p reset for
// the next file.
func ParseLimited(ctx context.Context, p *sitter.Parser, data []byte, timeout time.Duration) (*sitter.Tree, error) {
	start := time.Now()
	var why error
	opts := &sitter.ParseOptions{ProgressCallback: func(sitter.ParseState) bool {
		if err := ctx.Err(); err != nil {
			why = err
			return true
		}
		if timeout > 0 && time.Since(start) > timeout {
			why = ErrParseDeadline
			return true
		}
		return false
	}}
	t := p.ParseWithOptions(func(i int, _ sitter.Point) []byte {
		if i < len(data) {
			return data[i:]
		}
		return nil
	}, nil, opts)
	if t == nil {
		p.Reset()
		if why == nil {
			why = errors.New("tree-sitter returned no tree")
		}
		return nil, why
	}
	return t, nil
}

// parsedFile is one file read and parsed within a job's budgets.
type File struct {
	Data []byte
	Tree *sitter.Tree // nil: not parsed (a budget said no); Close it otherwise
	Text []byte       // what tree reads against (data, or data rewritten)
	Up   *Parents
	// problem is the error that left the file unparsed (a parse deadline,
	// nesting too deep), for its record; "" when it parsed or was skipped
	// with a note
	Problem string
}

// root is the tree's root, nil when the file was not parsed.
func (pf *File) Root() *sitter.Node {
	if pf.Tree == nil {
		return nil
	}
	return pf.Tree.RootNode()
}

// parseWithin reads rel and parses it with parse within j's budgets
// (budget.go): a file over the size limit or minified is noted and not
// parsed; a parse past the deadline or a tree nested too deep is an error
// of the file (reported with pkg), and the file is not parsed either. It
// returns nil when the file cannot be read (noted) or ctx was cancelled.
func ParseWithin(ctx context.Context, j *frontend.Job, rel, pkg string, parse func(data []byte) (*sitter.Tree, []byte, error)) *File {
	return ParseBudgeted(ctx, j, rel, pkg, BudgetUse{Report: true, Depth: true}, parse)
}

// budgetUse says how a frontend uses parseBudgeted.
type BudgetUse struct {
	// report: note and report what keeps the file from being parsed (a
	// frontend that parses a file twice reports on one pass only)
	Report bool
	// depth: measure the tree's depth against the limit and index its
	// parents; a frontend whose walks bound their own depth (Java,
	// index/java/limits.go) keeps what lies above its limits instead
	Depth bool
}

// parseBudgeted is parseWithin as use says.
func ParseBudgeted(ctx context.Context, j *frontend.Job, rel, pkg string, use BudgetUse, parse func(data []byte) (*sitter.Tree, []byte, error)) *File {
	note, diag := j.Note, j.Diag
	if !use.Report {
		note, diag = func(frontend.Diagnostic) {}, func(frontend.Diagnostic) {}
	}
	data, err := j.Read(rel)
	if err != nil {
		note(frontend.Diagnostic{Pos: frontend.ShortRel(rel), Msg: frontend.Reason(err)})
		return nil
	}
	pf := &File{Data: data, Text: data}
	if why, limit := j.Budget.Skip(data); why != "" {
		note(frontend.Diagnostic{Pos: frontend.ShortRel(rel), Msg: why, Limit: limit})
		return pf
	}
	fail := func(msg, limit string) *File {
		pf.Problem = msg
		diag(frontend.Diagnostic{Package: pkg, Pos: rel, Msg: msg, Limit: limit})
		return pf
	}
	t, text, err := parse(data)
	switch {
	case err != nil && ctx.Err() != nil:
		return nil
	case errors.Is(err, ErrParseDeadline):
		return fail(fmt.Sprintf("not parsed: the parse ran past its %s deadline (Options.%s); only the file itself is indexed", j.Budget.Timeout, frontend.LimitParseTimeout), frontend.LimitParseTimeout)
	case err != nil:
		return fail("not parsed: "+err.Error(), "")
	}
	if !use.Depth {
		pf.Tree = t
		return pf
	}
	up, err := IndexTree(t.RootNode(), j.Budget.MaxDepth)
	if err != nil {
		t.Close()
		return fail(fmt.Sprintf("not extracted: %v (limit Options.%s); only the file itself is indexed", err, frontend.LimitDepth), frontend.LimitDepth)
	}
	pf.Tree, pf.Text, pf.Up = t, text, up
	return pf
}

// nodeParents finds the parents of one tree's nodes. tree-sitter's
// Node.Parent walks down from the root, scanning each ancestor's children,
// on every call: asked for every argument list of f(f(f(…))), or for every
// statement of a file of 100,000, it is quadratic. The extractors ask this
// instead: a map from each inner node (Node.Id) to its parent, built by one
// cursor pass on the first question.
type Parents struct {
	root sitter.Node
	m    map[uintptr]sitter.Node
}

// of returns n's parent, nil for the root.
func (ps *Parents) Of(n *sitter.Node) *sitter.Node {
	if ps == nil {
		return n.Parent() // a tree extracted without indexTree (tests)
	}
	if ps.m == nil {
		ps.m = parentMap(&ps.root)
	}
	if p, ok := ps.m[n.Id()]; ok {
		return &p
	}
	if n.ChildCount() == 0 {
		return n.Parent() // a leaf: the map keeps the parents of inner nodes only
	}
	return nil
}

// errTooDeep is what indexTree reports for a tree nested deeper than the
// limit.
var ErrTooDeep = errors.New("nesting too deep")

// indexTree walks the tree once with a cursor (no recursion) and refuses
// a tree more than maxDepth levels deep (maxDepth > 0) with an error
// wrapping errTooDeep, before anything recursive walks it: the extractors
// recurse once or twice per level, and a Go stack overflow cannot be
// recovered. It returns the tree's parent lookup.
func IndexTree(root *sitter.Node, maxDepth int) (*Parents, error) {
	c := root.Walk()
	defer c.Close()
	depth := 0
	for {
		if c.GotoFirstChild() {
			if depth++; maxDepth > 0 && depth > maxDepth {
				return nil, fmt.Errorf("%w: more than %d syntax levels at line %d", ErrTooDeep, maxDepth, Line(c.Node()))
			}
			continue
		}
		for !c.GotoNextSibling() {
			if !c.GotoParent() {
				return &Parents{root: *root}, nil
			}
			depth--
		}
	}
}

// parentMap maps each inner node under root to its parent, in one cursor
// pass; leaves, half the tree, are left out.
func parentMap(root *sitter.Node) map[uintptr]sitter.Node {
	ps := make(map[uintptr]sitter.Node, root.DescendantCount()/2)
	c := root.Walk()
	defer c.Close()
	var stack []sitter.Node // the ancestors of the cursor's node
	cur := *root
	for {
		if c.GotoFirstChild() {
			if len(stack) > 0 {
				ps[cur.Id()] = stack[len(stack)-1]
			}
			stack = append(stack, cur)
		} else {
			for !c.GotoNextSibling() {
				if !c.GotoParent() {
					return ps
				}
				stack = stack[:len(stack)-1]
			}
		}
		cur = *c.Node()
	}
}

// siblingIndex answers a node's previous sibling, named or any, in place
// of tree-sitter's PrevNamedSibling and PrevSibling, which climb from the
// parent's first child on every call: asked for each member of a class of
// 100,000, they are quadratic. A parent's children are indexed in one
// cursor pass (index), by the extractor's loop over them or on the first
// question about one of them.
type Siblings struct {
	done            map[uintptr]bool         // the parents indexed
	prev, prevNamed map[uintptr]*sitter.Node // by Node.Id, for each indexed child (nil: none)
}

// index records the previous siblings of parent's children, once.
func (s *Siblings) Index(parent *sitter.Node) {
	if s.done == nil {
		s.done, s.prev, s.prevNamed = map[uintptr]bool{}, map[uintptr]*sitter.Node{}, map[uintptr]*sitter.Node{}
	}
	if s.done[parent.Id()] {
		return
	}
	s.done[parent.Id()] = true
	var last, lastNamed *sitter.Node
	for _, c := range AllChildren(parent) {
		s.prev[c.Id()], s.prevNamed[c.Id()] = last, lastNamed
		last = c
		if c.IsNamed() {
			lastNamed = c
		}
	}
}

// prevNamedOf is n's previous named sibling (nil when none); n's parent
// must have been indexed, or it falls back to tree-sitter's lookup.
func (s *Siblings) PrevNamedOf(n *sitter.Node) *sitter.Node {
	if p, ok := s.prevNamed[n.Id()]; ok {
		return p
	}
	return n.PrevNamedSibling()
}

// prevOf is n's previous sibling, named or not, as prevNamedOf.
func (s *Siblings) PrevOf(n *sitter.Node) *sitter.Node {
	if p, ok := s.prev[n.Id()]; ok {
		return p
	}
	return n.PrevSibling()
}

// docComment returns the first text line of the /** … */ comment (a node
// of kind commentKind) right before st, tags (@param …) skipped; "" when
// there is none. prev is st's previous named sibling (siblingIndex). The
// Java and TypeScript/JavaScript frontends share it.
func DocComment(st, prev *sitter.Node, src []byte, commentKind string) string {
	if prev == nil || prev.Kind() != commentKind || int(prev.EndPosition().Row)+1 < int(st.StartPosition().Row) {
		return ""
	}
	s := prev.Utf8Text(src)
	if !strings.HasPrefix(s, "/**") {
		return ""
	}
	s = strings.TrimSuffix(strings.TrimPrefix(s, "/**"), "*/")
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l), "*"))
		if l != "" && !strings.HasPrefix(l, "@") {
			return l
		}
	}
	return ""
}

// maxDottedParts bounds the chains the extractors render as dotted
// expressions ("a.b.c"): a longer one is not resolved. Rendering is then
// linear in the chain's length for every link of it, where a chain of
// thousands of links made each link's rendering cost its whole length.
const MaxDottedParts = 64

func Line(n *sitter.Node) int { return int(n.StartPosition().Row) + 1 }

func EndLine(n *sitter.Node) int {
	p := n.EndPosition()
	if p.Column == 0 && p.Row > 0 {
		return int(p.Row)
	}
	return int(p.Row) + 1
}

// children returns n's named children, in order.
//
// It iterates with a cursor: tree-sitter's NamedChild(i) walks from the
// first child, so a loop over i is quadratic in a wide node (a class of
// 100,000 methods, a file of 100,000 functions).
func Children(n *sitter.Node) []*sitter.Node {
	c := n.Walk()
	defer c.Close()
	return nodePtrs(n.NamedChildren(c))
}

// allChildren returns n's children, named and anonymous, in order; with a
// cursor, like children.
func AllChildren(n *sitter.Node) []*sitter.Node {
	c := n.Walk()
	defer c.Close()
	return nodePtrs(n.Children(c))
}

// fieldChildren returns n's children in the named field, in order; with a
// cursor, like children.
func FieldChildren(n *sitter.Node, field string) []*sitter.Node {
	c := n.Walk()
	defer c.Close()
	return nodePtrs(n.ChildrenByFieldName(field, c))
}

func nodePtrs(ns []sitter.Node) []*sitter.Node {
	out := make([]*sitter.Node, len(ns))
	for i := range ns {
		out[i] = &ns[i]
	}
	return out
}

// The go-tree-sitter names the frontends use, so that they import this
// package alone for tree-sitter.
type (
	Node         = sitter.Node
	Tree         = sitter.Tree
	Parser       = sitter.Parser
	Language     = sitter.Language
	Point        = sitter.Point
	ParseOptions = sitter.ParseOptions
	ParseState   = sitter.ParseState
)

var (
	NewParser   = sitter.NewParser
	NewLanguage = sitter.NewLanguage
)

// ParserFor returns a parser for lang; Close it. The grammars and the
// runtime are pinned together in go.mod, so a language the runtime
// refuses is a build mistake, not bad input: it panics, naming the
// grammar (name).
func ParserFor(name string, lang *Language) *Parser {
	p := NewParser()
	if err := p.SetLanguage(lang); err != nil {
		panic(fmt.Sprintf("tree-sitter %s: %v", name, err))
	}
	return p
}
