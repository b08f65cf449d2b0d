//go:build cgo

package java

import (
	"path"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
	"github.com/relayhq/relay/index/internal/sitter"

	"github.com/relayhq/relay/graphdb"
)

// sourceFile is what the extraction of one Java file yields: its owner
// (nodes and parent edges; the other edges come from resolution), its
// scope, and the work resolution does while the tree is alive.
type sourceFile struct {
	rel    string
	res    frontend.FileResult
	scope  *fileScope
	bodies []codeBody // code whose calls to resolve
	uses   []typeUse  // declared types to link
	imps   []importSpec
	fileN  int // index of the file node in res.nodes
}

// codeBody is code attributed to one node: a method or constructor body,
// a field initialiser, an initialiser block, an enum constant's arguments.
type codeBody struct {
	from graphdb.NodeID
	cls  *typeDef
	m    *methodDef   // nil outside methods
	decl *sitter.Node // with m: the method's declaration (its parameters)
	n    *sitter.Node
	ctor bool // a constructor body without this(…)/super(…): calls super()
	// implicit: the default constructor of a class that declares none
	// (n is the class): its super() call belongs to the class node.
	implicit bool
}

// typeUse is a type as written that an edge points at: the supertype
// of an inherits/implements edge, a return type, a parameter type, an
// annotation.
type typeUse struct {
	from    graphdb.NodeID
	kind    graphdb.EdgeKind
	written string
	ctx     *typeDef
	line    int
	reverse bool // param_of: the type is the edge's From
}

type importSpec struct {
	name   string // qualified, without .*
	static bool
	demand bool
	line   int
}

type extractor struct {
	src  []byte
	f    *sourceFile
	ids  frontend.IDCounts
	test bool
	deep bool // a nesting limit was met (limits.go)
	// sib holds the previous siblings of the members and top-level
	// declarations, indexed as they are iterated (for doc comments)
	sib sitter.Siblings
}

// isTest reports whether rel is a test file: under a src/test tree or
// named *Test.java, *Tests.java or Test*.java.
func isTest(rel string) bool {
	base := strings.TrimSuffix(path.Base(rel), ".java")
	if strings.HasSuffix(base, "Test") || strings.HasSuffix(base, "Tests") || strings.HasPrefix(base, "Test") && len(base) > 4 {
		return true
	}
	return strings.Contains("/"+rel, "/src/test/")
}

// extract builds the sourceFile of one parsed file; with root nil (the
// file was not parsed), its file node only.
func extract(rel string, src []byte, root *sitter.Node) *sourceFile {
	f := &sourceFile{rel: rel, scope: newScope(rel)}
	x := &extractor{src: src, f: f, ids: frontend.IDCounts{}, test: isTest(rel)}
	var top []*sitter.Node
	if root != nil {
		top = sitter.Children(root)
		x.sib.Index(root)
	}
	for _, st := range top {
		if st.Kind() == "package_declaration" {
			for _, c := range sitter.Children(st) {
				if c.Kind() == "identifier" || c.Kind() == "scoped_identifier" {
					f.scope.Pkg = x.text(c)
				}
			}
		}
	}
	f.res.Rec = graphdb.FileRecord{Path: rel, Hash: frontend.ContentHash(src), Language: "java", Module: f.scope.Pkg, Size: int64(len(src))}
	fid := frontend.FileID(rel)
	f.fileN = len(f.res.Nodes)
	x.add(graphdb.Node{ID: fid, Kind: graphdb.KindFile, Name: path.Base(rel), QName: rel, Loc: rel, StartLine: 1, EndLine: max(frontend.CountLines(src), 1)})
	x.parent(fid, moduleID(f.scope.Pkg))
	for _, st := range top {
		switch st.Kind() {
		case "import_declaration":
			x.importDecl(st)
		case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration", "annotation_type_declaration":
			x.typeDecl(st, nil, fid)
		}
	}
	if root != nil && root.HasError() {
		f.res.Rec.Errors = append(f.res.Rec.Errors, sitter.SyntaxErrors(root)...)
	}
	return f
}

func (x *extractor) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return n.Utf8Text(x.src)
}

func (x *extractor) add(n graphdb.Node) graphdb.NodeID {
	n.ID = x.ids.Unique(n.ID)
	n.Language, n.File = "java", x.f.rel
	n.Test, n.Testdata = x.test, frontend.IsTestdata(x.f.rel)
	x.f.res.Nodes = append(x.f.res.Nodes, n)
	return n.ID
}

func (x *extractor) parent(from, to graphdb.NodeID) {
	x.f.res.Edges = append(x.f.res.Edges, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeParent, File: x.f.rel})
}

