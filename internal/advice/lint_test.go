package advice

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// adviceAllowed lists the library packages (module-relative, with their
// sub-packages) whose texts may still name relay's commands, flags and
// variables: none. cmd/ (the CLI) and internal/advice are where advice
// belongs and are never scanned.
var adviceAllowed []string

// TestNoCLIAdviceInLibraries keeps advice out of the libraries: an error
// or a text a library returns is read by the command line's user, the
// bot's issue author and a model alike, and only the first can run relay.
// It parses every non-test .go file of every library package (all but
// cmd/, commands (package main) and test helpers) and fails on a string
// literal in an error or a returned text that names a relay sub-command
// ("relay index"), a flag of relay's CLI ("--store") or a RELAY_*
// variable. Advice goes in this package's table instead.
func TestNoCLIAdviceInLibraries(t *testing.T) {
	t.Parallel()
	root := moduleRoot(t)
	flags, cmds := cliNames(t, filepath.Join(root, "cmd", "relay"))
	// The CLI's names are read from its source so that a new flag is
	// covered the day it is added; these must be among them.
	for _, want := range []string{"store", "repo", "allow-secret-files"} {
		if !flags[want] {
			t.Fatalf("no flag --%s found in cmd/relay: the flag scan is broken", want)
		}
	}
	for _, want := range []string{"index", "scope", "serve", "mcp"} {
		if !cmds[want] {
			t.Fatalf("no sub-command %q found in cmd/relay: the command scan is broken", want)
		}
	}
	found := scanLibraries(t, root, newAdviceMatcher(flags, cmds))
	for _, f := range found {
		t.Errorf("%s: %s names the CLI (%s); return a sentinel or typed error and put the advice in internal/advice", f.pos, strconv.Quote(f.text), f.what)
	}
}

// moduleRoot is the directory of go.mod above the working directory.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the working directory")
		}
		dir = parent
	}
}

// flagDef matches pflag's definers (StringVar, BoolVarP, StringSlice, Var, …).
var flagDef = regexp.MustCompile(`^(String|Bool|Int|Int64|Int32|Uint|Uint64|Float64|Duration|StringSlice|StringArray|StringToString|IntSlice|Count)?(Var)?P?$`)

// cliNames reads relay's flags (the name argument of every pflag definer)
// and sub-commands (the first word of every cobra.Command's Use) from the
// CLI's source.
func cliNames(t *testing.T, dir string) (flags, cmds map[string]bool) {
	t.Helper()
	flags, cmds = map[string]bool{}, map[string]bool{}
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || sel.Sel.Name == "" || !flagDef.MatchString(sel.Sel.Name) {
					return true
				}
				for _, a := range n.Args {
					if s, ok := stringLit(a); ok {
						flags[s] = true // the first literal is the flag's name
						break
					}
				}
			case *ast.KeyValueExpr:
				if k, ok := n.Key.(*ast.Ident); ok && k.Name == "Use" {
					if s, ok := stringLit(n.Value); ok && s != "" {
						cmds[strings.Fields(s)[0]] = true
					}
				}
			}
			return true
		})
	}
	return flags, cmds
}

func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// adviceMatcher says whether a text names relay's CLI, and how.
type adviceMatcher struct {
	command, flag, env *regexp.Regexp
}

func newAdviceMatcher(flags, cmds map[string]bool) adviceMatcher {
	quoted := func(set map[string]bool) string {
		var names []string
		for n := range set {
			names = append(names, regexp.QuoteMeta(n))
		}
		sort.Strings(names)
		return strings.Join(names, "|")
	}
	// Sub-commands that are also nouns ("the relay graph is missing")
	// count where the text reads as a command: quoted, or after "run".
	verbs, nouns := map[string]bool{}, map[string]bool{}
	for c := range cmds {
		switch c {
		case "graph", "index", "search", "review", "tool", "import", "export":
			nouns[c] = true
		default:
			verbs[c] = true
		}
	}
	return adviceMatcher{
		// "/relay scope" is the bot's comment command, not the CLI's.
		command: regexp.MustCompile(`(^|[^/\w-])relay (` + quoted(verbs) + `)\b|` +
			"(^|[`'\"(]|\\brun )relay (" + quoted(nouns) + `)\b`),
		flag: regexp.MustCompile(`(^|[\s(\x60'"=])--(` + quoted(flags) + `)([^a-z0-9-]|$)`),
		env:  regexp.MustCompile(`RELAY_[A-Z0-9_]+`),
	}
}

