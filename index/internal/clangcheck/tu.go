package clangcheck

import "strings"

// decl is a function-like declaration of one translation unit.
type decl struct {
	id, kind, name, mangled string
	loc, begin              pos
	static                  bool // internal linkage: storage class static
	def                     bool // has a body
	prev                    string
	record                  string // the enclosing class's name (C++ methods and constructors)
	ctorType                string // a constructor's type, to match construct expressions
}

// call is one call expression: its caller (the enclosing function
// definition's id), its callee's declaration id ("" when the call goes
// through a pointer or a field) and its site.
type call struct {
	caller, callee string
	site           pos
	// ctor: the callee is a constructor named by class and type (clang's
	// construct expressions name no declaration).
	ctorClass, ctorType string
}

// tu gathers one translation unit's declarations and calls.
type tu struct {
	t     tracker
	decls map[string]*decl
	calls []call
}

func newTU() *tu { return &tu{decls: map[string]*decl{}} }

// funcKinds are the declarations that can be called and have a body.
var funcKinds = map[string]bool{
	"FunctionDecl": true, "CXXMethodDecl": true, "CXXConstructorDecl": true,
	"CXXDestructorDecl": true, "CXXConversionDecl": true, "CXXDeductionGuideDecl": true,
}

// callKinds are the call expressions whose first child is the callee.
var callKinds = map[string]bool{
	"CallExpr": true, "CXXMemberCallExpr": true, "CXXOperatorCallExpr": true,
	"UserDefinedLiteral": true, "CUDAKernelCallExpr": true,
}

// scope is what visit passes down.
type scope struct {
	caller   string // the enclosing function definition's id
	lambda   bool   // inside a lambda: its body's calls are the enclosing function's
	record   string // the enclosing class's name
	tmplFrom pos    // the begin of an enclosing template declaration
}

// visit walks n in the dump's order (see tracker).
func (u *tu) visit(n *jnode, s scope) {
	loc, begin := u.t.node(n)
	switch {
	case funcKinds[n.Kind]:
		if s.tmplFrom.valid() {
			begin = s.tmplFrom
		}
		d := &decl{id: n.ID, kind: n.Kind, name: n.Name, mangled: n.MangledName, loc: loc, begin: begin,
			static: n.StorageClass == "static", prev: n.PreviousDecl, record: s.record}
		for _, c := range n.Inner {
			if c.Kind == "CompoundStmt" || c.Kind == "CXXTryStmt" {
				d.def = true
			}
		}
		if n.Kind == "CXXConstructorDecl" && n.Type != nil {
			d.ctorType = n.Type.QualType
		}
		if !n.IsImplicit && !s.lambda { // a lambda's call operator is its function's body
			u.decls[n.ID] = d
		}
		if d.def && !s.lambda {
			s.caller = n.ID
		}
		s.tmplFrom = pos{}
	case n.Kind == "FunctionTemplateDecl":
		s.tmplFrom = begin
	case n.Kind == "CXXRecordDecl" || n.Kind == "RecordDecl" || n.Kind == "ClassTemplateSpecializationDecl":
		s.record = n.Name
		s.tmplFrom = pos{}
	case n.Kind == "LambdaExpr":
		s.lambda = true
	case callKinds[n.Kind] && s.caller != "" && len(n.Inner) > 0:
		u.calls = append(u.calls, call{caller: s.caller, callee: u.callee(n.Inner[0]), site: begin})
	case (n.Kind == "CXXConstructExpr" || n.Kind == "CXXTemporaryObjectExpr") && s.caller != "" && n.CtorType != nil && n.Type != nil:
		u.calls = append(u.calls, call{caller: s.caller, site: begin, ctorClass: className(n.Type.QualType), ctorType: n.CtorType.QualType})
	}
	for _, c := range n.Inner {
		u.visit(c, s)
	}
}

// callee returns the id of the declaration a callee expression names,
// "" for a call through a pointer or a field. The declaration a member
// expression names may come later in the dump (a method defined below
// its caller in a class): resolve checks the kinds.
func (u *tu) callee(e *jnode) string {
	for e != nil {
		switch e.Kind {
		case "ImplicitCastExpr", "ParenExpr":
			if len(e.Inner) == 0 {
				return ""
			}
			e = e.Inner[0]
		case "DeclRefExpr":
			if e.ReferencedDecl == nil || !funcKinds[e.ReferencedDecl.Kind] {
				return ""
			}
			return e.ReferencedDecl.ID
		case "MemberExpr":
			return e.ReferencedMemberDecl
		default:
			return ""
		}
	}
	return ""
}

// className returns the class name of a construct expression's type:
// qualifiers, tag keywords, namespaces and template arguments dropped.
func className(qt string) string {
	qt = strings.TrimSpace(qt)
	for _, p := range []string{"const ", "volatile ", "struct ", "class ", "union "} {
		qt = strings.TrimPrefix(qt, p)
	}
	if i := strings.IndexByte(qt, '<'); i >= 0 {
		qt = qt[:i]
	}
	if i := strings.LastIndex(qt, "::"); i >= 0 {
		qt = qt[i+2:]
	}
	return strings.TrimSpace(qt)
}

// canon returns the first declaration of d's redeclaration chain.
func (u *tu) canon(d *decl) *decl {
	for seen := 0; d.prev != "" && seen < 64; seen++ {
		p, ok := u.decls[d.prev]
		if !ok {
			break
		}
		d = p
	}
	return d
}
