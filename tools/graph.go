package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

//go:embed graph.md
var graphDesc string

// OpBlastRadius is the graph tool's extra operation beside graphdb.Ops.
const OpBlastRadius = "blast_radius"

// MaxGraphDepth caps the depth a caller may ask for.
const MaxGraphDepth = 5

// GraphParams are the arguments of the graph tool.
type GraphParams struct {
	Operation string `json:"operation" jsonschema:"callers | callees | implementations | methods | usages | inheritors | blast_radius" schema:"enum=callers|callees|implementations|methods|usages|inheritors|blast_radius"`
	Target    string `json:"target" jsonschema:"Symbol: a qualified name (\"net/http.Server.Serve\"), a dotted suffix (\"Server.Serve\"), a short name (\"Serve\") or a location name (\"net/http/server.go:Server.Serve\")."`
	Depth     int    `json:"depth,omitempty" jsonschema:"Hops to follow for callers, callees, implementations and inheritors (default 1; blast_radius default 4)." schema:"minimum=1,maximum=5"`
}

var graphSchema = SchemaFor[GraphParams]()

// GraphMeta records what a graph call found; it is never shown to the model.
type GraphMeta struct {
	Operation string `json:"operation"`
	Target    string `json:"target"` // resolved qname; "" when resolution failed
	Depth     int    `json:"depth"`
	Results   int    `json:"results"`
	Shown     int    `json:"shown"`
	Truncated int    `json:"truncated"`
	Risk      int    `json:"risk,omitempty"`    // blast_radius only
	ByName    int    `json:"by_name,omitempty"` // callers/callees by name only, beside Results
}

// GraphInputError is a problem with what was asked of the graph (unknown
// operation, unknown or ambiguous target); its message is written for the
// asker, candidates included, so a model can retry.
type GraphInputError struct {
	Msg string
	Err error // the underlying *graphdb.AmbiguousError, when there is one
	// Missing: the graph holds no symbol of the name at all, which may
	// have been added since the index was built (Hints.Stale).
	Missing bool
}

func (e *GraphInputError) Error() string { return e.Msg }
func (e *GraphInputError) Unwrap() error { return e.Err }

// NoIndexText is the graph tool's answer when no index exists, ended by
// the surface's hint (Hints.NoIndex).
func NoIndexText(h Hints) string {
	return "No code graph index exists for this repository yet." + hint(h.NoIndex) +
		" Meanwhile grep finds definitions (e.g. {\"pattern\": \"func \\\\(.*\\\\) Serve\\\\(\"}) and references."
}

// GraphAnswer is the outcome of one graph operation, printable as prose
// (Text) or JSON (JSON). The CLI's `relay graph` and the graph tool share it.
type GraphAnswer struct {
	Operation string           // a graphdb.Op or OpBlastRadius
	Target    graphdb.Node     // the resolved target
	Depth     int              // effective depth
	Results   []graphdb.Result // the six operations
	// ByName: callers or callees by name only (graphdb.ByName), listed
	// after the exact answer; callers and callees only.
	ByName []graphdb.Result
	Blast  *graphdb.Blast // blast_radius only
}

// ParseGraphOp accepts the six operations and blast_radius (also spelled
// blast-radius), case-insensitively.
func ParseGraphOp(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "blast-radius" || s == "blastradius" || s == OpBlastRadius {
		return OpBlastRadius, nil
	}
	op, err := graphdb.ParseOp(s)
	if err != nil {
		return "", &GraphInputError{Msg: fmt.Sprintf("unknown graph operation %s; use one of callers, callees, implementations, methods, usages, inheritors, blast_radius", quoteArg(s))}
	}
	return string(op), nil
}

