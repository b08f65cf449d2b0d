//go:build cgo

package typescript

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/index/internal/frontend"
)

// TestModuleNames: same-stem siblings share their module name by
// extension rank, not by how the paths sort (.cjs sorts before .js, .d.ts
// before .js), so adding a CommonJS copy or a declaration file next to a
// module does not rename it.
func TestModuleNames(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  map[string]string
	}{
		{"dual package", []string{"v3/types.cjs", "v3/types.d.cts", "v3/types.d.ts", "v3/types.js"}, map[string]string{
			"v3/types.js": "v3/types", "v3/types.cjs": "v3/types.cjs", "v3/types.d.ts": "v3/types.d.ts", "v3/types.d.cts": "v3/types.d.cts",
		}},
		{"esm alone", []string{"v3/types.js"}, map[string]string{"v3/types.js": "v3/types"}},
		{"source and its output", []string{"src/a.js", "src/a.ts", "src/a.d.ts"}, map[string]string{
			"src/a.ts": "src/a", "src/a.js": "src/a.js", "src/a.d.ts": "src/a.d.ts",
		}},
		{"tsx and mjs", []string{"b.mjs", "b.tsx"}, map[string]string{"b.tsx": "b", "b.mjs": "b.mjs"}},
		{"declaration alone", []string{"lib/x.d.ts", "lib/y.d.cts"}, map[string]string{"lib/x.d.ts": "lib/x", "lib/y.d.cts": "lib/y"}},
		{"different directories", []string{"a/m.cjs", "b/m.js"}, map[string]string{"a/m.cjs": "a/m", "b/m.js": "b/m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]*frontend.DiskFile{}
			for _, f := range tt.files {
				files[f] = &frontend.DiskFile{}
			}
			if diff := cmp.Diff(tt.want, moduleNames(files)); diff != "" {
				t.Errorf("moduleNames(%v) (-want +got):\n%s", tt.files, diff)
			}
		})
	}
}
