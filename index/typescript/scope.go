//go:build cgo

package typescript

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// fileScope is what one TypeScript/JavaScript file binds at top level and
// exports. Fresh scopes come from extraction; the scopes of unchanged
// files are decoded from their module node's Attrs["ts.scope"] (the same
// JSON), so an incremental run parses only what changed and its
// dependents.
type fileScope struct {
	file, module string
	parent       *fileScope            // the enclosing scope of a namespace's; nil for a file's
	Decls        map[string]*scopeDecl `json:"d,omitempty"` // top-level names declared here
	Imports      map[string]imp        `json:"i,omitempty"` // local name → what an import or require binds
	Exports      map[string]string     `json:"e,omitempty"` // exported name → local name
	ReExports    map[string]imp        `json:"r,omitempty"` // export { a as b } from "m": b → {m, a}
	Stars        []string              `json:"s,omitempty"` // export * from "m"
	Whole        string                `json:"w,omitempty"` // module.exports = x / export = x: the local x
}

// imp is one imported binding: the specifier as written and the
// exported name it takes ("default", or "*" for the whole module).
type imp struct {
	Spec string `json:"s"`
	Name string `json:"n"`
}

// scopeDecl is a top-level declaration. ID is empty for declarations that are
// no node (variables not bound to a function, declaration files).
type scopeDecl struct {
	ID      graphdb.NodeID          `json:"id,omitempty"`
	Kind    string                  `json:"k"`           // class, interface, function, var, enum, alias
	Type    string                  `json:"t,omitempty"` // function: declared return type; var: its type (annotation, new C, ()f)
	Members map[string]*classMember `json:"m,omitempty"` // class and interface members
	Bases   []string                `json:"b,omitempty"` // extends (one for classes, several for interfaces)
	Params  [][]string              `json:"p,omitempty"` // function: the parameter types of its function-typed parameters
	Impls   []string                `json:"im,omitempty"`
	NS      *fileScope              `json:"ns,omitempty"` // namespace: what its body declares and exports
}

// classMember is a method or field; Type is a method's declared return type
// or a field's declared type (or the class of its `new` initialiser).
type classMember struct {
	ID   graphdb.NodeID `json:"id,omitempty"`
	Type string         `json:"t,omitempty"`
	Fn   bool           `json:"f,omitempty"` // a method (or a field bound to a function)
	// Params lists, for each parameter of a method that is itself a
	// function type, that function's parameter types (for the types of a
	// callback's parameters).
	Params [][]string `json:"p,omitempty"`
}

func newScope(file, module string) *fileScope {
	return &fileScope{file: file, module: module, Decls: map[string]*scopeDecl{}, Imports: map[string]imp{},
		Exports: map[string]string{}, ReExports: map[string]imp{}}
}

// Module-node Attrs of TypeScript/JavaScript files.
const (
	attrScope   = "ts.scope"   // the file's fileScope as JSON
	attrSurface = "ts.surface" // fingerprint of ts.scope
	attrDeps    = "ts.deps"    // files its resolution read, one per line
	attrUnres   = "ts.unres"   // "1": an in-repository-looking import did not resolve
	attrByName  = "ts.byname"  // method names of its by-name calls, one per line
)

// encode returns the scope's JSON and its fingerprint.
func (s *fileScope) encode() (string, string) {
	b, err := json.Marshal(s) // maps marshal in key order: stable
	if err != nil {
		panic(err) // only strings and maps
	}
	h := sha256.Sum256(b)
	return string(b), hex.EncodeToString(h[:12])
}

// decodeScope rebuilds a stored scope.
func decodeScope(file, module, js string) (*fileScope, bool) {
	s := newScope(file, module)
	if js == "" || json.Unmarshal([]byte(js), s) != nil {
		return nil, false
	}
	s.fill(nil)
	return s, true
}

// fill sets what JSON does not carry (file, module, parent, empty maps)
// in a decoded scope and its namespaces'.
func (s *fileScope) fill(parent *fileScope) {
	s.parent = parent
	if parent != nil {
		s.file, s.module = parent.file, parent.module
	}
	for _, m := range []*map[string]imp{&s.Imports, &s.ReExports} {
		if *m == nil {
			*m = map[string]imp{}
		}
	}
	if s.Decls == nil {
		s.Decls = map[string]*scopeDecl{}
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
func (s *fileScope) eachDecl(fn func(*scopeDecl)) {
	for _, d := range s.Decls {
		fn(d)
		if d.NS != nil {
			d.NS.eachDecl(fn)
		}
	}
}

// moduleName is a file's qname prefix: its path without the extension
// ("src/util/strings.ts" → "src/util/strings").
func moduleName(rel string) string {
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

func moduleID(module string) graphdb.NodeID { return graphdb.NodeID("ts:pkg:" + module) }
func nodeID(qname string) graphdb.NodeID    { return graphdb.NodeID("ts:" + qname) }

// methodNames adds the names of the methods the scope declares (the
// by-name candidates it offers) to into.
func (s *fileScope) methodNames(into map[string]bool) {
	s.eachDecl(func(d *scopeDecl) {
		for n, m := range d.Members {
			if m.Fn && m.ID != "" {
				into[n] = true
			}
		}
	})
}

// lookupID returns the declaration name binds in s when it is the node
// id (nil for a nil scope or another declaration).
func (s *fileScope) lookupID(name string, id graphdb.NodeID) *scopeDecl {
	if s == nil {
		return nil
	}
	if d := s.Decls[name]; d != nil && d.ID == id {
		return d
	}
	return nil
}
