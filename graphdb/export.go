package graphdb

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
)

// ExportFilter selects what an export writes. Zero fields select
// everything. An edge is written when its kind is selected and both its
// ends are written.
type ExportFilter struct {
	NodeKinds []NodeKind
	EdgeKinds []EdgeKind
	// Path keeps the nodes declared under a path: a prefix ("net/http",
	// "net/http/server.go") or a glob in path.Match syntax (see MatchPath:
	// "net/*", "*_test.go").
	// Nodes without a file (external ones) are dropped when it is set.
	Path string
}

// Validate checks the filter's kinds and pattern.
func (f ExportFilter) Validate() error {
	for _, k := range f.NodeKinds {
		if !slices.Contains(NodeKinds, k) {
			return fmt.Errorf("unknown node kind %q (want one of %v)", k, NodeKinds)
		}
	}
	for _, k := range f.EdgeKinds {
		if !slices.Contains(EdgeKinds, k) {
			return fmt.Errorf("unknown edge kind %q (want one of %v)", k, EdgeKinds)
		}
	}
	if _, err := path.Match(f.Path, ""); err != nil {
		return fmt.Errorf("path pattern %q: %w", f.Path, err)
	}
	return nil
}

func (f ExportFilter) nodeFiltered() bool { return len(f.NodeKinds) > 0 || f.Path != "" }

func (f ExportFilter) keepNode(n Node) bool {
	if len(f.NodeKinds) > 0 && !slices.Contains(f.NodeKinds, n.Kind) {
		return false
	}
	return f.Path == "" || MatchPath(f.Path, n.File)
}

// MatchPath reports whether file lies under pattern: equal to it or below
// it as a directory when pattern has no glob characters, else when the
// file or one of its parent directories matches it (path.Match); a glob
// without "/" is matched against their last elements ("*_test.go",
// "testdata*").
func MatchPath(pattern, file string) bool {
	if file == "" {
		return false
	}
	pattern = strings.TrimSuffix(pattern, "/")
	if !strings.ContainsAny(pattern, "*?[\\") {
		return pattern == "" || file == pattern || strings.HasPrefix(file, pattern+"/")
	}
	base := !strings.Contains(pattern, "/")
	for p := file; p != "." && p != "/" && p != ""; p = path.Dir(p) {
		name := p
		if base {
			name = path.Base(p)
		}
		if ok, _ := path.Match(pattern, name); ok {
			return true
		}
	}
	return false
}

// ScanFiltered streams the nodes and then the edges f selects from sc:
// node(owner, n) for each node, edge(owner, e) for each edge.
//
// DESIGN: without a node filter every edge Scanner returns has both ends
// stored, so nothing is remembered and memory stays constant. With one,
// the ids of the kept nodes are remembered (one map entry per kept node)
// so edges to dropped nodes are left out: GraphML and ArangoDB imports
// refuse or invent edges to vertices that are not in the file.
func ScanFiltered(ctx context.Context, sc Scanner, f ExportFilter, node func(string, Node) error, edge func(string, Edge) error) error {
	if err := f.Validate(); err != nil {
		return err
	}
	var kept map[NodeID]struct{}
	if f.nodeFiltered() {
		kept = map[NodeID]struct{}{}
	}
	err := sc.ScanNodes(ctx, func(owner string, n Node) error {
		if !f.keepNode(n) {
			return nil
		}
		if kept != nil {
			kept[n.ID] = struct{}{}
		}
		return node(owner, n)
	})
	if err != nil {
		return err
	}
	return sc.ScanEdges(ctx, func(owner string, e Edge) error {
		if len(f.EdgeKinds) > 0 && !slices.Contains(f.EdgeKinds, e.Kind) {
			return nil
		}
		if kept != nil {
			if _, ok := kept[e.From]; !ok {
				return nil
			}
			if _, ok := kept[e.To]; !ok {
				return nil
			}
		}
		return edge(owner, e)
	})
}

// ExportCounts says how much an export wrote.
type ExportCounts struct {
	Nodes, Edges int
}

// JSONLNode is one node line of the jsonl export: "type" is "node", the
// node's fields as in Node's JSON, and the owner (the file or
// pseudo-owner that produced it).
type JSONLNode struct {
	Type  string `json:"type"`
	Owner string `json:"owner"`
	Node
}

// JSONLEdge is one edge line of the jsonl export: "type" is "edge",
// from, to, kind, file, line as in Edge's JSON, and the owner.
type JSONLEdge struct {
	Type  string `json:"type"`
	Owner string `json:"owner"`
	Edge
}

// ExportJSONL writes one JSON object a line: every selected node
// (JSONLNode), then every selected edge (JSONLEdge).
func ExportJSONL(ctx context.Context, sc Scanner, f ExportFilter, w io.Writer) (ExportCounts, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	var c ExportCounts
	err := ScanFiltered(ctx, sc, f, func(owner string, n Node) error {
		c.Nodes++
		return enc.Encode(JSONLNode{Type: "node", Owner: owner, Node: n})
	}, func(owner string, e Edge) error {
		c.Edges++
		return enc.Encode(JSONLEdge{Type: "edge", Owner: owner, Edge: e})
	})
	if err != nil {
		return c, err
	}
	return c, bw.Flush()
}