func (x *extractor) importDecl(st *sitter.Node) {
	s := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(x.text(st)), ";"))
	s = strings.TrimSpace(strings.TrimPrefix(s, "import"))
	im := importSpec{line: sitter.Line(st)}
	if rest, ok := strings.CutPrefix(s, "static"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n') {
		im.static, s = true, rest
	}
	s = strings.Join(strings.Fields(s), "")
	if strings.HasSuffix(s, ".*") {
		im.demand, s = true, strings.TrimSuffix(s, ".*")
	}
	if s == "" || strings.ContainsAny(s, "/(") {
		return
	}
	im.name = s
	x.f.imps = append(x.f.imps, im)
	sc := x.f.scope
	switch {
	case im.static && im.demand:
		sc.SDemand = append(sc.SDemand, s)
	case im.static:
		i := strings.LastIndexByte(s, '.')
		if i > 0 {
			sc.Static[s[i+1:]] = append(sc.Static[s[i+1:]], s[:i])
		}
	case im.demand:
		sc.Demand = append(sc.Demand, s)
	default:
		sc.Imports[simpleName(s)] = s
	}
}

// modifiers returns a declaration's modifiers node (nil when none).
func modifiersOf(n *sitter.Node) *sitter.Node {
	for _, c := range sitter.Children(n) {
		if c.Kind() == "modifiers" {
			return c
		}
	}
	return nil
}

// modSet is what a declaration's modifiers say.
type modSet struct {
	static, public, abstract, private bool
	annots                            []*sitter.Node
}

func (x *extractor) mods(n *sitter.Node) modSet {
	var m modSet
	mn := modifiersOf(n)
	if mn == nil {
		return m
	}
	for _, c := range sitter.AllChildren(mn) {
		switch c.Kind() {
		case "static":
			m.static = true
		case "public", "protected":
			m.public = true
		case "private":
			m.private = true
		case "abstract":
			m.abstract = true
		case "marker_annotation", "annotation":
			m.annots = append(m.annots, c)
		}
	}
	return m
}

// annotate records decorated_by uses for a declaration's annotations.
func (x *extractor) annotate(id graphdb.NodeID, ctx *typeDef, m modSet) {
	for _, a := range m.annots {
		x.f.uses = append(x.f.uses, typeUse{from: id, kind: graphdb.EdgeDecoratedBy, written: x.text(a.ChildByFieldName("name")), ctx: ctx, line: sitter.Line(a)})
	}
}

// doc returns the first line of the Javadoc comment right before st.
func (x *extractor) doc(st *sitter.Node) string {
	return sitter.DocComment(st, x.sib.PrevNamedOf(st), x.src, "block_comment")
}

// signature is a declaration's header without its body and modifiers'
// annotations, whitespace collapsed, at most 200 bytes.
func (x *extractor) signature(def *sitter.Node) string {
	start, end := def.StartByte(), def.EndByte()
	if mn := modifiersOf(def); mn != nil {
		for _, c := range sitter.AllChildren(mn) {
			if k := c.Kind(); k != "marker_annotation" && k != "annotation" && k != "line_comment" && k != "block_comment" {
				break
			}
			start = c.EndByte()
		}
	}
	if b := def.ChildByFieldName("body"); b != nil {
		end = b.StartByte()
	}
	s := strings.Join(strings.Fields(string(x.src[start:end])), " ")
	if len(s) > 200 {
		s = s[:200]
	}
	return strings.TrimSpace(strings.TrimSuffix(s, ";"))
}

// typeParams returns the names of a declaration's type parameters.
func (x *extractor) typeParams(n *sitter.Node) []string {
	tp := n.ChildByFieldName("type_parameters")
	if tp == nil {
		return nil
	}
	var out []string
	for _, p := range sitter.Children(tp) {
		if p.Kind() == "type_parameter" {
			for _, c := range sitter.Children(p) {
				if c.Kind() == "type_identifier" || c.Kind() == "identifier" {
					out = append(out, x.text(c))
					break
				}
			}
		}
	}
	return out
}

// typeList returns the types of a super_interfaces/extends_interfaces
// node.
func (x *extractor) typeList(n *sitter.Node) []*sitter.Node {
	if n == nil {
		return nil
	}
	for _, c := range sitter.Children(n) {
		if c.Kind() == "type_list" {
			return sitter.Children(c)
		}
	}
	return nil
}

// locName is the location name of a member of t: "path:Outer.Inner.m".
func (x *extractor) locName(q string) string {
	if p := x.f.scope.Pkg; p != "" {
		q = strings.TrimPrefix(q, p+".")
	}
	return x.f.rel + ":" + q
}
