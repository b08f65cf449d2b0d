package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
	"github.com/relayhq/relay/workspace"
)

// Export formats of relay graph export.
const (
	exportJSONL   = "jsonl"
	exportGraphML = "graphml"
	exportArango  = "arangodb"
)

func newGraphExportCmd(g *globals) *cobra.Command {
	var format, out, path string
	var nodeKinds, edgeKinds []string
	cmd := &cobra.Command{
		Use:   "export --format jsonl|graphml|arangodb [--out PATH] [--node-kind K]... [--edge-kind K]... [--path P]",
		Short: "Export the code graph for other tools: JSON lines, GraphML, or ArangoDB import files",
		Long: `Export streams the whole code graph (or the part the filters select) from the store.

--format jsonl     one JSON object a line: every node, then every edge. A node line is
                   {"type":"node","owner":…,"id","kind","sub_kind","name","qname","loc","language",
                   "file","start_line","end_line","signature","doc","exported","test","generated",
                   "testdata","attrs"}; an edge line {"type":"edge","owner":…,"from","to","kind",
                   "file","line"} (empty fields are left out). Written to --out or stdout.
--format graphml   a GraphML document for Gephi, yEd or networkx: node ids are relay ids, the
                   fields above are <data> keys (n_kind, n_qname…, e_kind, e_file, e_line).
                   Written to --out or stdout.
--format arangodb  the vertex and edge collections in arangoimport's JSONL format, written to
                   --out DIR as nodes.jsonl and edges.jsonl: the same documents relay's ArangoDB
                   store writes (_key = hex SHA-1 of the id, _from/_to = nodes/<key>), so
                     arangoimport --file DIR/nodes.jsonl --type jsonl --collection nodes --create-collection
                     arangoimport --file DIR/edges.jsonl --type jsonl --collection edges --create-collection --create-collection-type edge
                   loads the graph relay --store arangodb://… would have written.

Filters: --node-kind (module, file, type, function, member) and --edge-kind (calls, references,
implements, inherits, returns, param_of, parent, imports, decorated_by, calls_by_name), repeatable or
comma-separated; --path keeps nodes declared under a path prefix (net/http) or matching a glob
(net/*, *_test.go) on the file or a parent directory. An edge is written when its kind is
selected and both its ends are. Counts go to stderr.`,
		Example: `  relay graph export --format jsonl > graph.jsonl
  relay graph export --format graphml --edge-kind calls --node-kind function,member --out calls.graphml
  relay graph export --format arangodb --out export/ --path internal/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := graphdb.ExportFilter{Path: path}
			for _, k := range splitList(nodeKinds) {
				f.NodeKinds = append(f.NodeKinds, graphdb.NodeKind(k))
			}
			for _, k := range splitList(edgeKinds) {
				f.EdgeKinds = append(f.EdgeKinds, graphdb.EdgeKind(k))
			}
			if err := f.Validate(); err != nil {
				return usageErr(err)
			}
			switch format {
			case exportJSONL, exportGraphML:
			case exportArango:
				if out == "" {
					return usageErr(errors.New("--format arangodb writes two files (nodes.jsonl, edges.jsonl): name their directory with --out DIR"))
				}
			case "":
				return usageErr(errors.New("graph export needs --format jsonl, graphml or arangodb"))
			default:
				return usageErr(fmt.Errorf("unknown --format %q (want jsonl, graphml or arangodb)", format))
			}
			root, err := g.repoRoot()
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			st, err := g.openStore(ctx, root, false)
			if err != nil {
				return err
			}
			defer st.Close()
			sc, ok := st.(graphdb.Scanner)
			if !ok {
				return fmt.Errorf("graph export: the store %T cannot list its whole graph; index into the embedded store (relay --store DIR index) and export from it", st)
			}
			start := time.Now()
			c, err := export(ctx, g, sc, f, format, out)
			if err != nil {
				return err
			}
			fmt.Fprintf(g.stderr, "Exported %d nodes and %d edges (%s) in %s.\n", c.Nodes, c.Edges, format, time.Since(start).Round(time.Millisecond))
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "jsonl, graphml or arangodb")
	cmd.Flags().StringVar(&out, "out", "", "output file (jsonl, graphml; default stdout) or directory (arangodb)")
	cmd.Flags().StringSliceVar(&nodeKinds, "node-kind", nil, "keep only these node kinds")
	cmd.Flags().StringSliceVar(&edgeKinds, "edge-kind", nil, "keep only these edge kinds")
	cmd.Flags().StringVar(&path, "path", "", "keep only nodes declared under this path prefix or glob")
	return cmd
}

func splitList(vs []string) []string {
	var out []string
	for _, v := range vs {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// export writes one format. A file is written beside its final name and
// renamed when complete, so a failed export never leaves a truncated file
// under the name asked for.
func export(ctx context.Context, g *globals, sc graphdb.Scanner, f graphdb.ExportFilter, format, out string) (graphdb.ExportCounts, error) {
	if format == exportArango {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return graphdb.ExportCounts{}, fmt.Errorf("create export directory: %w", err)
		}
		var c graphdb.ExportCounts
		err := writeFiles([]string{filepath.Join(out, arango.ExportNodesCollection+".jsonl"), filepath.Join(out, arango.ExportEdgesCollection+".jsonl")},
			func(ws []io.Writer) error {
				var err error
				c, err = arango.ExportImport(ctx, sc, f, ws[0], ws[1])
				return err
			})
		return c, err
	}
	run := func(w io.Writer) (graphdb.ExportCounts, error) {
		if format == exportGraphML {
			return graphdb.ExportGraphML(ctx, sc, f, w)
		}
		return graphdb.ExportJSONL(ctx, sc, f, w)
	}
	if out == "" || out == "-" {
		return run(g.stdout)
	}
	var c graphdb.ExportCounts
	err := writeFiles([]string{out}, func(ws []io.Writer) error {
		var err error
		c, err = run(ws[0])
		return err
	})
	return c, err
}

// writeFiles creates a temporary file beside each name, runs write on
// them, and renames them into place only when everything succeeded.
func writeFiles(names []string, write func([]io.Writer) error) (err error) {
	var files []*os.File
	defer func() {
		for _, f := range files {
			f.Close()
			if err != nil {
				os.Remove(f.Name())
			}
		}
	}()
	ws := make([]io.Writer, len(names))
	for i, name := range names {
		f, cerr := workspace.CreateTemp(name, "")
		if cerr != nil {
			return cerr
		}
		files = append(files, f)
		ws[i] = f
	}
	if err = write(ws); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	for i, f := range files {
		if err = f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
		if err = os.Chmod(f.Name(), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
		if err = os.Rename(f.Name(), names[i]); err != nil {
			return fmt.Errorf("write %s: %w", names[i], err)
		}
	}
	return nil
}
