//go:build cgo

package cpp

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// fileScope is what one C++ file declares, as written: its types with
// their members, its functions (free functions, and methods defined out
// of line: `void Foo::bar() {}`), its using-directives and aliases. Names
// are resolved lazily against every file's scope (table.go). Fresh scopes
// come from extraction; the scopes of unchanged files are decoded from
// their file node's Attrs["cpp.scope"]. A scope holds no line numbers, so
// that a body edit leaves its surface alone.
type fileScope struct {
	file    string
	Types   []*typeDef        `json:"t,omitempty"`
	Funcs   []*funcDef        `json:"f,omitempty"`
	Usings  []string          `json:"u,omitempty"`  // using namespace X (X as written, with the namespace it was written in: "ns|X")
	Aliases map[string]string `json:"a,omitempty"`  // qualified alias name → the aliased type as written ("ns|T")
	NS      []string          `json:"n,omitempty"`  // the namespaces the file declares into
	Macros  map[string]macro  `json:"mc,omitempty"` // its #defines (macro.go)
}

// typeDef is a class, struct, union or enum. Q is its qualified name,
// namespaces and enclosing classes joined by "::"; an explicit
// specialization keeps its template arguments (fmt::formatter<int>).
type typeDef struct {
	Q        string            `json:"q"`
	Kind     string            `json:"k"`
	NS       string            `json:"ns,omitempty"` // the namespace its base names are written in
	Bases    []string          `json:"b,omitempty"`
	Methods  []*funcDef        `json:"m,omitempty"`
	Fields   map[string]string `json:"fl,omitempty"` // name → type as written
	Template bool              `json:"tp,omitempty"`

	scope *fileScope
}

// funcDef is a function or method. Q is the qualified name of the
// function (ns::f) or of the method (ns::C::m); Class, for a method
// defined out of line, the qualified name of its class as written after
// the namespace (C in ns::C::m).
type funcDef struct {
	Name     string   `json:"n"`
	Q        string   `json:"q"`
	NS       string   `json:"ns,omitempty"` // the namespace it is written in
	Class    string   `json:"c,omitempty"`  // out-of-line definitions: the class as written
	Ret      string   `json:"r,omitempty"`
	Params   []string `json:"p,omitempty"`
	Quals    string   `json:"qu,omitempty"` // a method's qualifiers after its parameters: const, &, &&
	Min      int      `json:"mi,omitempty"` // the arguments it needs (default arguments not counted)
	Variadic bool     `json:"va,omitempty"`
	Virtual  bool     `json:"v,omitempty"`
	Static   bool     `json:"s,omitempty"`
	Body     bool     `json:"d,omitempty"` // defined here
	Ctor     bool     `json:"ct,omitempty"`
	Template bool     `json:"tp,omitempty"`
	Local    bool     `json:"l,omitempty"` // static or in an unnamed namespace: the file's own

	scope *fileScope
	owner *typeDef // methods: the class
	decl  *funcDef // a method defined out of line: its declaration in the class
	id    graphdb.NodeID
	// need is the fewest arguments a call passes, over every declaration
	// of the node (default arguments are written on one of them); set by
	// the table on the node's declaration.
	need int
}

// File-node Attrs of C++ files.
const (
	attrScope   = "cpp.scope"   // the file's fileScope as JSON
	attrSurface = "cpp.surface" // fingerprint of cpp.scope
	attrDeps    = "cpp.deps"    // files its resolution read, one per line
	attrUnres   = "cpp.unres"   // "1": a name did not resolve
	attrByName  = "cpp.byname"  // the names of its by-name calls, one a line
	attrMacros  = "cpp.macros"  // fingerprint of the repository's macros the file was parsed with
)

func newScope(file string) *fileScope {
	return &fileScope{file: file, Aliases: map[string]string{}}
}

// encode returns the scope's JSON and its fingerprint.
func (s *fileScope) encode() (string, string) {
	b, err := json.Marshal(s) // maps marshal in key order: stable
	if err != nil {
		panic(err) // only strings, maps and slices
	}
	h := sha256.Sum256(b)
	return string(b), hex.EncodeToString(h[:12])
}