// AnswerGraph resolves target and runs operation on r up to depth hops (0:
// 1 for the six operations, graphdb.DefaultBlastDepth for blast_radius;
// capped at MaxGraphDepth). Bad input gives a *GraphInputError; any other
// error is a store failure.
func AnswerGraph(ctx context.Context, r graphdb.Reader, operation, target string, depth int) (GraphAnswer, error) {
	op, err := ParseGraphOp(operation)
	if err != nil {
		return GraphAnswer{}, err
	}
	if strings.TrimSpace(target) == "" {
		return GraphAnswer{}, &GraphInputError{Msg: "graph needs a target symbol, e.g. {\"operation\": \"callers\", \"target\": \"Server.Serve\"}"}
	}
	if depth < 0 {
		return GraphAnswer{}, &GraphInputError{Msg: fmt.Sprintf("depth must be positive (got %d)", depth)}
	}
	depth = min(depth, MaxGraphDepth)
	n, err := ResolveTarget(ctx, r, target)
	if err != nil {
		return GraphAnswer{}, err
	}
	a := GraphAnswer{Operation: op, Target: n, Depth: depth}
	if op == OpBlastRadius {
		if depth == 0 {
			depth = graphdb.DefaultBlastDepth
		}
		b, err := graphdb.BlastRadius(ctx, r, []graphdb.NodeID{n.ID}, depth)
		if err != nil {
			return GraphAnswer{}, fmt.Errorf("blast radius of %s: %w", n.QName, err)
		}
		a.Depth, a.Blast = b.MaxDepth, &b
		return a, nil
	}
	gop := graphdb.Op(op)
	if depth == 0 || !gop.Multi() {
		depth = 1
	}
	a.Depth = depth
	a.Results, err = graphdb.Query(ctx, r, gop, n.ID, depth, 0)
	if err != nil {
		return GraphAnswer{}, fmt.Errorf("%s of %s: %w", op, n.QName, err)
	}
	if a.ByName, err = graphdb.ByName(ctx, r, gop, n.ID, a.Results); err != nil {
		return GraphAnswer{}, fmt.Errorf("%s of %s by name: %w", op, n.QName, err)
	}
	return a, nil
}

// ResolveTarget resolves target with graphdb.Resolve; an unknown or
// ambiguous target gives a *GraphInputError whose message lists the
// candidates, any other error is a store failure.
func ResolveTarget(ctx context.Context, r graphdb.Reader, target string) (graphdb.Node, error) {
	n, err := graphdb.Resolve(ctx, r, target)
	if m := callSuffix.FindStringSubmatch(strings.TrimSpace(target)); m != nil && errors.Is(err, graphdb.ErrNotFound) {
		// "Serve()" or "Diff(x, y)": people and models write a function as
		// it is called. The exact name is tried first: a Java overload's
		// qualified name carries its parameter types in parentheses.
		if n2, err2 := graphdb.Resolve(ctx, r, m[1]); err2 == nil || !errors.Is(err2, graphdb.ErrNotFound) {
			n, err, target = n2, err2, m[1]
		}
	}
	if err != nil {
		var ae *graphdb.AmbiguousError
		if errors.As(err, &ae) || errors.Is(err, graphdb.ErrNotFound) {
			missing := ae == nil || len(ae.Candidates) == 0
			return graphdb.Node{}, &GraphInputError{Msg: resolveText(target, ae), Err: err, Missing: missing}
		}
		return graphdb.Node{}, fmt.Errorf("resolve %s: %w", quoteArg(target), err)
	}
	return n, nil
}

// callSuffix matches a target written as a call: the name, then one pair
// of parentheses holding no others.
var callSuffix = regexp.MustCompile(`^([^()]*[^()\s])\s*\([^()]*\)$`)

func resolveText(target string, ae *graphdb.AmbiguousError) string {
	var b strings.Builder
	switch {
	case ae == nil || len(ae.Candidates) == 0:
		fmt.Fprintf(&b, "No symbol %s in the code graph. Use grep to find where it is defined, then retry with its qualified name (import path + name, e.g. \"net/http.Server.Serve\"). If it was added recently the index is stale.", quoteArg(target))
		return b.String()
	case errors.Is(ae, graphdb.ErrAmbiguous):
		fmt.Fprintf(&b, "%s is ambiguous; %s:", quoteArg(target), plural(len(ae.Candidates), "candidate", "candidates"))
	default:
		fmt.Fprintf(&b, "No symbol %s in the code graph; closest candidates:", quoteArg(target))
	}
	for _, c := range ae.Candidates {
		fmt.Fprintf(&b, "\n- %s (%s) %s", c.QName, location(c), kindOf(c))
	}
	b.WriteString("\nRetry with one of these qualified names as target.")
	return b.String()
}

// Text renders the answer as the graph tool's prose, listing at most limit
// results (0: all).
func (a GraphAnswer) Text(limit int) string {
	if a.Blast != nil {
		return FormatBlast(a.Target.QName, *a.Blast, limit)
	}
	rs := a.Results
	if len(a.ByName) > 0 {
		rs = append(append([]graphdb.Result(nil), a.Results...), a.ByName...)
	}
	text := FormatGraph(graphdb.Op(a.Operation), a.Target.QName, a.Depth, rs, limit)
	if len(rs) == 0 {
		text += notATypeHint(graphdb.Op(a.Operation), a.Target)
	}
	return text
}

