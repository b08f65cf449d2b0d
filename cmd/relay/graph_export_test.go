package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// exportRepo is a small repository with every edge kind Go produces:
// calls (recursive included), references, implements, inherits, returns,
// param_of, parent, imports; one doc comment holds XML-special characters.
func exportRepo(t *testing.T) string {
	t.Helper()
	root := writeRepo(t, map[string]string{
		"go.mod": "module example.com/exp\n\ngo 1.22\n",
		"shape/shape.go": `// Package shape has <shapes> & "areas".
package shape

// Shape has an area.
type Shape interface{ Area() int }

// Square is a shape.
type Square struct{ Side int }

// Area multiplies.
func (s Square) Area() int { return s.Side * s.Side }

// Named embeds a Square.
type Named struct {
	Square
	Name string
}

// New makes a square.
func New(side int) Square { return Square{Side: side} }

// Total sums recursively.
func Total(ss []Shape) int {
	if len(ss) == 0 {
		return 0
	}
	return ss[0].Area() + Total(ss[1:])
}
`,
		"main.go": `package main

import "example.com/exp/shape"

var pick = shape.New

func main() {
	s := pick(2)
	println(shape.Total([]shape.Shape{s, shape.New(3)}))
}
`,
	})
	if code, _, stderr := relay(t, "", "index", "--repo", root); code != 0 {
		t.Fatalf("index: %d %s", code, stderr)
	}
	return root
}

func TestGraphExportJSONL(t *testing.T) {
	t.Parallel()
	repo := exportRepo(t)
	code, stdout, stderr := relay(t, "", "graph", "export", "--format", "jsonl", "--repo", repo)
	if code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	if !regexp.MustCompile(`^Exported \d+ nodes and \d+ edges \(jsonl\) in `).MatchString(stderr) {
		t.Errorf("stderr = %q, want the counts", stderr)
	}
	// Every line is one JSON object with a type; every edge's ends are
	// nodes of the export.
	nodes := map[string]bool{}
	kinds := map[string]int{}
	for i, line := range strings.Split(strings.TrimSuffix(stdout, "\n"), "\n") {
		var v struct {
			Type, ID, From, To, Kind string
		}
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v: %s", i+1, err, line)
		}
		switch v.Type {
		case "node":
			nodes[v.ID] = true
		case "edge":
			kinds[v.Kind]++
			if !nodes[v.From] || !nodes[v.To] {
				t.Errorf("line %d: edge %s → %s has an end that is not exported before it", i+1, v.From, v.To)
			}
		default:
			t.Errorf("line %d: type %q", i+1, v.Type)
		}
	}
	for _, k := range []string{"calls", "references", "implements", "inherits", "returns", "param_of", "parent", "imports"} {
		if kinds[k] == 0 {
			t.Errorf("no %s edge exported (got %v)", k, kinds)
		}
	}
	assertGolden(t, "export_jsonl.golden", stdout)
}

func TestGraphExportGraphML(t *testing.T) {
	t.Parallel()
	repo := exportRepo(t)
	out := filepath.Join(t.TempDir(), "calls.graphml")
	code, _, stderr := relay(t, "", "graph", "export", "--format", "graphml", "--node-kind", "function,member",
		"--edge-kind", "calls,references", "--out", out, "--repo", repo)
	if code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	nodes, edges := validateGraphML(t, b)
	if nodes == 0 || edges == 0 {
		t.Errorf("graphml holds %d nodes and %d edges; want both", nodes, edges)
	}
	assertGolden(t, "export_graphml.golden", string(b))

	// The whole graph is valid GraphML too.
	code, stdout, stderr := relay(t, "", "graph", "export", "--format", "graphml", "--repo", repo)
	if code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	validateGraphML(t, []byte(stdout))
}

// graphML mirrors the GraphML elements the export writes.
type graphML struct {
	XMLName xml.Name `xml:"graphml"`
	Keys    []struct {
		ID   string `xml:"id,attr"`
		For  string `xml:"for,attr"`
		Name string `xml:"attr.name,attr"`
		Type string `xml:"attr.type,attr"`
	} `xml:"key"`
	Graphs []struct {
		ID          string `xml:"id,attr"`
		EdgeDefault string `xml:"edgedefault,attr"`
		Nodes       []struct {
			ID   string        `xml:"id,attr"`
			Data []graphMLData `xml:"data"`
		} `xml:"node"`
		Edges []struct {
			ID     string        `xml:"id,attr"`
			Source string        `xml:"source,attr"`
			Target string        `xml:"target,attr"`
			Data   []graphMLData `xml:"data"`
		} `xml:"edge"`
	} `xml:"graph"`
}

type graphMLData struct {
	Key   string `xml:"key,attr"`
	Value string `xml:",chardata"`
}