func (m adviceMatcher) names(text string) string {
	switch {
	case m.command.MatchString(text):
		return "a sub-command"
	case m.flag.MatchString(text):
		return "a flag"
	case m.env.MatchString(text) && strings.TrimSpace(text) != m.env.FindString(text):
		// A literal that is only the name is the variable itself (relay
		// setting it for a child), not advice.
		return "an environment variable"
	}
	return ""
}

type finding struct {
	pos, text, what string
}

// scanLibraries parses every library package under root and returns the
// texts that name the CLI, outside the allowed packages.
func scanLibraries(t *testing.T, root string, m adviceMatcher) []finding {
	t.Helper()
	var found []finding
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			base := d.Name()
			if rel != "." && (strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_") || base == "testdata" ||
				base == "node_modules" || base == "vendor" || rel == "cmd" || rel == "internal/advice" || allowedPkg(rel) || isTestHelper(rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" {
			return nil // a command (a benchmark driver, an example), not a library
		}
		for _, lit := range textLiterals(f) {
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				continue
			}
			if what := m.names(s); what != "" {
				p := fset.Position(lit.Pos())
				found = append(found, finding{pos: rel + ":" + strconv.Itoa(p.Line), text: s, what: what})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func allowedPkg(rel string) bool {
	for _, a := range adviceAllowed {
		if rel == a || strings.HasPrefix(rel, a+"/") {
			return true
		}
	}
	return false
}

// isTestHelper reports whether the package at rel exists for tests:
// internal/testutil and the *test packages (storetest, egresstest, …).
func isTestHelper(rel string) bool {
	base := filepath.Base(rel)
	return rel == "internal/testutil" || strings.HasSuffix(base, "test") && base != "test"
}

// textNames are the names of variables, fields and keys that hold a text a
// person or a model reads.
var textNames = regexp.MustCompile(`(?i)(msg|message|text|note|hint|reason|content|body|stopped)s?$`)

// textCalls are the functions whose string arguments become an error or a
// text: fmt's formatters, errors.New, tools.Errorf, a builder's WriteString.
var textCalls = map[string]bool{
	"New": true, "Errorf": true, "Sprintf": true, "Sprint": true, "Sprintln": true,
	"Fprintf": true, "Fprint": true, "Fprintln": true, "Appendf": true, "WriteString": true,
}

// textLiterals returns the string literals of f that become an error or a
// returned text: arguments of textCalls, results of a return statement,
// values of constants and variables, and values given to a field,
// variable or key named like a text (textNames). Literals passed to other
// calls (a program's arguments, a log line's message) are not texts.
func textLiterals(f *ast.File) []*ast.BasicLit {
	var out []*ast.BasicLit
	var collect func(e ast.Expr)
	collect = func(e ast.Expr) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				out = append(out, e)
			}
		case *ast.BinaryExpr:
			collect(e.X)
			collect(e.Y)
		case *ast.ParenExpr:
			collect(e.X)
		case *ast.UnaryExpr:
			collect(e.X)
		case *ast.CompositeLit:
			for _, el := range e.Elts {
				collect(el)
			}
		case *ast.KeyValueExpr:
			collect(e.Value)
		case *ast.CallExpr:
			if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "append" {
				for _, a := range e.Args {
					collect(a)
				}
			}
		}
	}
	named := func(e ast.Expr) bool {
		switch e := e.(type) {
		case *ast.Ident:
			return textNames.MatchString(e.Name)
		case *ast.SelectorExpr:
			return textNames.MatchString(e.Sel.Name)
		}
		return false
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			name := ""
			switch fn := n.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			if textCalls[name] {
				for _, a := range n.Args {
					collect(a)
				}
			}
		case *ast.ReturnStmt:
			for _, r := range n.Results {
				if _, call := r.(*ast.CallExpr); !call {
					collect(r)
				}
			}
		case *ast.ValueSpec:
			if n.Names != nil {
				for _, v := range n.Values {
					collect(v)
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if named(l) && i < len(n.Rhs) {
					collect(n.Rhs[i])
				}
			}
		case *ast.KeyValueExpr:
			if named(n.Key) {
				collect(n.Value)
			}
		}
		return true
	})
	return out
}
