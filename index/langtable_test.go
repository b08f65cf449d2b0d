package index

import (
	"path"
	"slices"
	"testing"

	"github.com/relayhq/relay/internal/repofs"
)

// langTable is, for each indexed language (frontend.Lang.Name), the names
// internal/repofs's language table gives its source files, and sample
// paths: claimed, ones its Source must claim; near, ones close to them
// (other case, other extensions of the same table language, names that
// are only an extension) that it may claim or not.
var langTable = map[string]struct {
	repofs        []string
	claimed, near []string
}{
	"go": {
		repofs:  []string{"go"},
		claimed: []string{"a.go", "p/q/b_test.go", "testdata/x.go"},
		near:    []string{".go", "A.GO", "_tools/t.go", "p/_x/y.go", "go.mod", "go.work", "go.sum", "a.go.txt"},
	},
	"python": {
		repofs:  []string{"python"},
		claimed: []string{"a.py", "pkg/__init__.py", "_private/m.py"},
		near:    []string{"a.pyi", "A.PY", ".py", "a.pyc", "a.pyw", "a.py.txt"},
	},
	"c": {
		repofs:  []string{"c"},
		claimed: []string{"a.c", "src/a.h", "include/x/y.h"},
		near:    []string{".c", ".h", "A.C", "a.cc", "a.cpp", "a.hpp", "a.c.orig"},
	},
	"java": {
		repofs:  []string{"java"},
		claimed: []string{"A.java", "src/main/java/p/B.java"},
		near:    []string{".java", "A.JAVA", "A.class", "A.jav", "A.java.orig"},
	},
	"typescript": {
		repofs: []string{"typescript", "javascript"},
		claimed: []string{
			"a.ts", "a.tsx", "esm.mts", "cjs.cts", "a.js", "a.jsx", "a.mjs", "a.cjs",
			"types/index.d.ts", "types/index.d.mts", "web/app.min.mjs",
		},
		near: []string{".ts", ".js", "A.TS", "a.Js", "app.min.js", "a.ts.map", "a.json", "tsconfig.json", "package.json", "a.mtsx"},
	},
	"cpp": {
		repofs:  []string{"cpp", "c"}, // .h is "c" in repofs's table; C claims it and yields it to C++ in a repository with C++ sources
		claimed: []string{"a.cc", "src/b.cpp", "c.cxx", "include/d.hpp", "e.hh", "f.hxx", "include/g.h"},
		near:    []string{".cc", "A.CC", "a.c", "a.cc.orig", "a.hpp.in"},
	},
	"rust": {
		repofs:  []string{"rust"},
		claimed: []string{"src/lib.rs", "crates/a/src/b/mod.rs", "tests/it.rs"},
		near:    []string{".rs", "A.RS", "Cargo.toml", "a.rs.bk", "src/.rs"},
	},
}

// TestSourceClaimsFollowRepofs: every file a registered language claims
// as source is one internal/repofs's language table gives that language
// (the table the search index uses), so that the indexer and the search
// agree on what a language's file is; each language claims its samples.
// A language added to fileLangs needs its row in langTable.
func TestSourceClaimsFollowRepofs(t *testing.T) {
	t.Parallel()
	var all []string
	for _, row := range langTable {
		all = append(all, row.claimed...)
		all = append(all, row.near...)
	}
	slices.Sort(all)
	for _, l := range fileLangs {
		row, ok := langTable[l.Name]
		if !ok {
			t.Errorf("language %q has no row in langTable", l.Name)
			continue
		}
		for _, rel := range all {
			claimed := l.Source(rel, path.Base(rel))
			if want := slices.Contains(row.claimed, rel); want && !claimed {
				t.Errorf("%s does not claim %s", l.Name, rel)
			}
			if !claimed {
				continue
			}
			if lang, ok := repofs.Language(rel); !ok || !slices.Contains(row.repofs, lang) {
				t.Errorf("%s claims %s, whose repofs.Language is %q (read: %v), not one of %q", l.Name, rel, lang, ok, row.repofs)
			}
		}
	}
}