// typeOps are the operations that answer about a type; asked of a
// function or method they find nothing, which says nothing about why.
var typeOps = map[graphdb.Op]string{
	graphdb.OpImplementations: "the types implementing an interface",
	graphdb.OpMethods:         "the methods and fields of a type",
	graphdb.OpUsages:          "the functions taking or returning a type",
	graphdb.OpInheritors:      "the types embedding or inheriting a type",
}

// notATypeHint explains an empty answer of a type operation on a function
// or method ("" otherwise).
func notATypeHint(op graphdb.Op, target graphdb.Node) string {
	what, ok := typeOps[op]
	if !ok || (target.Kind != graphdb.KindFunction && target.Kind != graphdb.KindMember) {
		return ""
	}
	kind := target.SubKind
	if kind == "" {
		kind = string(target.Kind)
	}
	next := "ask for callers or callees"
	switch {
	case target.SubKind == "field":
		next = "give the type it belongs to as the target"
	case target.Kind == graphdb.KindMember:
		next += ", or give the type it belongs to as the target"
	}
	return fmt.Sprintf(" %s is a %s, not a type: %s lists %s. For a %s, %s.", target.QName, kind, op, what, kind, next)
}

// isByName reports whether r is a by-name-only result (graphdb.ByName).
func isByName(r graphdb.Result) bool {
	return r.Relation == graphdb.RelCallerByName || r.Relation == graphdb.RelCalleeByName
}

// maxByNameShown is how many by-name candidates the footer names.
const maxByNameShown = 5

// byNameFooter is the line after the exact answer naming what only a
// name match relates to the target, so a reader knows where the exact
// answer ends: "3 further possible callers by name only (not
// type-checked): a at x.py:4, b at y.py:9, c at z.py:1".
func byNameFooter(op graphdb.Op, rs []graphdb.Result, further bool) string {
	if len(rs) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d ", len(rs))
	if further {
		b.WriteString("further ")
	}
	b.WriteString("possible ")
	noun := "caller"
	if op == graphdb.OpCallees {
		noun = "callee"
	}
	b.WriteString(noun)
	if len(rs) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" by name only (not type-checked):")
	for i, r := range rs {
		if i == maxByNameShown {
			fmt.Fprintf(&b, " and %d more", len(rs)-i)
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %s at %s:%d", r.Node.QName, r.File, r.Line)
	}
	b.WriteString(". Calls whose receiver's type is unknown and whose name matches; read the sites to check.\n")
	return b.String()
}

var opTitles = map[graphdb.Op]string{
	graphdb.OpCallers:         "Callers",
	graphdb.OpCallees:         "Callees",
	graphdb.OpImplementations: "Implementations",
	graphdb.OpMethods:         "Methods and fields",
	graphdb.OpUsages:          "Usages",
	graphdb.OpInheritors:      "Inheritors",
}

