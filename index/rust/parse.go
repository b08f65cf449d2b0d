//go:build cgo

package rust

import (
	"path"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"
)

// sourceFile is what the extraction of one Rust file yields: its owner
// (nodes and the edges syntax alone gives; resolution adds the others),
// its scope, and the work resolution does while the tree is alive.
type sourceFile struct {
	rel    string
	mod    fileMod
	res    frontend.FileResult
	scope  *fileScope
	bodies []codeBody
	uses   []typeUse
	impls  []implSite
	fileN  int // index of the file node in res.Nodes
	// trees are the item macros' bodies parsed again (itemmacro.go),
	// alive until the bodies in them are resolved; Close them
	trees []*sitter.Tree
}

// close frees the trees of the item macros' bodies.
func (f *sourceFile) close() {
	for _, t := range f.trees {
		t.Close()
	}
	f.trees = nil
}

// codeBody is a function's code: its calls are resolved in pass two.
type codeBody struct {
	src     []byte // the text the nodes are of (an item macro's body is parsed apart)
	lineOff int    // the line of the file the text's first line is, less one
	from    graphdb.NodeID
	mod     string // the module the code is in
	self    string // the impl's or trait's Self type ("" outside them)
	gen     map[string]string
	params  *sitter.Node
	body    *sitter.Node
}

// typeUse is a type as written that an edge points at: a return type, a
// parameter type, a supertrait, a derive.
type typeUse struct {
	from    graphdb.NodeID
	kind    graphdb.EdgeKind
	text    string
	mod     string
	self    string
	line    int
	reverse bool // param_of: the type is the edge's From
}

// implSite is an impl block whose Self type and trait resolve in pass
// two: its methods' parent and the implements edge.
type implSite struct {
	decl    *implDecl
	mod     string
	line    int
	methods []graphdb.NodeID
}

// isTestPath reports whether rel lies in a crate's tests/ or benches/.
func isTestPath(rel string) bool {
	return strings.HasPrefix(rel, "tests/") || strings.Contains(rel, "/tests/") || strings.HasPrefix(rel, "benches/") || strings.Contains(rel, "/benches/")
}

// moduleID is the id of a module's node.
// Its prefix keeps it apart from an item of the same path (main.rs's fn
// search beside the module search.rs).
func moduleID(p string) graphdb.NodeID { return graphdb.NodeID("rust:mod:" + p) }

// extractor walks one file's declarations.
type extractor struct {
	src []byte
	f   *sourceFile
	lay *layout
	ids frontend.IDCounts
	// reparse parses an item macro's body (nil: item macros are not
	// read); lineOff is the line of the file src's first line is, less
	// one, and nesting how deep in item macros the walk is
	reparse func([]byte) *sitter.Tree
	lineOff int
	nesting int
}

func (x *extractor) line(n *sitter.Node) int    { return sitter.Line(n) + x.lineOff }
func (x *extractor) endLine(n *sitter.Node) int { return sitter.EndLine(n) + x.lineOff }

// extract builds the sourceFile of one parsed file; with root nil (the
// file was not parsed), its file and module nodes only.
func extract(rel string, m fileMod, lay *layout, src []byte, root *sitter.Node, reparse func([]byte) *sitter.Tree) *sourceFile {
	f := &sourceFile{rel: rel, mod: m, scope: &fileScope{file: rel}}
	x := &extractor{src: src, f: f, lay: lay, ids: frontend.IDCounts{}, reparse: reparse}
	f.res.Rec = graphdb.FileRecord{Path: rel, Hash: frontend.ContentHash(src), Language: "rust", Module: m.Path, Size: int64(len(src))}
	fid := frontend.FileID(rel)
	f.fileN = len(f.res.Nodes)
	test := m.Test || isTestPath(rel)
	x.add(graphdb.Node{ID: fid, Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel, StartLine: 1, EndLine: max(frontend.CountLines(src), 1)}, test)
	sub := "module"
	if m.Root {
		sub = "crate"
	}
	mid := x.add(graphdb.Node{ID: moduleID(m.Path), Kind: graphdb.KindModule, SubKind: sub, Name: lastSeg(m.Path), QName: m.Path, Loc: rel,
		StartLine: 1, EndLine: max(frontend.CountLines(src), 1), Signature: "mod " + m.Path, Exported: true}, test)
	x.parent(fid, mid)
	ms := &modScope{Path: m.Path}
	f.scope.Mods = append(f.scope.Mods, ms)
	if root != nil {
		x.items(root, ms, fid, test)
		if root.HasError() {
			f.res.Rec.Errors = append(f.res.Rec.Errors, sitter.SyntaxErrors(root)...)
		}
	}
	return f
}

func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return n.Utf8Text(x.src)
}

func (x *extractor) add(n graphdb.Node, test bool) graphdb.NodeID {
	n.ID = x.ids.Unique(n.ID)
	n.Language, n.File = "rust", x.f.rel
	n.Test, n.Testdata = test, frontend.IsTestdata(x.f.rel)
	x.f.res.Nodes = append(x.f.res.Nodes, n)
	return n.ID
}