// decodeScope rebuilds a stored scope.
func decodeScope(file, js string) (*fileScope, bool) {
	s := newScope(file)
	if js == "" || json.Unmarshal([]byte(js), s) != nil {
		return nil, false
	}
	if s.Aliases == nil {
		s.Aliases = map[string]string{}
	}
	s.link()
	return s, true
}

// link sets the back pointers.
func (s *fileScope) link() {
	for _, t := range s.Types {
		t.scope = s
		for _, m := range t.Methods {
			m.scope, m.owner = s, t
		}
	}
	for _, f := range s.Funcs {
		f.scope = s
	}
}

// declared lists the qualified names the scope declares (types and
// functions, methods by their qualified name).
func (s *fileScope) declared(into map[string]bool) {
	for _, t := range s.Types {
		into[t.Q] = true
		for _, m := range t.Methods {
			into[m.Q] = true
			into["name:"+m.Name] = true
		}
	}
	for _, f := range s.Funcs {
		into[f.Q] = true
		into["name:"+f.Name] = true
	}
}

func nsID(ns string) graphdb.NodeID { return graphdb.NodeID("cpp:ns:" + ns) }

// join joins two qualified names with "::".
func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "::" + b
}

// parentNS is ns without its last name ("" for a top-level one).
func parentNS(ns string) string {
	depth := 0
	for i := len(ns) - 1; i > 0; i-- {
		switch ns[i] {
		case '>':
			depth++
		case '<':
			depth--
		case ':':
			if depth == 0 && ns[i-1] == ':' {
				return ns[:i-1]
			}
		}
	}
	return ""
}

// lastName is the last name of a qualified one.
func lastName(q string) string {
	if p := parentNS(q); p != "" {
		return q[len(p)+2:]
	}
	return q
}

// splitQ splits a qualified name at "::" outside template arguments.
func splitQ(q string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(q); i++ {
		switch q[i] {
		case '<':
			depth++
		case '>':
			depth--
		case ':':
			if depth == 0 && i+1 < len(q) && q[i+1] == ':' {
				out = append(out, q[start:i])
				start = i + 2
				i++
			}
		}
	}
	return append(out, q[start:])
}

// stripArgs drops template arguments: "vector<int>" → "vector".
func stripArgs(s string) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// templateArgs returns the top-level template arguments of a type as
// written: "unique_ptr<Foo, D<E>>" → [Foo, D<E>].
func templateArgs(s string) []string {
	i := strings.IndexByte(s, '<')
	j := strings.LastIndexByte(s, '>')
	if i < 0 || j < i {
		return nil
	}
	var out []string
	depth, start := 0, i+1
	for k := i + 1; k < j; k++ {
		switch s[k] {
		case '<', '(':
			depth++
		case '>', ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:k]))
				start = k + 1
			}
		}
	}
	return append(out, strings.TrimSpace(s[start:j]))
}

// typeQualifiers are the words a type as written may carry that name no
// type.
var typeQualifiers = map[string]bool{"const": true, "volatile": true, "typename": true, "struct": true,
	"class": true, "union": true, "enum": true, "constexpr": true, "static": true, "inline": true,
	"mutable": true, "register": true, "extern": true, "thread_local": true}

// baseType reduces a type as written to the name of what it is: "const
// ns::Foo<int>* &" → "ns::Foo<int>"; pointers reports whether it carried
// a * (or was an array).
func baseType(s string) (name string, pointers bool) {
	s = strings.TrimSpace(s)
	var words []string
	depth, start := 0, -1
	flush := func(end int) {
		if start >= 0 {
			words = append(words, s[start:end])
			start = -1
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case depth > 0:
		case c == '*' || c == '[':
			pointers = true
			flush(i)
			continue
		case c == '&' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ']':
			flush(i)
			continue
		}
		if start < 0 {
			start = i
		}
	}
	flush(len(s))
	for _, w := range words {
		if !typeQualifiers[w] {
			name = w
			break
		}
	}
	return strings.TrimPrefix(name, "::"), pointers
}

// primitives are the built-in types and what stands for a type C++
// deduces.
var primitives = map[string]bool{"int": true, "long": true, "short": true, "char": true, "bool": true,
	"float": true, "double": true, "void": true, "unsigned": true, "signed": true, "auto": true,
	"size_t": true, "wchar_t": true, "char8_t": true, "char16_t": true, "char32_t": true, "decltype": true}