// graphMLKey is one declared GraphML attribute.
type graphMLKey struct {
	id, forWhat, name, typ string
}

// graphMLKeys are the attributes ExportGraphML declares: node ids are
// relay node ids, edges carry kind, file and line.
var graphMLKeys = []graphMLKey{
	{"n_kind", "node", "kind", "string"},
	{"n_sub_kind", "node", "sub_kind", "string"},
	{"n_name", "node", "name", "string"},
	{"n_qname", "node", "qname", "string"},
	{"n_loc", "node", "loc", "string"},
	{"n_language", "node", "language", "string"},
	{"n_file", "node", "file", "string"},
	{"n_start_line", "node", "start_line", "int"},
	{"n_end_line", "node", "end_line", "int"},
	{"n_signature", "node", "signature", "string"},
	{"n_doc", "node", "doc", "string"},
	{"n_exported", "node", "exported", "boolean"},
	{"n_test", "node", "test", "boolean"},
	{"n_generated", "node", "generated", "boolean"},
	{"n_testdata", "node", "testdata", "boolean"},
	{"n_owner", "node", "owner", "string"},
	{"n_attrs", "node", "attrs", "string"},
	{"e_kind", "edge", "kind", "string"},
	{"e_file", "edge", "file", "string"},
	{"e_line", "edge", "line", "int"},
	{"e_owner", "edge", "owner", "string"},
}

// ExportGraphML writes a GraphML document (graphml.graphdrawing.org): key
// declarations, then one directed graph with every selected node (id = the
// relay node id) and edge (ids e1, e2, …; parallel edges kept), each with
// its fields as data. Empty and zero fields are left out. Gephi, yEd and
// networkx read it.
func ExportGraphML(ctx context.Context, sc Scanner, f ExportFilter, w io.Writer) (ExportCounts, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.WriteString(xml.Header)
	bw.WriteString(`<graphml xmlns="http://graphml.graphdrawing.org/xmlns" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">` + "\n")
	for _, k := range graphMLKeys {
		fmt.Fprintf(bw, `  <key id="%s" for="%s" attr.name="%s" attr.type="%s"/>`+"\n", k.id, k.forWhat, k.name, k.typ)
	}
	bw.WriteString(`  <graph id="code" edgedefault="directed">` + "\n")
	var c ExportCounts
	data := func(key, val string) {
		if val == "" {
			return
		}
		bw.WriteString(`      <data key="` + key + `">`)
		xmlText(bw, val)
		bw.WriteString("</data>\n")
	}
	num := func(v int) string {
		if v == 0 {
			return ""
		}
		return strconv.Itoa(v)
	}
	flag := func(b bool) string {
		if !b {
			return ""
		}
		return "true"
	}
	err := ScanFiltered(ctx, sc, f, func(owner string, n Node) error {
		c.Nodes++
		bw.WriteString(`    <node id="`)
		xmlText(bw, string(n.ID))
		bw.WriteString("\">\n")
		data("n_kind", string(n.Kind))
		data("n_sub_kind", n.SubKind)
		data("n_name", n.Name)
		data("n_qname", n.QName)
		data("n_loc", n.Loc)
		data("n_language", n.Language)
		data("n_file", n.File)
		data("n_start_line", num(n.StartLine))
		data("n_end_line", num(n.EndLine))
		data("n_signature", n.Signature)
		data("n_doc", n.Doc)
		data("n_exported", flag(n.Exported))
		data("n_test", flag(n.Test))
		data("n_generated", flag(n.Generated))
		data("n_testdata", flag(n.Testdata))
		data("n_owner", owner)
		if len(n.Attrs) > 0 {
			b, err := json.Marshal(n.Attrs)
			if err != nil {
				return fmt.Errorf("attrs of %s: %w", n.ID, err)
			}
			data("n_attrs", string(b))
		}
		bw.WriteString("    </node>\n")
		return nil
	}, func(owner string, e Edge) error {
		c.Edges++
		fmt.Fprintf(bw, `    <edge id="e%d" source="`, c.Edges)
		xmlText(bw, string(e.From))
		bw.WriteString(`" target="`)
		xmlText(bw, string(e.To))
		bw.WriteString("\">\n")
		data("e_kind", string(e.Kind))
		data("e_file", e.File)
		data("e_line", num(e.Line))
		data("e_owner", owner)
		bw.WriteString("    </edge>\n")
		return nil
	})
	if err != nil {
		return c, err
	}
	bw.WriteString("  </graph>\n</graphml>\n")
	return c, bw.Flush()
}

// xmlText writes s escaped for XML text and attribute values. Characters
// XML 1.0 cannot hold at all (most control characters) become U+FFFD.
func xmlText(w *bufio.Writer, s string) {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			b.WriteRune('\uFFFD')
			continue
		}
		b.WriteRune(r)
	}
	// A write error sticks in the bufio.Writer and is returned by Flush.
	_ = xml.EscapeText(w, []byte(b.String()))
}
