package workspace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/review"
	"github.com/relayhq/relay/tools"
	"github.com/relayhq/relay/udiff"
)

// sendDiff modifies the body of notify.Service.Send in examples/sample.
const sendDiff = `--- a/notify/notify.go
+++ b/notify/notify.go
@@ -48,3 +48,3 @@ func (s *Service) Send(ctx context.Context, m Message) error {
 	ch, err := channelFor(m.To)
-	if err != nil {
+	if err != nil || ch == "" {
 		return err
`

// sampleWorkspace is a workspace over a copy of examples/sample, not yet
// indexed, closed when the test ends.
func sampleWorkspace(t *testing.T) *Workspace {
	t.Helper()
	o, _ := testOptions(t, sampleRepo(t))
	w := New(o)
	t.Cleanup(func() { w.Close() })
	return w
}

// TestQueries: the queries a front end answers from an indexed workspace
// (graph, search, review, export), and what each does before the index
// exists.
func TestQueries(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := sampleWorkspace(t)
	r, closeFn, err := w.GraphReader(ctx)
	if err != nil || r != nil {
		t.Fatalf("GraphReader before relay index = %v, %v; want no reader and no error", r, err)
	}
	closeFn()
	if _, err := w.AnswerGraph(ctx, "callers", []string{"Service.Send"}, 1); !errors.Is(err, graphdb.ErrNotFound) {
		t.Fatalf("AnswerGraph before the index: %v, want graphdb.ErrNotFound", err)
	}
	if _, err := w.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}

	r, closeFn, err = w.GraphReader(ctx)
	if err != nil || r == nil {
		t.Fatalf("GraphReader = %v, %v", r, err)
	}
	closeFn()
	for _, name := range []string{tools.GraphName, tools.ReadName} {
		tool, closeFn, err := w.Tool(ctx, name, tools.Options{})
		if err != nil {
			t.Fatalf("Tool(%s): %v", name, err)
		}
		args := map[string]string{tools.GraphName: `{"operation": "callers", "target": "Service.Send"}`, tools.ReadName: `{"file": "notify/notify.go", "num_lines": 3}`}[name]
		res, err := tool.Call(ctx, []byte(args))
		closeFn()
		if err != nil || res.IsError {
			t.Errorf("%s tool: %+v, %v", name, res, err)
		}
	}
	if _, _, err := w.Tool(ctx, "shell", tools.Options{}); err == nil {
		t.Error("Tool(shell) built a tool")
	}
	ans, err := w.AnswerGraph(ctx, "blast-radius", []string{"notify.SMSSender.Send", "Service.Send"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Operation != tools.OpBlastRadius || ans.Blast == nil || !strings.Contains(ans.Target.QName, ", ") {
		t.Errorf("blast radius of two targets = %+v", ans)
	}

	res, err := w.Search(ctx, "Service.Send", retrieve.SearchOptions{Limit: 3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !strings.Contains(res.Hits[0].Location(), "notify/notify.go") {
		t.Errorf("search Service.Send = %+v", res)
	}

	fbs, err := w.FeedbackStore()
	if err != nil {
		t.Fatal(err)
	}
	if err := fbs.Add(review.Feedback{File: "notify/notify.go", Line: 49, Comment: "check the channel", Accepted: true}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(fbs.Path(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{not json\n")
	f.Close()
	diffs, err := udiff.Parse(strings.NewReader(sendDiff))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := w.Review(ctx, diffs, ReviewOptions{Depth: review.DepthDeep})
	if err != nil {
		t.Fatal(err)
	}
	if len(rc.Changed) != 1 || rc.Changed[0].QName != "example.com/sample/notify.Service.Send" {
		t.Errorf("changed = %+v, want Service.Send", rc.Changed)
	}
	if rc.FeedbackPath != fbs.Path() || len(rc.Skipped) != 1 || !strings.Contains(rc.Markdown(review.DefaultBudget), "check the channel") {
		t.Errorf("feedback: path %s, skipped %q, markdown:\n%s", rc.FeedbackPath, rc.Skipped, rc.Markdown(review.DefaultBudget))
	}
	embedErr := errors.New("no endpoint")
	if _, err := w.Review(ctx, diffs, ReviewOptions{Depth: review.DepthDeep, Embedder: func() (retrieve.Embedder, error) { return nil, embedErr }}); !errors.Is(err, embedErr) {
		t.Errorf("Review with a failing embedder: %v", err)
	}

	st, err := w.OpenStore(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sc := st.(graphdb.Scanner)
	var stdout bytes.Buffer
	c, err := w.ExportGraph(ctx, graphdb.ExportFilter{}, ExportJSONL, "-", &stdout)
	if err != nil || c.Nodes == 0 || strings.Count(stdout.String(), "\n") != c.Nodes+c.Edges {
		t.Errorf("export to stdout: %+v, %v, %d lines", c, err, strings.Count(stdout.String(), "\n"))
	}
	dir := t.TempDir()
	if _, err := WriteGraph(ctx, sc, graphdb.ExportFilter{}, ExportArango, filepath.Join(dir, "arango"), nil); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"nodes.jsonl", "edges.jsonl"} {
		if fi, err := os.Stat(filepath.Join(dir, "arango", name)); err != nil || fi.Size() == 0 {
			t.Errorf("arangodb export %s: %v", name, err)
		}
	}
	missing := filepath.Join(dir, "no", "graph.graphml")
	if _, err := WriteGraph(ctx, sc, graphdb.ExportFilter{}, ExportGraphML, missing, nil); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("export into a missing folder: %v", err)
	}
}

// TestExportGraphFailureLeavesNoFile: an export that fails part way
// leaves neither the file asked for nor its temporary file.
func TestExportGraphFailureLeavesNoFile(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	w := sampleWorkspace(t)
	if _, err := w.Index(ctx, IndexOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := w.OpenStore(ctx, false)
	if err != nil {
		t.Fatal(err)
	}
	st.Close() // a closed store fails the scan
	dir := t.TempDir()
	out := filepath.Join(dir, "graph.jsonl")
	if _, err := WriteGraph(ctx, st.(graphdb.Scanner), graphdb.ExportFilter{}, ExportJSONL, out, nil); err == nil {
		t.Fatal("export from a closed store succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left after a failed export: %v", left)
	}
}
