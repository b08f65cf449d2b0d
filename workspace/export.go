package workspace

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/graphdb/arango"
)

// Formats of ExportGraph and WriteGraph.
const (
	ExportJSONL   = "jsonl"    // graphdb.ExportJSONL, to a file or stdout
	ExportGraphML = "graphml"  // graphdb.ExportGraphML, to a file or stdout
	ExportArango  = "arangodb" // arango.ExportImport: nodes.jsonl and edges.jsonl in a directory
)

// NoScanError says that a graph store cannot list its whole graph
// (graphdb.Scanner), so it cannot be exported.
type NoScanError struct {
	Store string // the store's type
}

func (e *NoScanError) Error() string {
	return fmt.Sprintf("graph export: the store %s cannot list its whole graph", e.Store)
}

// ExportGraph exports the workspace's code graph (see WriteGraph); a
// store that cannot list its graph gives a *NoScanError.
func (w *Workspace) ExportGraph(ctx context.Context, f graphdb.ExportFilter, format, out string, stdout io.Writer) (graphdb.ExportCounts, error) {
	st, err := w.OpenStore(ctx, false)
	if err != nil {
		return graphdb.ExportCounts{}, err
	}
	defer st.Close()
	sc, ok := st.(graphdb.Scanner)
	if !ok {
		return graphdb.ExportCounts{}, &NoScanError{Store: fmt.Sprintf("%T", st)}
	}
	return WriteGraph(ctx, sc, f, format, out, stdout)
}

// WriteGraph writes the graph sc lists, as filtered by f, in format to
// out: a file for jsonl and graphml (stdout when out is "" or "-"), a
// directory (created if need be) for arangodb. A file is written beside
// its final name and renamed when complete, so a failed export never
// leaves a truncated file under the name asked for.
func WriteGraph(ctx context.Context, sc graphdb.Scanner, f graphdb.ExportFilter, format, out string, stdout io.Writer) (graphdb.ExportCounts, error) {
	if format == ExportArango {
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
		if format == ExportGraphML {
			return graphdb.ExportGraphML(ctx, sc, f, w)
		}
		return graphdb.ExportJSONL(ctx, sc, f, w)
	}
	if out == "" || out == "-" {
		return run(stdout)
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
		f, cerr := CreateTemp(name, "")
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
