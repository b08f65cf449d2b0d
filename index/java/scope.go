//go:build cgo

package java

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// fileScope is what one Java file declares and imports: its types with
// their members as written (types are resolved lazily, in the declaring
// file's context). Fresh scopes come from extraction; the scopes of
// unchanged files are decoded from their file node's Attrs["java.scope"],
// so an incremental run parses only what changed and its dependents.
type fileScope struct {
	file    string
	Pkg     string              `json:"p,omitempty"`
	Imports map[string]string   `json:"i,omitempty"`  // simple name → qualified name (import a.b.C)
	Demand  []string            `json:"d,omitempty"`  // import a.b.* (a package or a type)
	Static  map[string][]string `json:"s,omitempty"`  // import static a.b.C.m: m → [a.b.C]
	SDemand []string            `json:"sd,omitempty"` // import static a.b.C.*
	Types   []*typeDef          `json:"t,omitempty"`
}

// typeDef is a class, interface, enum, record or annotation type. Q is
// its qualified name with nested types joined by dots (com.foo.Outer.Inner).
type typeDef struct {
	Q       string               `json:"q"`
	ID      graphdb.NodeID       `json:"id,omitempty"` // empty: a local or anonymous class (no node)
	Kind    string               `json:"k"`
	Super   string               `json:"su,omitempty"`
	Ifaces  []string             `json:"if,omitempty"`
	TParams []string             `json:"tp,omitempty"`
	Outer   string               `json:"o,omitempty"` // the enclosing type's Q
	Static  bool                 `json:"st,omitempty"`
	Methods []*methodDef         `json:"m,omitempty"`
	Fields  map[string]*fieldDef `json:"f,omitempty"`

	scope        *fileScope // the declaring file
	outer        *typeDef   // local and anonymous classes: the enclosing class
	recordParams []string   // a record's component types (its canonical constructor)
	anon         bool       // an anonymous class: new C(…) calls C's constructor itself
	depth        int        // member types: how many types enclose it, plus one
}

// methodDef is a method or constructor (Name "<init>").
type methodDef struct {
	Name     string         `json:"n"`
	ID       graphdb.NodeID `json:"id,omitempty"`
	Ret      string         `json:"r,omitempty"`
	Params   []string       `json:"p,omitempty"`
	TParams  []string       `json:"tp,omitempty"`
	Static   bool           `json:"s,omitempty"`
	Varargs  bool           `json:"v,omitempty"`
	Abstract bool           `json:"a,omitempty"`
}

// fieldDef is a field or enum constant.
type fieldDef struct {
	ID     graphdb.NodeID `json:"id,omitempty"`
	Type   string         `json:"t"`
	Static bool           `json:"s,omitempty"`
}

// File-node Attrs of Java files.
const (
	attrScope   = "java.scope"   // the file's fileScope as JSON
	attrSurface = "java.surface" // fingerprint of java.scope
	attrDeps    = "java.deps"    // files its resolution read, one per line
	attrUnres   = "java.unres"   // "1": a type name did not resolve
	attrDup     = "java.dup"     // "1": a type of the file is declared by another file too
	attrByName  = "java.byname"  // its by-name calls, "name/arguments" one a line (byname.go)
)

func newScope(file string) *fileScope {
	return &fileScope{file: file, Imports: map[string]string{}, Static: map[string][]string{}}
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
	if s.Imports == nil {
		s.Imports = map[string]string{}
	}
	if s.Static == nil {
		s.Static = map[string][]string{}
	}
	s.link()
	return s, true
}

// link sets the types' back pointers.
func (s *fileScope) link() {
	for _, t := range s.Types {
		t.scope = s
		if t.Fields == nil {
			t.Fields = map[string]*fieldDef{}
		}
	}
}

func moduleID(pkg string) graphdb.NodeID { return graphdb.NodeID("java:pkg:" + pkg) }
func typeID(qname string) graphdb.NodeID { return graphdb.NodeID("java:" + qname) }

// erase strips annotations, type arguments and array brackets from a
// type as written: "@A Map<K, V> @B []" → "Map"; dims counts the
// brackets.
func erase(s string) (name string, dims int) {
	s = strings.TrimSpace(s)
	for strings.HasPrefix(s, "@") { // type annotations
		i := strings.IndexAny(s, " \t\n")
		if i < 0 {
			return "", 0
		}
		s = strings.TrimSpace(s[i:])
	}
	if strings.HasSuffix(s, "...") {
		s, dims = strings.TrimSuffix(s, "..."), 1
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '<':
			depth++
		case c == '>':
			depth--
		case depth > 0:
		case c == '@': // an annotation of an array level: String @A []
			if e := annotationEnd([]byte(s), i); e > i {
				i = e - 1
			}
		case c == '[':
			dims++
		case c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), dims
}

// typeArgs returns the type arguments of a type as written, split at
// the top level: "Map<K, List<V>>" → [K, List<V>].
func typeArgs(s string) []string {
	i := strings.IndexByte(s, '<')
	j := strings.LastIndexByte(s, '>')
	if i < 0 || j < i {
		return nil
	}
	var out []string
	depth, start := 0, i+1
	for k := i + 1; k < j; k++ {
		switch s[k] {
		case '<':
			depth++
		case '>':
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

// primitives are the primitive types (and void).
var primitives = map[string]bool{"int": true, "long": true, "short": true, "byte": true, "char": true,
	"boolean": true, "float": true, "double": true, "void": true}

// simpleName is the last dotted segment of a name.
func simpleName(q string) string { return q[strings.LastIndexByte(q, '.')+1:] }
