package retrieve

import (
	"os"
	"path/filepath"
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

	// A file modified just before a build is racy: never trusted by stat.
	fresh := filepath.Join(root, "conf/app.yaml")
	os.WriteFile(fresh, []byte("timeout: 60s\nretries: 3\n"), 0o644)
	if _, err := Build(t.Context(), root, nil, BuildOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, ok := quickUnchanged(dir, root, paths, graph, nil); ok {
		t.Error("quickUnchanged trusted a file modified within the racy window")
	}
}
