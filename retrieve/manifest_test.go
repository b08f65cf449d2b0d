package retrieve

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestManifestFastPath(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".relay")
	files := map[string]string{
		"README.md":     "# Billing\n\nInvoices are rounded to cents.\n",
		"conf/app.yaml": "timeout: 30s\nretries: 3\n",
	}
	old := time.Now().Add(-time.Hour)
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
		os.Chtimes(p, old, old)
	}
	first, err := Build(t.Context(), root, nil, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths, err := walkFiles(root, "")
	if err != nil {
		t.Fatal(err)
	}
	graph := map[string]string{}
	st, ok := quickUnchanged(dir, root, paths, graph, nil)
	if !ok || st.Files != first.Files || st.Reused != first.Files || st.Changed != 0 || st.Chunks != first.Chunks {
		t.Fatalf("quickUnchanged after a build = %+v, %v; want up to date with %+v", st, ok, first)
	}
	again, err := Build(t.Context(), root, nil, BuildOptions{})
	if err != nil || again.Changed != 0 || again.Reused != first.Files {
		t.Errorf("second build = %+v, %v", again, err)
	}

	tests := []struct {
		name   string
		change func(t *testing.T) ([]string, map[string]string, Embedder)
	}{
		{"file touched", func(t *testing.T) ([]string, map[string]string, Embedder) {
			p := filepath.Join(root, "README.md")
			now := time.Now()
			os.Chtimes(p, now, now)
			t.Cleanup(func() { os.Chtimes(p, old, old) })
			return paths, graph, nil
		}},
		{"graph hash changed", func(t *testing.T) ([]string, map[string]string, Embedder) {
			return paths, map[string]string{"README.md": "x"}, nil
		}},
		{"file added", func(t *testing.T) ([]string, map[string]string, Embedder) {
			return append(append([]string(nil), paths...), "new.md"), graph, nil
		}},
		{"file removed", func(t *testing.T) ([]string, map[string]string, Embedder) {
			return paths[:1], graph, nil
		}},
		{"embeddings model", func(t *testing.T) ([]string, map[string]string, Embedder) {
			return paths, graph, &HTTPEmbedder{Name: "m"}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, g, emb := tt.change(t)
			if _, ok := quickUnchanged(dir, root, ps, g, emb); ok {
				t.Error("quickUnchanged trusted a changed repository")
			}
		})
	}

	// A file modified just before a build is racy: its stamp alone proves
	// nothing, but its content hash, recorded for it, does.
	fresh := filepath.Join(root, "conf/app.yaml")
	os.WriteFile(fresh, []byte("timeout: 60s\nretries: 3\n"), 0o644)
	if _, err := Build(t.Context(), root, nil, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := quickUnchanged(dir, root, paths, graph, nil); !ok {
		t.Error("quickUnchanged did not trust a racy file whose content hash matches")
	}
	// The same size and modification time with other content (a write in
	// the same clock tick): the hash tells them apart.
	fi, err := os.Stat(fresh)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(fresh, []byte("timeout: 90s\nretries: 3\n"), 0o644)
	os.Chtimes(fresh, fi.ModTime(), fi.ModTime())
	if _, ok := quickUnchanged(dir, root, paths, graph, nil); ok {
		t.Error("quickUnchanged trusted a racy file whose content changed")
	}
	st, err = Build(t.Context(), root, nil, BuildOptions{})
	if err != nil || st.Changed != 1 {
		t.Errorf("build after a same-stamp change = %+v, %v; want one file changed", st, err)
	}
}

// TestNoChangeRunAfterEdit: the run right after an edit's run finds the
// index up to date from the manifest, hashing only the edited file (inside
// the racy window), instead of checking every file against the index.
func TestNoChangeRunAfterEdit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 40 {
		p := filepath.Join(root, fmt.Sprintf("docs/n%02d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nInvoices are rounded, note %d.\n", i, i)), 0o644)
		os.Chtimes(p, old, old)
	}
	if _, err := Build(t.Context(), root, nil, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "docs/n07.md"), []byte("# Note 7\n\nRefunds are rounded up.\n"), 0o644)
	st, err := Build(t.Context(), root, nil, BuildOptions{})
	if err != nil || st.Changed != 1 {
		t.Fatalf("edit run = %+v, %v", st, err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	st, err = Build(t.Context(), root, nil, BuildOptions{Log: log})
	if err != nil || st.Changed != 0 || st.Reused != 40 {
		t.Fatalf("no-change run = %+v, %v", st, err)
	}
	if !strings.Contains(logs.String(), "retrieval index up to date (manifest)") {
		t.Errorf("the no-change run after an edit checked the index: %s", logs.String())
	}
}

// TestEditRunReadsTheEditedFile: an update after an edit, under the stale
// mark relay index makes before it, reads only the files the manifest's
// stamps do not prove unchanged — the edited one — to find what changed.
func TestEditRunReadsTheEditedFile(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, ".relay")
	old := time.Now().Add(-time.Hour)
	for i := range 30 {
		p := filepath.Join(root, fmt.Sprintf("docs/n%02d.md", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("# Note %d\n\nInvoices are rounded, note %d.\n", i, i)), 0o644)
		os.Chtimes(p, old, old)
	}
	if _, err := Build(t.Context(), root, nil, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "docs/n07.md"), []byte("# Note 7\n\nRefunds are rounded up.\n"), 0o644)
	if err := MarkStale(dir); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	st, err := Build(t.Context(), root, nil, BuildOptions{Log: log})
	if err != nil || st.Changed != 1 || st.Reused != 29 {
		t.Fatalf("edit run = %+v, %v", st, err)
	}
	if !strings.Contains(logs.String(), `msg="search index: files checked" read=1 `) {
		t.Errorf("the edit run read more than the edited file to find it: %s", logs.String())
	}
}
