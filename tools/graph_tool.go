package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// GraphJSON is the JSON form of a graph answer (`relay graph --json`). Fields:
//
//   - operation: callers, callees, implementations, methods, usages,
//     inheritors or blast_radius
//   - target: the resolved target node
//   - depth: the depth actually traversed
//   - results: one entry per related node, sorted by (depth, file, line)
//   - total: len(results) before truncation; truncated: how many were cut
//   - by_name: callers or callees by name only, not type-checked
//     (relation "possible caller by name only (not type-checked)" or
//     "possible callee …": the frontend could not resolve the call by type
//     and the name matches); not counted in total or truncated
//   - risk, affected_files, tests: blast_radius only
type GraphJSON struct {
	Operation string          `json:"operation"`
	Target    GraphItemJSON   `json:"target"`
	Depth     int             `json:"depth"`
	Results   []GraphItemJSON `json:"results"`
	Total     int             `json:"total"`
	Truncated int             `json:"truncated,omitempty"`
	ByName    []GraphItemJSON `json:"by_name,omitempty"`
	Risk      *int            `json:"risk,omitempty"`
	Files     []string        `json:"affected_files,omitempty"`
	Tests     []GraphItemJSON `json:"tests,omitempty"`
}

// GraphItemJSON is one node of a GraphJSON answer. Fields:
//
//   - qname: qualified name ("net/http.Server.Serve")
//   - loc: location name ("net/http/server.go:Server.Serve")
//   - file, line: where the node is declared (line is its first line)
//   - kind: the node's sub-kind when known (method, struct, interface…), else its kind
//   - relation: how it relates to the node one hop closer to the target
//     ("calls", "called by", "implements", "member of", "returns",
//     "takes as parameter", "inherits/embeds", and for interface dispatch
//     "calls via interface I.m" / "may dispatch to (via I.m)"); empty for the target
//   - depth: hops from the target (1 = direct)
//   - via: qname of the node one hop closer (omitted at depth 1)
//   - site_file, site_line: where the relation happens (the call site), when known
type GraphItemJSON struct {
	QName    string `json:"qname"`
	Loc      string `json:"loc,omitempty"`
	File     string `json:"file,omitempty"`
	Line     int    `json:"line,omitempty"`
	Kind     string `json:"kind"`
	Relation string `json:"relation,omitempty"`
	Depth    int    `json:"depth,omitempty"`
	Via      string `json:"via,omitempty"`
	SiteFile string `json:"site_file,omitempty"`
	SiteLine int    `json:"site_line,omitempty"`
}

// JSON returns the answer's JSON form with at most limit results (0: all).
func (a GraphAnswer) JSON(limit int) GraphJSON {
	out := GraphJSON{Operation: a.Operation, Target: nodeJSON(a.Target), Depth: a.Depth, Results: []GraphItemJSON{}}
	rs := a.Results
	if a.Blast != nil {
		rs = append(append([]graphdb.Result(nil), a.Blast.Direct...), a.Blast.Transitive...)
		risk := a.Blast.Risk
		out.Risk, out.Files = &risk, a.Blast.Files
		for _, t := range a.Blast.Tests {
			out.Tests = append(out.Tests, nodeJSON(t.Node))
		}
	}
	names := qnames(rs)
	names[a.Target.ID] = a.Target.QName
	out.Total = len(rs)
	if limit > 0 && len(rs) > limit {
		out.Truncated = len(rs) - limit
		rs = rs[:limit]
	}
	item := func(r graphdb.Result) GraphItemJSON {
		it := nodeJSON(r.Node)
		it.Relation, it.Depth, it.SiteFile, it.SiteLine = r.Relation, r.Depth, r.File, r.Line
		if r.Depth > 1 {
			it.Via = names[r.Via]
		}
		return it
	}
	for _, r := range rs {
		out.Results = append(out.Results, item(r))
	}
	for i, r := range a.ByName {
		if limit > 0 && i >= limit {
			break
		}
		out.ByName = append(out.ByName, item(r))
	}
	return out
}

func nodeJSON(n graphdb.Node) GraphItemJSON {
	return GraphItemJSON{QName: n.QName, Loc: n.Loc, File: n.File, Line: n.StartLine, Kind: kindOf(n)}
}

// Graph answers graph operations from the code graph.
type Graph struct {
	opts Options
}

// NewGraph returns the graph tool over opts.Graph; with a nil Graph every
// call answers that no index exists and how to build one.
func NewGraph(opts Options) (*Graph, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return &Graph{opts: o}, nil
}

// Name implements Tool.
func (g *Graph) Name() string { return GraphName }

// Description implements Tool.
func (g *Graph) Description() string { return graphDesc }

// Schema implements Tool.
func (g *Graph) Schema() json.RawMessage { return graphSchema }

// ReadOnly implements ReadOnlyTool.
func (g *Graph) ReadOnly() bool { return true }

// Call implements Tool.
func (g *Graph) Call(ctx context.Context, args json.RawMessage) (Result, error) {
	var p GraphParams
	if msg := decodeArgs(GraphName, graphSchema, args, &p); msg != "" {
		return Errorf("%s", msg), nil
	}
	return g.Run(ctx, p)
}

// Run answers with typed parameters.
func (g *Graph) Run(ctx context.Context, p GraphParams) (Result, error) {
	start := time.Now()
	meta := &GraphMeta{Operation: p.Operation, Depth: p.Depth}
	if g.opts.Graph == nil {
		return Result{Content: NoIndexText(g.opts.Hints), IsError: true, Meta: meta}, nil
	}
	tctx, cancel := context.WithTimeout(ctx, g.opts.Timeout)
	defer cancel()
	a, err := AnswerGraph(tctx, g.opts.Graph, p.Operation, p.Target, p.Depth)
	if err != nil {
		var ie *GraphInputError
		switch {
		case errors.As(err, &ie) && ie.Missing:
			return Result{Content: ie.Msg + hint(g.opts.Hints.Stale), IsError: true, Meta: meta}, nil
		case errors.As(err, &ie):
			return Result{Content: ie.Msg, IsError: true, Meta: meta}, nil
		case ctx.Err() != nil:
			return Result{}, ctx.Err()
		case tctx.Err() != nil:
			return Result{Content: fmt.Sprintf("graph %s %s timed out after %s; use a smaller depth.", p.Operation, quoteArg(p.Target), g.opts.Timeout), IsError: true, Meta: meta}, nil
		}
		return Result{}, fmt.Errorf("graph: %w", err)
	}
	meta.Operation, meta.Target, meta.Depth = a.Operation, a.Target.QName, a.Depth
	if a.Blast != nil {
		meta.Results = len(a.Blast.Direct) + len(a.Blast.Transitive)
		meta.Risk = a.Blast.Risk
	} else {
		meta.Results = len(a.Results)
		meta.ByName = len(a.ByName)
	}
	meta.Shown = min(meta.Results, g.opts.GraphLimit)
	meta.Truncated = meta.Results - meta.Shown
	g.opts.Logger.Debug("tool done", "tool", GraphName, "dur", time.Since(start), "op", a.Operation, "results", meta.Results, "truncated", meta.Truncated)
	return Result{Content: a.Text(g.opts.GraphLimit), Meta: meta}, nil
}
