package archdoc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/mod/modfile"
	"golang.org/x/tools/go/packages"
)

const (
	archFile    = "ARCHITECTURE.md"
	agentsFile  = "AGENTS.md"
	mapHeading  = "Packages"
	ruleHeading = "Import rules"
	rulesInfo   = "imports"
)

// TestArchitectureDoc checks the repository's ARCHITECTURE.md and
// AGENTS.md against the module's packages and imports.
func TestArchitectureDoc(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	graph := loadGraph(t, root)
	arch := readDoc(t, root, archFile)
	agents := readDoc(t, root, agentsFile)
	dirExists := func(p string) bool {
		fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(p)))
		return err == nil && fi.IsDir()
	}
	for _, p := range check(graph, arch, agents, dirExists) {
		t.Error(p)
	}
}

// loadGraph lists the module's packages below root and, for each, the
// module's packages its non-test files import (paths relative to the
// module: "graphdb/embedded").
func loadGraph(t *testing.T, root string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	mod := modfile.ModulePath(data)
	if mod == "" {
		t.Fatalf("%s/go.mod names no module", root)
	}
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedImports, Dir: root, Context: t.Context()}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		t.Fatalf("list the packages: %v", err)
	}
	rel := func(path string) (string, bool) {
		if path == mod {
			return ".", true
		}
		r, ok := strings.CutPrefix(path, mod+"/")
		return r, ok
	}
	graph := map[string][]string{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			t.Errorf("package %s: %v", p.PkgPath, e)
		}
		from, ok := rel(p.PkgPath)
		if !ok {
			continue
		}
		imps := []string{}
		for path := range p.Imports {
			if to, ok := rel(path); ok {
				imps = append(imps, to)
			}
		}
		slices.Sort(imps)
		graph[from] = imps
	}
	if len(graph) == 0 {
		t.Fatalf("no package of %s below %s", mod, root)
	}
	return graph
}

func readDoc(t *testing.T, root, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatalf("read %s (it lives at the repository root): %v", name, err)
	}
	return b
}

// check returns every way the documents disagree with graph (package →
// the module's packages it imports), each as a sentence saying what to
// edit. dirExists reports whether a module-relative path is a directory.
func check(graph map[string][]string, arch, agents []byte, dirExists func(string) bool) []string {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	pkgs := make([]string, 0, len(graph))
	for p := range graph {
		pkgs = append(pkgs, p)
	}
	slices.Sort(pkgs)

	archDoc, agentsDoc := parse(arch), parse(agents)
	archRows, err := tableRows(archDoc, arch, mapHeading)
	if err != nil {
		add("%s: %v", archFile, err)
	}
	agentRows, err := tableRows(agentsDoc, agents, "")
	if err != nil {
		add("%s: %v", agentsFile, err)
	}
	for _, r := range duplicates(archRows) {
		add("%s's package map lists `%s` twice: keep one row", archFile, r)
	}
	for _, r := range duplicates(agentRows) {
		add("%s lists `%s` twice: keep one row", agentsFile, r)
	}
	for _, p := range pkgs {
		if !slices.Contains(archRows, p) {
			add("package %s is missing from %s's package map: add a row \"| `%s` | what it owns |\" to the table under \"## %s\"", p, archFile, p, mapHeading)
		}
		if !slices.Contains(agentRows, p) {
			add("package %s is missing from %s: add a row \"| `%s` | what it owns |\" to its table", p, agentsFile, p)
		}
	}
	for _, r := range archRows {
		if _, ok := graph[r]; !ok {
			add("%s's package map names `%s`, which is no package of the module (go list ./...): remove its row or correct the path", archFile, r)
		}
	}
	for _, r := range agentRows {
		if _, ok := graph[r]; !ok && !dirExists(r) {
			add("%s names `%s`, which is neither a package of the module nor a directory: remove its row or correct the path", agentsFile, r)
		}
	}

	rules, err := importRules(archDoc, arch)
	if err != nil {
		add("%s: %v", archFile, err)
		return problems
	}
	for _, r := range rules {
		for _, pat := range append([]string{r.from}, r.to...) {
			if !slices.ContainsFunc(pkgs, func(p string) bool { return match(pat, p) }) {
				add("the import rule %q (line %d of the %q block under \"## %s\" in %s) names %s, which matches no package: remove it or correct the path",
					r.text, r.line, rulesInfo, ruleHeading, archFile, pat)
			}
		}
	}
	for _, p := range pkgs {
		for _, imp := range graph[p] {
			if allowed(graph, rules, p, imp) {
				continue
			}
			if slices.ContainsFunc(rules, func(r rule) bool { return match(r.from, p) }) {
				add("%s imports %s, which the import rules do not allow: add %s to the line for %s in the %q block under \"## %s\" in %s, or remove the import",
					p, imp, imp, p, rulesInfo, ruleHeading, archFile)
			} else {
				add("%s imports %s, and no import rule is written for %s: add the line \"%s -> %s\" to the %q block under \"## %s\" in %s, or remove the import",
					p, imp, p, p, imp, rulesInfo, ruleHeading, archFile)
			}
		}
	}
	return problems
}

