//go:build cgo

package typescript

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/repofs"

	"github.com/relayhq/relay/graphdb"
)

// sourceFile is what the extraction of one TypeScript/JavaScript file yields:
// its owner (nodes and parent edges; the other edges come from
// resolution), its scope and the references to resolve.
type sourceFile struct {
	rel, module string
	decl        bool // a declaration file: scope only, no nodes
	res         frontend.FileResult
	scope       *fileScope
	refs        []ref
	types       []typeRef
	specs       []specUse // every module specifier, for imports edges
	modNode     int       // index of the module node in res.nodes
}

// ref is a call or decorator to resolve, written as a dotted expression
// ("f", "ns.f", "this.m", "this.x.m", "super", "super.m", "v.m").
type ref struct {
	from  graphdb.NodeID
	kind  graphdb.EdgeKind
	expr  string
	line  int
	class string     // local name of the enclosing top-level class
	fn    *funcInfo  // the enclosing function's locals; nil outside functions
	ctor  bool       // new C(): a class resolves to its constructor
	scope *fileScope // the scope names resolve in: the file's or a namespace's
}

// typeRef is a declared type to link: a return type (from returns typ)
// or a parameter type (typ param_of from).
type typeRef struct {
	from  graphdb.NodeID
	kind  graphdb.EdgeKind
	typ   string
	line  int
	scope *fileScope // the scope typ resolves in: the file's or a namespace's
}

// specUse is a module specifier used at a line (import, export from,
// require).
type specUse struct {
	spec string
	line int
}

// funcInfo is what a function binds: locals and parameters with their type
// expression ("" when unknown: the name only shadows top-level ones).
type funcInfo struct {
	locals map[string]string
}

type extractor struct {
	src  []byte
	f    *sourceFile
	ids  frontend.IDCounts
	test bool
	lang string
	// prefix is the namespace path of the declarations being extracted
	// ("N." in namespace N), ambient whether the namespace is declared.
	prefix     string
	ambient    bool
	shorthands []shorthandRef  // { f } properties bound at the end (bindShorthands)
	up         *sitter.Parents // each node's parent (Node.Parent walks from the root)
	sib        sitter.Siblings // previous siblings (doc comments, JSDoc)
}

// isTest reports whether rel is a test file: *.test.*, *.spec.*, or a
// file under __tests__, test or tests.
func isTest(rel string) bool {
	base := path.Base(rel)
	if strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") {
		return true
	}
	for _, d := range strings.Split(path.Dir(rel), "/") {
		if d == "__tests__" || d == "test" || d == "tests" {
			return true
		}
	}
	return false
}

// languageOf is the node Language of a file: its name in
// internal/repofs's table ("javascript" for .js, .jsx, .mjs, .cjs), which
// the search index stores too.
func languageOf(rel string) string {
	if lang, _ := repofs.Language(rel); lang == "javascript" {
		return lang
	}
	return "typescript"
}

// extract builds the sourceFile of one parsed file; up holds the tree's
// parents (indexTree). With root nil (a file not parsed) it has its file
// and module nodes only.
func extract(rel, module string, src []byte, root *sitter.Node, up *sitter.Parents) *sourceFile {
	f := &sourceFile{rel: rel, module: module, decl: isDecl(rel), scope: newScope(rel, module)}
	f.res.Rec = graphdb.FileRecord{Path: rel, Hash: frontend.ContentHash(src), Language: "typescript", Module: module, Size: int64(len(src))}
	x := &extractor{src: src, f: f, ids: map[graphdb.NodeID]int{}, test: isTest(rel), lang: languageOf(rel), up: up}
	lines := max(frontend.CountLines(src), 1)
	mid := moduleID(module)
	fid := frontend.FileID(rel)
	if !f.decl {
		x.add(graphdb.Node{ID: fid, Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel, StartLine: 1, EndLine: lines})
		x.parent(fid, mid)
	}
	if root != nil {
		for _, st := range sitter.Children(root) {
			if st.Kind() == "comment" {
				x.jsdocDecls(st)
			}
			x.top(st, mid, fid)
		}
	}
	x.bindShorthands()
	if root != nil && root.HasError() {
		x.f.res.Rec.Errors = append(x.f.res.Rec.Errors, sitter.SyntaxErrors(root)...)
	}
	x.markExported()
	if !f.decl {
		f.modNode = len(f.res.Nodes)
		x.add(graphdb.Node{ID: mid, Kind: graphdb.KindModule, SubKind: "module", Name: path.Base(module), QName: module,
			Loc: rel, StartLine: 1, EndLine: lines, Exported: true})
	}
	return f
}

