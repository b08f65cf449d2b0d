//go:build cgo

package typescript

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/relayhq/relay/index/internal/frontend"
)

// TestResolveSpecifiers checks module specifier resolution: relative
// paths, extensions, index files, ".js" written for ".ts", tsconfig paths
// and baseUrl through extends (with comments and trailing commas),
// workspace packages by main, exports and a dist → src fallback, and
// specifiers that must not resolve.
func TestResolveSpecifiers(t *testing.T) {
	files := map[string]bool{}
	for _, f := range []string{
		"src/a.ts", "src/b/index.tsx", "src/c.mts", "src/util/str.ts", "src/types.d.ts", "lib/old.js",
		"packages/core/src/index.ts", "packages/core/src/sub/x.ts", "packages/ui/lib/main.js",
		"apps/web/src/page.ts", "apps/web/src/shared/log.ts",
	} {
		files[f] = true
	}
	configs := map[string]string{
		"tsconfig.base.json":         "{\n // base\n \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@u/*\": [\"src/util/*\"], }, },\n}",
		"tsconfig.json":              `{"extends": "./tsconfig.base.json"}`,
		"apps/web/tsconfig.json":     `{"compilerOptions": {"paths": {"~/*": ["./src/*"]}}}`,
		"packages/core/package.json": `{"name": "@acme/core", "main": "dist/index.js", "exports": {".": {"types": "./dist/index.d.ts", "default": "./dist/index.js"}, "./sub/*": "./dist/sub/*.js"}}`,
		"packages/ui/package.json":   `{"name": "ui", "main": "lib/main.js"}`,
	}
	read := func(rel string) ([]byte, error) {
		if s, ok := configs[rel]; ok {
			return []byte(s), nil
		}
		return nil, fmt.Errorf("no %s", rel)
	}
	r := newResolver(files, frontend.SortedKeys(configs), read)
	tests := []struct{ from, spec, want string }{
		{"src/a.ts", "./c", "src/c.mts"},
		{"src/a.ts", "./b", "src/b/index.tsx"},
		{"src/a.ts", "./util/str.js", "src/util/str.ts"},
		{"src/a.ts", "./types", "src/types.d.ts"},
		{"src/a.ts", "../lib/old", "lib/old.js"},
		{"src/a.ts", "../../outside", ""},
		{"src/a.ts", "@u/str", "src/util/str.ts"},
		{"src/a.ts", "src/a", "src/a.ts"}, // baseUrl
		{"src/a.ts", "@acme/core", "packages/core/src/index.ts"},
		{"src/a.ts", "@acme/core/sub/x", "packages/core/src/sub/x.ts"},
		{"src/a.ts", "ui", "packages/ui/lib/main.js"},
		{"src/a.ts", "react", ""},
		{"apps/web/src/page.ts", "~/shared/log", "apps/web/src/shared/log.ts"},
		{"apps/web/src/page.ts", "@u/str", ""}, // the nearest tsconfig.json does not extend the base
	}
	for _, tt := range tests {
		if got := r.resolve(tt.from, tt.spec); got != tt.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tt.from, tt.spec, got, tt.want)
		}
	}
	got := string(stripJSONC([]byte("{\"a\": \"// not a comment\", /* c */ \"b\": [1, 2,],\n}")))
	if diff := cmp.Diff("{\"a\": \"// not a comment\",  \"b\": [1, 2]\n}", got); diff != "" {
		t.Errorf("stripJSONC (-want +got):\n%s", diff)
	}
}