// rule is one line of the imports block: from may import to.
type rule struct {
	from string
	to   []string
	line int    // 1-based, within the block
	text string // the line as written
}

// match reports whether the package p matches pattern: the same path, or,
// for "x/...", x or any package below it.
func match(pattern, p string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return p == base || strings.HasPrefix(p, base+"/")
	}
	return p == pattern
}

// allowed reports whether from may import to: a rule for from names to,
// or to is a package under internal/ that imports nothing of the module
// (such a leaf may be used by every package).
func allowed(graph map[string][]string, rules []rule, from, to string) bool {
	if strings.HasPrefix(to, "internal/") && len(graph[to]) == 0 {
		return true
	}
	for _, r := range rules {
		if match(r.from, from) && slices.ContainsFunc(r.to, func(pat string) bool { return match(pat, to) }) {
			return true
		}
	}
	return false
}

func duplicates(rows []string) []string {
	seen := map[string]bool{}
	var dup []string
	for _, r := range rows {
		if seen[r] && !slices.Contains(dup, r) {
			dup = append(dup, r)
		}
		seen[r] = true
	}
	return dup
}

func parse(src []byte) ast.Node {
	return goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
}

// section returns the top-level nodes of the level-2 section titled
// heading, or of the whole document for "".
func section(doc ast.Node, src []byte, heading string) []ast.Node {
	var nodes []ast.Node
	in := heading == ""
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok && h.Level <= 2 && heading != "" {
			in = h.Level == 2 && plain(h, src) == heading
			continue
		}
		if in {
			nodes = append(nodes, n)
		}
	}
	return nodes
}

// tableRows returns the first column of the first table in the section:
// each row's path, written as code (`graphdb/embedded`).
func tableRows(doc ast.Node, src []byte, heading string) ([]string, error) {
	where := "the document"
	if heading != "" {
		where = fmt.Sprintf("the section \"## %s\"", heading)
	}
	for _, n := range section(doc, src, heading) {
		tbl, ok := n.(*east.Table)
		if !ok {
			continue
		}
		var rows []string
		for r := tbl.FirstChild(); r != nil; r = r.NextSibling() {
			if _, ok := r.(*east.TableRow); !ok {
				continue // the header
			}
			cell := r.FirstChild()
			code, ok := cell.FirstChild().(*ast.CodeSpan)
			if !ok || code.NextSibling() != nil {
				return nil, fmt.Errorf("a row of the table in %s starts with %q: write the package's path alone, as code (`graphdb/embedded`)", where, plain(cell, src))
			}
			rows = append(rows, plain(code, src))
		}
		return rows, nil
	}
	return nil, fmt.Errorf("no table in %s: the package map is a table whose first column is each package's path", where)
}