func (x *extractor) add(n graphdb.Node) graphdb.NodeID {
	if x.f.decl {
		return ""
	}
	n.ID = x.ids.Unique(n.ID)
	n.Language, n.File = x.lang, x.f.rel
	n.Test, n.Testdata = x.test, frontend.IsTestdata(x.f.rel)
	x.f.res.Nodes = append(x.f.res.Nodes, n)
	return n.ID
}

func (x *extractor) parent(from, to graphdb.NodeID) {
	if from != "" {
		x.f.res.Edges = append(x.f.res.Edges, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeParent, File: x.f.rel})
	}
}

// parentOf is n's parent, nil for the root.
func (x *extractor) parentOf(n *sitter.Node) *sitter.Node { return x.up.Of(n) }

func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return n.Utf8Text(x.src)
}

// doc returns the first line of the JSDoc comment right before st.
func (x *extractor) doc(st *sitter.Node) string {
	if p := x.parentOf(st); p != nil {
		x.sib.Index(p)
	}
	return sitter.DocComment(st, x.sib.PrevNamedOf(st), x.src, "comment")
}

// signature is a declaration's header without its body, whitespace
// collapsed, at most 200 bytes.
func (x *extractor) signature(def *sitter.Node) string {
	end := def.EndByte()
	if b := def.ChildByFieldName("body"); b != nil {
		end = b.StartByte()
	}
	s := strings.Join(strings.Fields(string(x.src[def.StartByte():end])), " ")
	s = strings.TrimSuffix(strings.TrimSpace(strings.TrimSuffix(s, "=>")), "{")
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.TrimSpace(s)
}

func (x *extractor) spec(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	s := x.text(n)
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'' || s[0] == '`') {
		return s[1 : len(s)-1]
	}
	return ""
}

func (x *extractor) useSpec(spec string, n *sitter.Node) {
	if spec != "" {
		x.f.specs = append(x.f.specs, specUse{spec: spec, line: sitter.Line(n)})
	}
}

// requireSpec returns the specifier of require("m"), "" for anything else.
func (x *extractor) requireSpec(n *sitter.Node) string {
	if n == nil || n.Kind() != "call_expression" {
		return ""
	}
	fn, args := n.ChildByFieldName("function"), n.ChildByFieldName("arguments")
	if fn == nil || args == nil || x.text(fn) != "require" || args.NamedChildCount() != 1 {
		return ""
	}
	return x.spec(args.NamedChild(0))
}

// typeName reduces a type annotation to the name of one named type
// ("Foo", "ns.Foo"): generics, parentheses and `| null | undefined` are
// dropped; anything else is "".
func (x *extractor) typeName(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind() {
	case "type_annotation", "parenthesized_type", "opting_type_annotation", "asserts_annotation":
		if n.NamedChildCount() == 0 {
			return ""
		}
		return x.typeName(n.NamedChild(0))
	case "type_identifier", "identifier":
		return x.text(n)
	case "nested_type_identifier", "member_expression":
		return strings.Join(strings.Fields(x.text(n)), "")
	case "generic_type":
		if nm := n.ChildByFieldName("name"); nm != nil {
			return x.typeName(nm)
		}
		if n.NamedChildCount() > 0 {
			return x.typeName(n.NamedChild(0))
		}
	case "union_type":
		one := ""
		for _, c := range sitter.Children(n) {
			if c.Kind() == "literal_type" || c.Kind() == "predefined_type" && (x.text(c) == "undefined" || x.text(c) == "null" || x.text(c) == "void") {
				continue
			}
			if one != "" {
				return ""
			}
			one = x.typeName(c)
		}
		return one
	}
	return ""
}

// fnParams returns, for each parameter of fn (a `this` parameter left
// out) whose type is a function type, that type's parameter types; nil
// when there is none.
func (x *extractor) fnParams(fn *sitter.Node) [][]string {
	params := fn.ChildByFieldName("parameters")
	if params == nil {
		return nil
	}
	var out [][]string
	any := false
	for _, p := range x.paramList(params) {
		var types []string
		if t := p.ChildByFieldName("type"); t != nil && t.NamedChildCount() > 0 && t.NamedChild(0).Kind() == "function_type" {
			if fp := t.NamedChild(0).ChildByFieldName("parameters"); fp != nil {
				for _, q := range x.paramList(fp) {
					types = append(types, x.typeName(q.ChildByFieldName("type")))
					any = true
				}
			}
		}
		out = append(out, types)
	}
	if !any {
		return nil
	}
	return out
}