func (x *extractor) parent(from, to graphdb.NodeID) {
	x.f.res.Edges = append(x.f.res.Edges, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeParent, File: x.f.rel})
}

// decoration is what precedes an item: its attributes and doc comment.
type decoration struct {
	attrs []string // attribute texts without #[ ]: "derive(Debug, Clone)", "cfg(test)"
	doc   string
}

// test reports whether the attributes mark test code: #[test],
// #[cfg(test)], #[tokio::test] and the like.
func (d decoration) test() bool {
	for _, a := range d.attrs {
		name, args, _ := strings.Cut(a, "(")
		if name == "test" || strings.HasSuffix(name, "::test") || name == "cfg" && hasWord(args, "test") {
			return true
		}
	}
	return false
}

// derives lists the names of #[derive(…)].
func (d decoration) derives() []string {
	var out []string
	for _, a := range d.attrs {
		if args, ok := strings.CutPrefix(a, "derive("); ok {
			for _, n := range strings.Split(strings.TrimSuffix(args, ")"), ",") {
				if n = strings.TrimSpace(n); n != "" {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// attrValue returns the value of #[name = "value"], "" when absent.
func (d decoration) attrValue(name string) string {
	for _, a := range d.attrs {
		if v, ok := strings.CutPrefix(a, name); ok {
			if v, ok = strings.CutPrefix(strings.TrimSpace(v), "="); ok {
				return strings.Trim(strings.TrimSpace(v), `"`)
			}
		}
	}
	return ""
}

// hasWord reports whether s holds w as a whole identifier.
func hasWord(s, w string) bool {
	for _, f := range strings.FieldsFunc(s, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if f == w {
			return true
		}
	}
	return false
}

// items extracts the declarations under n (a source file or a
// declaration list) into module ms, their nodes under parent.
func (x *extractor) items(n *sitter.Node, ms *modScope, parent graphdb.NodeID, test bool) {
	var dec decoration
	for _, c := range sitter.Children(n) {
		switch c.Kind() {
		case "attribute_item":
			dec.attrs = append(dec.attrs, strings.Join(strings.Fields(x.text(sitter.Children(c)[0])), " "))
			continue
		case "line_comment", "block_comment":
			if s := x.text(c); strings.HasPrefix(s, "///") || strings.HasPrefix(s, "/**") {
				if dec.doc == "" {
					dec.doc = strings.TrimSpace(strings.TrimLeft(strings.TrimSuffix(s, "*/"), "/*!"))
				}
			}
			continue
		}
		x.item(c, ms, parent, test, dec)
		dec = decoration{}
	}
}

// item extracts one declaration.
func (x *extractor) item(c *sitter.Node, ms *modScope, parent graphdb.NodeID, test bool, dec decoration) {
	test = test || dec.test()
	switch c.Kind() {
	case "function_item", "function_signature_item":
		x.function(c, ms, parent, test, dec)
	case "struct_item", "union_item", "enum_item", "trait_item", "type_item":
		x.typeItem(c, ms, parent, test, dec)
	case "impl_item":
		x.implItem(c, ms, test)
	case "mod_item":
		x.modItem(c, ms, parent, test, dec)
	case "use_declaration":
		n := len(ms.Uses)
		x.useDecl(fieldChild(c, "argument"), "", ms)
		if dec.test() {
			for i := n; i < len(ms.Uses); i++ {
				ms.Uses[i].Test = true
			}
		}
	case "extern_crate_declaration":
		name := x.text(fieldChild(c, "name"))
		alias := x.text(fieldChild(c, "alias"))
		if alias == "" {
			alias = name
		}
		if name != "self" {
			ms.Uses = append(ms.Uses, useDecl{Name: alias, Path: name, Line: x.line(c)})
		}
	case "macro_definition":
		name := x.text(fieldChild(c, "name"))
		id := x.add(graphdb.Node{ID: graphdb.NodeID("rust:" + ms.Path + "::" + name + "!"), Kind: graphdb.KindFunction, SubKind: "macro", Name: name,
			QName: ms.Path + "::" + name + "!", Loc: x.f.rel + ":" + name + "!", StartLine: x.line(c), EndLine: x.endLine(c),
			Signature: "macro_rules! " + name, Doc: dec.doc, Exported: hasAttr(dec, "macro_export"), Attrs: attrsOf(dec)}, test)
		x.parent(id, parent)
		ms.Items = append(ms.Items, &item{Name: name, Kind: "macro", ID: string(id)})
	case "const_item", "static_item":
		ms.Items = append(ms.Items, &item{Name: x.text(fieldChild(c, "name")), Kind: strings.TrimSuffix(c.Kind(), "_item"), Target: x.typeText(fieldChild(c, "type"), nil)})
	case "macro_invocation":
		x.itemMacro(c, func(root *sitter.Node) { x.items(root, ms, parent, test) })
	case "foreign_mod_item":
		if b := fieldChild(c, "body"); b != nil {
			x.items(b, ms, parent, test)
		}
	}
}

func hasAttr(d decoration, name string) bool {
	for _, a := range d.attrs {
		if a == name || strings.HasPrefix(a, name+"(") {
			return true
		}
	}
	return false
}

// attrsOf is the rust.attrs Attr of a decorated node (nil when none).
func attrsOf(d decoration) map[string]string {
	if len(d.attrs) == 0 {
		return nil
	}
	return map[string]string{attrAttrs: strings.Join(d.attrs, "\n")}
}

// Attrs keys of the Rust nodes.
const (
	attrAttrs   = "rust.attrs"   // an item's attributes, one a line, without #[ ]
	attrScope   = "rust.scope"   // file: its fileScope (JSON)
	attrSurface = "rust.surface" // file: the hash of its scope
	attrDeps    = "rust.deps"    // file: the files its resolution read
	attrUnres   = "rust.unres"   // file: the names that did not resolve
	attrByName  = "rust.byname"  // file: the names of its by-name calls
)

// signature is the declaration's text up to its body, on one line.
func (x *extractor) signature(c *sitter.Node) string {
	end := c.EndByte()
	if b := fieldChild(c, "body"); b != nil {
		end = b.StartByte()
	}
	s := strings.Join(strings.Fields(string(x.src[c.StartByte():end])), " ")
	if len(s) > 240 {
		s = s[:240] + "…"
	}
	return strings.TrimSuffix(s, ";")
}

// exported reports whether c is declared pub (pub(crate) and the like
// are not exported beyond the crate).
func (x *extractor) exported(c *sitter.Node) bool {
	for _, ch := range sitter.Children(c) {
		if ch.Kind() == "visibility_modifier" {
			return x.text(ch) == "pub"
		}
	}
	return false
}

func lastSeg(p string) string {
	if i := strings.LastIndex(p, "::"); i >= 0 {
		return p[i+2:]
	}
	return p
}

// modItem extracts `mod x;` (linked to the file the layout gives it) and
// `mod x { … }` (a module node of this file).
func (x *extractor) modItem(c *sitter.Node, ms *modScope, parent graphdb.NodeID, test bool, dec decoration) {
	name := x.text(fieldChild(c, "name"))
	body := fieldChild(c, "body")
	if body == nil {
		target := x.lay.modFile(x.f.rel, name, dec.attrValue("path"))
		if target == "" {
			target = ms.Path + "::" + name
		}
		ms.Items = append(ms.Items, &item{Name: name, Kind: "mod", Target: target})
		return
	}
	p := ms.Path + "::" + name
	if f, ok := x.lay.files[p]; ok && f != x.f.rel {
		p += "@" + x.f.rel // a file is that module too (tokio's process/unix/mod.rs beside an inline mod unix): ids stay unique across files
	}
	id := x.add(graphdb.Node{ID: moduleID(p), Kind: graphdb.KindModule, SubKind: "module", Name: name, QName: p, Loc: x.f.rel + ":" + name,
		StartLine: x.line(c), EndLine: x.endLine(c), Signature: "mod " + name, Doc: dec.doc, Exported: x.exported(c), Attrs: attrsOf(dec)}, test)
	x.parent(id, parent)
	ms.Items = append(ms.Items, &item{Name: name, Kind: "mod", Target: p})
	inner := &modScope{Path: p}
	x.f.scope.Mods = append(x.f.scope.Mods, inner)
	x.items(body, inner, id, test)
}

// useDecl flattens a use tree into ms.Uses.
func (x *extractor) useDecl(n *sitter.Node, prefix string, ms *modScope) {
	if n == nil {
		return
	}
	join := func(p string) string {
		if prefix == "" {
			return p
		}
		return prefix + "::" + p
	}
	line := x.line(n)
	switch n.Kind() {
	case "identifier", "crate", "self", "super", "scoped_identifier", "metavariable":
		p := join(squeeze(x.text(n)))
		name := lastSeg(p)
		if name == "self" {
			p = strings.TrimSuffix(p, "::self")
			name = lastSeg(p)
		}
		ms.Uses = append(ms.Uses, useDecl{Name: name, Path: p, Line: line})
	case "use_as_clause":
		alias := x.text(fieldChild(n, "alias"))
		if alias != "_" {
			ms.Uses = append(ms.Uses, useDecl{Name: alias, Path: join(squeeze(x.text(fieldChild(n, "path")))), Line: line})
		}
	case "use_list":
		for _, c := range sitter.Children(n) {
			x.useDecl(c, prefix, ms)
		}
	case "scoped_use_list":
		p := prefix
		if pn := fieldChild(n, "path"); pn != nil {
			p = join(squeeze(x.text(pn)))
		}
		x.useDecl(fieldChild(n, "list"), p, ms)
	case "use_wildcard":
		p := prefix
		if cs := sitter.Children(n); len(cs) > 0 {
			p = join(squeeze(x.text(cs[0])))
		}
		ms.Uses = append(ms.Uses, useDecl{Path: p, Glob: true, Line: line})
	}
}

// squeeze drops the white space of a path as written.
func squeeze(s string) string { return strings.Join(strings.Fields(s), "") }