// importRules reads the fenced block marked `imports` in the section
// "## Import rules": lines "FROM -> TO TO …", "#" starting a comment.
func importRules(doc ast.Node, src []byte) ([]rule, error) {
	for _, n := range section(doc, src, ruleHeading) {
		fb, ok := n.(*ast.FencedCodeBlock)
		if !ok || string(fb.Language(src)) != rulesInfo {
			continue
		}
		var rules []rule
		lines := fb.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			line := strings.TrimSpace(string(seg.Value(src)))
			body, _, _ := strings.Cut(line, "#")
			if strings.TrimSpace(body) == "" {
				continue
			}
			from, to, ok := strings.Cut(body, "->")
			f := strings.Fields(from)
			if !ok || len(f) != 1 || len(strings.Fields(to)) == 0 {
				return nil, fmt.Errorf("line %d of the %q block, %q: write \"PACKAGE -> PACKAGE PACKAGE …\"", i+1, rulesInfo, line)
			}
			rules = append(rules, rule{from: f[0], to: strings.Fields(to), line: i + 1, text: line})
		}
		return rules, nil
	}
	return nil, fmt.Errorf("no ```%s block under \"## %s\": the import rules are lines \"PACKAGE -> PACKAGE …\" in one", rulesInfo, ruleHeading)
}

// plain is the text of n's inline content.
func plain(n ast.Node, src []byte) string {
	var b bytes.Buffer
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
			if c.SoftLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return strings.TrimSpace(b.String())
}