// paramList lists formal parameters without a leading `this` parameter.
func (x *extractor) paramList(params *sitter.Node) []*sitter.Node {
	var out []*sitter.Node
	for _, p := range sitter.Children(params) {
		switch p.Kind() {
		case "required_parameter", "optional_parameter", "identifier", "rest_pattern", "object_pattern", "array_pattern", "assignment_pattern":
			if pat := p.ChildByFieldName("pattern"); pat != nil && pat.Kind() == "this" {
				continue
			}
			out = append(out, p)
		}
	}
	return out
}

// dotted renders identifier/member chains ("a.b.c", "this.m", "super.m");
// "" for anything else.
func (x *extractor) dotted(n *sitter.Node) string { return x.dottedIn(n, sitter.MaxDottedParts) }

// dottedIn is dotted for a chain of at most parts links.
func (x *extractor) dottedIn(n *sitter.Node, parts int) string {
	if n == nil || parts == 0 {
		return ""
	}
	switch n.Kind() {
	case "identifier", "type_identifier":
		return x.text(n)
	case "call_expression":
		// f().m(): an instance of what f returns.
		if c := x.dottedIn(n.ChildByFieldName("function"), parts-1); c != "" && c[0] != '^' && !strings.HasPrefix(c, "this.") && c != "super" {
			return "^()" + strings.ReplaceAll(c, ".", ":")
		}
	case "new_expression":
		// new C().m(): "^C" stands for an instance of C (dots in C's name
		// written as ":").
		if c := x.dottedIn(n.ChildByFieldName("constructor"), parts-1); c != "" && c[0] != '^' {
			return "^" + strings.ReplaceAll(c, ".", ":")
		}
	case "this":
		return "this"
	case "super":
		return "super"
	case "non_null_expression", "parenthesized_expression":
		if n.NamedChildCount() == 1 {
			return x.dottedIn(n.NamedChild(0), parts-1)
		}
	case "as_expression", "satisfies_expression", "type_assertion":
		// (x as C).m(): an instance of C.
		if n.NamedChildCount() == 2 {
			t := n.NamedChild(1)
			if n.Kind() == "type_assertion" {
				t = n.NamedChild(0)
			}
			if tn := x.typeName(t); tn != "" {
				return "^" + strings.ReplaceAll(tn, ".", ":")
			}
		}
	case "member_expression", "nested_identifier", "jsx_namespace_name":
		obj, prop := n.ChildByFieldName("object"), n.ChildByFieldName("property")
		if obj == nil || prop == nil {
			if n.NamedChildCount() == 2 {
				obj, prop = n.NamedChild(0), n.NamedChild(1)
			} else {
				return ""
			}
		}
		if o := x.dottedIn(obj, parts-1); o != "" {
			return o + "." + x.text(prop)
		}
	}
	return ""
}

// valueType is the type expression of a variable's initial value: the
// class of `new C()`, "()f" for the result of calling f, the type of an
// `as T` assertion; "" otherwise.
func (x *extractor) valueType(v *sitter.Node) string {
	if v == nil {
		return ""
	}
	switch v.Kind() {
	case "new_expression":
		return x.dotted(v.ChildByFieldName("constructor"))
	case "await_expression", "parenthesized_expression", "non_null_expression":
		if v.NamedChildCount() == 1 {
			return x.valueType(v.NamedChild(0))
		}
	case "call_expression":
		if d := x.dotted(v.ChildByFieldName("function")); d != "" && d != "require" {
			return "()" + d
		}
	case "as_expression", "satisfies_expression":
		if v.NamedChildCount() == 2 {
			return x.typeName(v.NamedChild(1))
		}
	}
	return ""
}

// markExported flags the top-level declarations an export list, export
// default or CommonJS export names.
func (x *extractor) markExported() {
	s := x.f.scope
	names := map[string]bool{s.Whole: true}
	for _, l := range s.Exports {
		names[l] = true
	}
	for i := range x.f.res.Nodes {
		n := &x.f.res.Nodes[i]
		if (n.Kind == graphdb.KindFunction || n.Kind == graphdb.KindType) && names[n.Name] && n.QName == x.f.module+"."+n.Name {
			n.Exported = true
		}
	}
}