// validateGraphML checks what the GraphML schema and its readers
// require: the graphml root in the GraphML namespace; keys with unique
// ids, a for of node/edge/graph/all and a type among boolean, int, long,
// float, double, string; one graph with edgedefault directed or
// undirected; unique node ids; unique edge ids whose source and target are
// nodes of the graph; data naming a declared key of the right domain with
// a value of its type. It returns the node and edge counts.
func validateGraphML(t *testing.T, doc []byte) (nodes, edges int) {
	t.Helper()
	var g graphML
	if err := xml.Unmarshal(doc, &g); err != nil {
		t.Fatalf("graphml does not parse: %v", err)
	}
	if g.XMLName.Space != "http://graphml.graphdrawing.org/xmlns" {
		t.Errorf("root namespace %q", g.XMLName.Space)
	}
	keys := map[string]string{}
	types := map[string]string{}
	for _, k := range g.Keys {
		if keys[k.ID] != "" {
			t.Errorf("key %q declared twice", k.ID)
		}
		switch k.For {
		case "node", "edge", "graph", "all":
		default:
			t.Errorf("key %q for=%q", k.ID, k.For)
		}
		switch k.Type {
		case "boolean", "int", "long", "float", "double", "string":
		default:
			t.Errorf("key %q attr.type=%q", k.ID, k.Type)
		}
		keys[k.ID], types[k.ID] = k.For, k.Type
	}
	checkData := func(where, domain string, ds []graphMLData) {
		for _, d := range ds {
			f, ok := keys[d.Key]
			if !ok || (f != domain && f != "all") {
				t.Errorf("%s: data key %q is not a declared %s key", where, d.Key, domain)
				continue
			}
			var err error
			switch types[d.Key] {
			case "int", "long":
				_, err = strconv.ParseInt(d.Value, 10, 64)
			case "boolean":
				_, err = strconv.ParseBool(d.Value)
			}
			if err != nil {
				t.Errorf("%s: data %s = %q is not a %s", where, d.Key, d.Value, types[d.Key])
			}
		}
	}
	if len(g.Graphs) != 1 {
		t.Fatalf("%d graphs, want 1", len(g.Graphs))
	}
	gr := g.Graphs[0]
	if gr.EdgeDefault != "directed" && gr.EdgeDefault != "undirected" {
		t.Errorf("edgedefault %q", gr.EdgeDefault)
	}
	ids := map[string]bool{}
	for _, n := range gr.Nodes {
		if n.ID == "" || ids[n.ID] {
			t.Errorf("node id %q empty or repeated", n.ID)
		}
		ids[n.ID] = true
		checkData("node "+n.ID, "node", n.Data)
	}
	eids := map[string]bool{}
	for _, e := range gr.Edges {
		if eids[e.ID] {
			t.Errorf("edge id %q repeated", e.ID)
		}
		eids[e.ID] = true
		if !ids[e.Source] || !ids[e.Target] {
			t.Errorf("edge %s: %q → %q names a node not in the graph", e.ID, e.Source, e.Target)
		}
		checkData("edge "+e.ID, "edge", e.Data)
	}
	return len(gr.Nodes), len(gr.Edges)
}

func TestGraphExportArangoDB(t *testing.T) {
	t.Parallel()
	repo := exportRepo(t)
	dir := filepath.Join(t.TempDir(), "export")
	code, _, stderr := relay(t, "", "graph", "export", "--format", "arangodb", "--path", "shape", "--out", dir, "--repo", repo)
	if code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	keyOK := regexp.MustCompile(`^[a-zA-Z0-9_\-:.@()+,=;$!*'%]{1,254}$`) // ArangoDB's _key alphabet
	keys := map[string]bool{}
	var all strings.Builder
	for _, name := range []string{"nodes.jsonl", "edges.jsonl"} {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var d struct {
				Key  string `json:"_key"`
				From string `json:"_from"`
				To   string `json:"_to"`
				File string `json:"file"`
			}
			if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if name == "nodes.jsonl" {
				if !keyOK.MatchString(d.Key) || keys[d.Key] {
					t.Errorf("node _key %q invalid or repeated", d.Key)
				}
				if d.File != "shape" && !strings.HasPrefix(d.File, "shape/") { // the package node's file is its directory
					t.Errorf("--path shape exported a node of %q", d.File)
				}
				keys[d.Key] = true
			} else {
				for _, h := range []string{d.From, d.To} {
					k, ok := strings.CutPrefix(h, "nodes/")
					if !ok || !keys[k] {
						t.Errorf("edge end %q is not nodes/<an exported key>", h)
					}
				}
			}
			fmt.Fprintf(&all, "%s %s\n", name, sc.Text())
		}
		if err := sc.Err(); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		f.Close()
	}
	assertGolden(t, "export_arangodb.golden", all.String())
}

func TestGraphExportErrors(t *testing.T) {
	t.Parallel()
	repo := exportRepo(t)
	tests := []struct {
		name    string
		args    []string
		wantErr string
	}{
		{"no format", []string{"graph", "export"}, "needs --format"},
		{"bad format", []string{"graph", "export", "--format", "csv"}, `unknown --format "csv"`},
		{"arangodb without dir", []string{"graph", "export", "--format", "arangodb"}, "--out DIR"},
		{"bad node kind", []string{"graph", "export", "--format", "jsonl", "--node-kind", "class"}, `unknown node kind "class"`},
		{"bad edge kind", []string{"graph", "export", "--format", "jsonl", "--edge-kind", "call"}, `unknown edge kind "call"`},
		{"bad glob", []string{"graph", "export", "--format", "jsonl", "--path", "a["}, "path pattern"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := relay(t, "", append(tt.args, "--repo", repo)...)
			if code == 0 || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("relay %v = %d, stderr %q; want an error containing %q", tt.args, code, stderr, tt.wantErr)
			}
		})
	}
}
