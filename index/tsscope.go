//go:build cgo

package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// tsScope is what one TypeScript/JavaScript file binds at top level and
// exports. Fresh scopes come from extraction; the scopes of unchanged
// files are decoded from their module node's Attrs["ts.scope"] (the same
// JSON), so an incremental run parses only what changed and its
// dependents.
type tsScope struct {
	file, module string
	parent       *tsScope            // the enclosing scope of a namespace's; nil for a file's
	Decls        map[string]*tsDecl  `json:"d,omitempty"` // top-level names declared here
	Imports      map[string]tsImport `json:"i,omitempty"` // local name → what an import or require binds
	Exports      map[string]string   `json:"e,omitempty"` // exported name → local name
	ReExports    map[string]tsImport `json:"r,omitempty"` // export { a as b } from "m": b → {m, a}
	Stars        []string            `json:"s,omitempty"` // export * from "m"
	Whole        string              `json:"w,omitempty"` // module.exports = x / export = x: the local x
}

// tsImport is one imported binding: the specifier as written and the
// exported name it takes ("default", or "*" for the whole module).
type tsImport struct {
	Spec string `json:"s"`
	Name string `json:"n"`
}

// tsDecl is a top-level declaration. ID is empty for declarations that are
// no node (variables not bound to a function, declaration files).
type tsDecl struct {
	ID      graphdb.NodeID       `json:"id,omitempty"`
	Kind    string               `json:"k"`           // class, interface, function, var, enum, alias
	Type    string               `json:"t,omitempty"` // function: declared return type; var: its type (annotation, new C, ()f)
	Members map[string]*tsMember `json:"m,omitempty"` // class and interface members
	Bases   []string             `json:"b,omitempty"` // extends (one for classes, several for interfaces)
	Params  [][]string           `json:"p,omitempty"` // function: the parameter types of its function-typed parameters
	Impls   []string             `json:"im,omitempty"`
	NS      *tsScope             `json:"ns,omitempty"` // namespace: what its body declares and exports
}

// tsMember is a method or field; Type is a method's declared return type
// or a field's declared type (or the class of its `new` initialiser).
type tsMember struct {
	ID   graphdb.NodeID `json:"id,omitempty"`
	Type string         `json:"t,omitempty"`
	Fn   bool           `json:"f,omitempty"` // a method (or a field bound to a function)
	// Params lists, for each parameter of a method that is itself a
	// function type, that function's parameter types (for the types of a
	// callback's parameters).
	Params [][]string `json:"p,omitempty"`
}

func newTSScope(file, module string) *tsScope {
	return &tsScope{file: file, module: module, Decls: map[string]*tsDecl{}, Imports: map[string]tsImport{},
		Exports: map[string]string{}, ReExports: map[string]tsImport{}}
}

// Module-node Attrs of TypeScript/JavaScript files.
const (
	tsAttrScope   = "ts.scope"   // the file's tsScope as JSON
	tsAttrSurface = "ts.surface" // fingerprint of ts.scope
	tsAttrDeps    = "ts.deps"    // files its resolution read, one per line
	tsAttrUnres   = "ts.unres"   // "1": an in-repository-looking import did not resolve
	tsAttrByName  = "ts.byname"  // method names of its by-name calls, one per line
)

// encode returns the scope's JSON and its fingerprint.
func (s *tsScope) encode() (string, string) {
	b, err := json.Marshal(s) // maps marshal in key order: stable
	if err != nil {
		panic(err) // only strings and maps
	}
	h := sha256.Sum256(b)
	return string(b), hex.EncodeToString(h[:12])
}

// decodeTSScope rebuilds a stored scope.
func decodeTSScope(file, module, js string) (*tsScope, bool) {
	s := newTSScope(file, module)
	if js == "" || json.Unmarshal([]byte(js), s) != nil {
		return nil, false
	}
	s.fill(nil)
	return s, true
}

// fill sets what JSON does not carry (file, module, parent, empty maps)
// in a decoded scope and its namespaces'.
func (s *tsScope) fill(parent *tsScope) {
	s.parent = parent
	if parent != nil {
		s.file, s.module = parent.file, parent.module
	}
	for _, m := range []*map[string]tsImport{&s.Imports, &s.ReExports} {
		if *m == nil {
			*m = map[string]tsImport{}
		}
	}
	if s.Decls == nil {
		s.Decls = map[string]*tsDecl{}
	}
	if s.Exports == nil {
		s.Exports = map[string]string{}
	}
	for _, d := range s.Decls {
		if d.NS != nil {
			d.NS.fill(s)
		}
	}
}

// eachDecl calls fn for every declaration of s, those of its namespaces
// included.
func (s *tsScope) eachDecl(fn func(*tsDecl)) {
	for _, d := range s.Decls {
		fn(d)
		if d.NS != nil {
			d.NS.eachDecl(fn)
		}
	}
}

// tsModuleName is a file's qname prefix: its path without the extension
// ("src/util/strings.ts" → "src/util/strings").
func tsModuleName(rel string) string {
	for _, e := range []string{".d.ts", ".d.mts", ".d.cts"} {
		if strings.HasSuffix(rel, e) {
			return strings.TrimSuffix(rel, e)
		}
	}
	if i := strings.LastIndexByte(rel, '.'); i > strings.LastIndexByte(rel, '/') {
		return rel[:i]
	}
	return rel
}

func tsModuleID(module string) graphdb.NodeID { return graphdb.NodeID("ts:pkg:" + module) }
func tsID(qname string) graphdb.NodeID        { return graphdb.NodeID("ts:" + qname) }

// methodNames adds the names of the methods the scope declares (the
// by-name candidates it offers) to into.
func (s *tsScope) methodNames(into map[string]bool) {
	s.eachDecl(func(d *tsDecl) {
		for n, m := range d.Members {
			if m.Fn && m.ID != "" {
				into[n] = true
			}
		}
	})
}

// lookupID returns the declaration name binds in s when it is the node
// id (nil for a nil scope or another declaration).
func (s *tsScope) lookupID(name string, id graphdb.NodeID) *tsDecl {
	if s == nil {
		return nil
	}
	if d := s.Decls[name]; d != nil && d.ID == id {
		return d
	}
	return nil
}