// FormatGraph renders results of op from target as numbered prose grouped
// by depth, at most limit entries (0: all), ending with a pointer to read:
//
//	Callers of net/http.Server.Serve (depth 1):
//	1. net/http.Server.ListenAndServe (net/http/server.go:3312) method — calls at net/http/server.go:3320
//	Use read to fetch full code for any of these files.
func FormatGraph(op graphdb.Op, target string, depth int, results []graphdb.Result, limit int) string {
	title := opTitles[op]
	if title == "" {
		title = string(op)
	}
	var b strings.Builder
	// By-name results come last (GraphAnswer.Text): a footer, not entries.
	cut := len(results)
	for cut > 0 && isByName(results[cut-1]) {
		cut--
	}
	results, byName := results[:cut], results[cut:]
	if len(results) == 0 {
		fmt.Fprintf(&b, "No %s of %s found (depth %d).", strings.ToLower(title), target, depth)
		if op == graphdb.OpCallers {
			b.WriteString(" Calls through function values or reflection, and calls from code outside the repository, are not in the graph; grep for the name to find them.")
		}
		if f := byNameFooter(op, byName, false); f != "" {
			b.WriteString("\n" + strings.TrimSuffix(f, "\n"))
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s of %s (depth %d):\n", title, target, depth)
	names := qnames(results)
	multi := false
	for _, r := range results {
		multi = multi || r.Depth > 1
	}
	cur := 0
	shown := 0
	for i, r := range results {
		if limit > 0 && shown >= limit {
			break
		}
		switch {
		case r.Relation == graphdb.RelReferenced:
			// Listed after every depth of callers (graphdb.Query).
			if multi && cur != -1 {
				cur = -1
				b.WriteString("Referenced as a value (not called there):\n")
			}
		case multi && r.Depth != cur:
			cur = r.Depth
			fmt.Fprintf(&b, "Depth %d:\n", cur)
		}
		fmt.Fprintf(&b, "%d. %s\n", i+1, resultLine(r, names))
		shown++
	}
	if more := len(results) - shown; more > 0 {
		fmt.Fprintf(&b, "truncated: %d more results, narrow with a smaller depth or a more specific target.\n", more)
	}
	b.WriteString(byNameFooter(op, byName, true))
	b.WriteString("Use read to fetch full code for any of these files.")
	return b.String()
}

// FormatBlast renders a blast radius as prose, listing at most limit
// callers (0: all).
func FormatBlast(target string, bl graphdb.Blast, limit int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Blast radius of %s (callers up to depth %d): risk %d/100; %s, %s, %s, %s.\n",
		target, bl.MaxDepth, bl.Risk,
		plural(len(bl.Direct), "direct caller", "direct callers"),
		plural(len(bl.Transitive), "transitive caller", "transitive callers"),
		plural(len(bl.Tests), "test", "tests"),
		plural(len(bl.Files), "affected file", "affected files"))
	all := append(append([]graphdb.Result(nil), bl.Direct...), bl.Transitive...)
	names := qnames(all)
	for _, t := range bl.Targets {
		names[t.ID] = t.QName
	}
	shown, i := 0, 0
	section := func(title string, rs []graphdb.Result) {
		if len(rs) == 0 {
			return
		}
		fmt.Fprintf(&b, "%s (%d):\n", title, len(rs))
		for _, r := range rs {
			i++
			if limit > 0 && shown >= limit {
				continue
			}
			fmt.Fprintf(&b, "%d. %s\n", i, resultLine(r, names))
			shown++
		}
	}
	section("Direct callers", bl.Direct)
	section("Transitive callers", bl.Transitive)
	if more := len(all) - shown; more > 0 {
		fmt.Fprintf(&b, "truncated: %d more callers, narrow with a smaller depth.\n", more)
	}
	if len(bl.Tests) > 0 {
		b.WriteString("Tests reaching it:")
		for j, r := range bl.Tests {
			if limit > 0 && j >= limit {
				fmt.Fprintf(&b, " … and %d more", len(bl.Tests)-j)
				break
			}
			fmt.Fprintf(&b, " %s (%s)", r.Node.QName, location(r.Node))
			if j < len(bl.Tests)-1 {
				b.WriteString(",")
			}
		}
		b.WriteString("\n")
	} else {
		b.WriteString("No test reaches it.\n")
	}
	if len(bl.Files) > 0 {
		files := bl.Files
		extra := ""
		if limit > 0 && len(files) > limit {
			extra = fmt.Sprintf(" … and %d more", len(files)-limit)
			files = files[:limit]
		}
		fmt.Fprintf(&b, "Affected files: %s%s\n", strings.Join(files, ", "), extra)
	}
	b.WriteString("Use read to fetch full code for any of these files.")
	return b.String()
}

// resultLine is "qname (file:line) kind — relation [via] at site".
func resultLine(r graphdb.Result, names map[graphdb.NodeID]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s) %s — ", r.Node.QName, location(r.Node), kindOf(r.Node))
	rel := r.Relation
	if r.Depth <= 1 {
		if rel == "called by" {
			rel = "called"
		}
		b.WriteString(rel)
	} else {
		via := names[r.Via]
		if via == "" {
			via = string(r.Via)
		}
		if rel == graphdb.RelReferenced {
			fmt.Fprintf(&b, "references %s as a value", via)
		} else {
			fmt.Fprintf(&b, "%s %s", rel, via)
		}
	}
	// A call site always matters; for other relations the site is worth
	// printing only when it is not just the node's own declaration.
	isCall := r.Relation == "calls" || r.Relation == "called by" || r.Relation == graphdb.RelRecursive || r.Relation == graphdb.RelReferenced
	if r.File != "" && r.Line > 0 && (isCall || r.File != r.Node.File || r.Line != r.Node.StartLine) {
		fmt.Fprintf(&b, " at %s:%d", r.File, r.Line)
	}
	return b.String()
}

func qnames(rs []graphdb.Result) map[graphdb.NodeID]string {
	m := make(map[graphdb.NodeID]string, len(rs))
	for _, r := range rs {
		m[r.Node.ID] = r.Node.QName
	}
	return m
}

func location(n graphdb.Node) string {
	switch {
	case n.File == "":
		return "no source"
	case n.StartLine > 0:
		return fmt.Sprintf("%s:%d", n.File, n.StartLine)
	}
	return n.File
}

func kindOf(n graphdb.Node) string {
	if n.SubKind != "" {
		return n.SubKind
	}
	return string(n.Kind)
}