// TestCheck runs check on small documents: each case's problems name the
// package and what to edit.
func TestCheck(t *testing.T) {
	graph := map[string][]string{
		"cmd/relay":      {"graphdb", "internal/leaf"},
		"graphdb":        {},
		"graphdb/memory": {"graphdb"},
		"internal/leaf":  {},
		"internal/mid":   {"internal/leaf"},
	}
	agents := "# map\n\n| path | owns |\n|---|---|\n" +
		"| `cmd/relay` | x |\n| `graphdb` | x |\n| `graphdb/memory` | x |\n| `internal/leaf` | x |\n| `internal/mid` | x |\n| `examples` | x |\n"
	arch := func(rows, rules string) []byte {
		return []byte("# A\n\n## Packages\n\n| package | owns |\n|---|---|\n" + rows +
			"\n## Import rules\n\n```imports\n# comment\n" + rules + "```\n\n## Other\n\n| `nope` | not the map |\n")
	}
	allRows := "| `cmd/relay` | x |\n| `graphdb` | x |\n| `graphdb/memory` | x |\n| `internal/leaf` | x |\n| `internal/mid` | x |\n"
	okRules := "cmd/relay -> graphdb/...\ngraphdb/... -> graphdb\n"
	dirs := func(p string) bool { return p == "examples" }
	for _, tc := range []struct {
		name         string
		arch, agents string
		graph        map[string][]string
		want         []string
	}{
		{name: "true to the code", arch: string(arch(allRows, okRules)), agents: agents, graph: graph},
		{
			name: "package missing from both", arch: string(arch(strings.Replace(allRows, "| `internal/mid` | x |\n", "", 1), okRules)),
			agents: strings.Replace(agents, "| `internal/mid` | x |\n", "", 1), graph: graph,
			want: []string{
				"package internal/mid is missing from ARCHITECTURE.md's package map: add a row \"| `internal/mid` | what it owns |\" to the table under \"## Packages\"",
				"package internal/mid is missing from AGENTS.md: add a row \"| `internal/mid` | what it owns |\" to its table",
			},
		},
		{
			name: "rows for packages that do not exist", arch: string(arch(allRows+"| `index/golang` | x |\n", okRules)),
			agents: agents + "| `gone` | x |\n", graph: graph,
			want: []string{
				"ARCHITECTURE.md's package map names `index/golang`, which is no package of the module (go list ./...): remove its row or correct the path",
				"AGENTS.md names `gone`, which is neither a package of the module nor a directory: remove its row or correct the path",
			},
		},
		{
			name: "an import no rule allows", arch: string(arch(allRows, "cmd/relay -> graphdb\n")), agents: agents, graph: graph,
			want: []string{
				"graphdb/memory imports graphdb, and no import rule is written for graphdb/memory: add the line \"graphdb/memory -> graphdb\" to the \"imports\" block under \"## Import rules\" in ARCHITECTURE.md, or remove the import",
			},
		},
		{
			name: "an import outside the package's rule", arch: string(arch(allRows, okRules)), agents: agents,
			graph: map[string][]string{"cmd/relay": {"graphdb"}, "graphdb": {"cmd/relay"}, "graphdb/memory": {}, "internal/leaf": {}, "internal/mid": {"internal/leaf"}},
			want: []string{
				"graphdb imports cmd/relay, which the import rules do not allow: add cmd/relay to the line for graphdb in the \"imports\" block under \"## Import rules\" in ARCHITECTURE.md, or remove the import",
			},
		},
		{
			name: "a non-leaf internal package needs a rule", arch: string(arch(allRows, okRules)), agents: agents,
			graph: map[string][]string{"cmd/relay": {"internal/mid"}, "graphdb": {}, "graphdb/memory": {}, "internal/leaf": {}, "internal/mid": {"internal/leaf"}},
			want: []string{
				"cmd/relay imports internal/mid, which the import rules do not allow: add internal/mid to the line for cmd/relay in the \"imports\" block under \"## Import rules\" in ARCHITECTURE.md, or remove the import",
			},
		},
		{
			name: "a rule naming no package", arch: string(arch(allRows, okRules+"workspace -> graphdb\n")), agents: agents, graph: graph,
			want: []string{
				"the import rule \"workspace -> graphdb\" (line 4 of the \"imports\" block under \"## Import rules\" in ARCHITECTURE.md) names workspace, which matches no package: remove it or correct the path",
			},
		},
		{
			name: "a malformed rule", arch: string(arch(allRows, "cmd/relay graphdb\n")), agents: agents, graph: graph,
			want: []string{"ARCHITECTURE.md: line 2 of the \"imports\" block, \"cmd/relay graphdb\": write \"PACKAGE -> PACKAGE PACKAGE …\""},
		},
		{
			name: "no rules block", arch: "# A\n\n## Packages\n\n| p | o |\n|---|---|\n" + allRows, agents: agents, graph: graph,
			want: []string{"ARCHITECTURE.md: no ```imports block under \"## Import rules\": the import rules are lines \"PACKAGE -> PACKAGE …\" in one"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := check(tc.graph, []byte(tc.arch), []byte(tc.agents), dirs)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestTableRows(t *testing.T) {
	for _, tc := range []struct {
		name, doc, heading string
		want               []string
		err                string
	}{
		{name: "first table", doc: "# x\n\n| p | o |\n|---|---|\n| `a/b` | x |\n| `c` | y |\n", want: []string{"a/b", "c"}},
		{name: "table of the section", heading: "Packages",
			doc:  "# x\n\n| p |\n|---|\n| `no` |\n\n## Packages\n\ntext\n\n| p |\n|---|\n| `yes` |\n\n## Next\n\n| p |\n|---|\n| `no2` |\n",
			want: []string{"yes"}},
		{name: "row not a path", doc: "| p | o |\n|---|---|\n| graphdb | x |\n", err: `starts with "graphdb": write the package's path alone`},
		{name: "row with more than the path", doc: "| p | o |\n|---|---|\n| `graphdb` (and more) | x |\n", err: "write the package's path alone"},
		{name: "no table", heading: "Packages", doc: "## Packages\n\n- `graphdb`\n", err: `no table in the section "## Packages"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := []byte(tc.doc)
			got, err := tableRows(parse(src), src, tc.heading)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}
