//go:build cgo

package rust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// fileScope is what one file declares that the resolution of any file
// reads: its modules (the file's, and the inline `mod x { … }` inside
// it) with their items, `use` declarations and impl blocks. It is stored
// as JSON on the file node (Attrs rust.scope), so that an incremental run
// resolves against the unchanged files without parsing them; its hash is
// the file's surface (rust.surface). It holds no line numbers: an edit
// that only moves declarations changes no surface.
type fileScope struct {
	file string
	Mods []*modScope `json:"m"`
}

// modScope is one module's declarations.
type modScope struct {
	Path  string      `json:"p"`
	Items []*item     `json:"i,omitempty"`
	Uses  []useDecl   `json:"u,omitempty"`
	Impls []*implDecl `json:"x,omitempty"`
}

// item is a named declaration of a module. Type texts (typeText) are
// written as in the source with generic parameters replaced by their
// first bound, or "$T" for an unbounded parameter T (the receiver's type
// argument stands for it, types.go); they resolve in the module that
// declares them.
type item struct {
	Name string `json:"n"`
	// Kind: fn, struct, enum, union, trait, type, mod, macro, const, static
	Kind   string            `json:"k"`
	ID     string            `json:"id,omitempty"` // the node's id; "" for items without one
	Params []string          `json:"a,omitempty"`  // fn: parameter types
	Ret    string            `json:"r,omitempty"`  // fn: the return type
	Fields map[string]string `json:"f,omitempty"`  // struct, union: field types (tuple fields "0", "1", …)
	// Target: type: the aliased type; const, static: its type; mod: the
	// module's path (a `mod x;` loading a file elsewhere, an inline module)
	Target   string   `json:"t,omitempty"`
	Supers   []string `json:"s,omitempty"`  // trait: supertraits
	Methods  []*fnSig `json:"ms,omitempty"` // trait: its methods
	Variants []string `json:"v,omitempty"`  // enum: its variants
	Generics []string `json:"g,omitempty"`  // struct, enum, union: its type parameters, in order
	// VFields: enum: the field types of its tuple variants
	VFields map[string][]string `json:"vf,omitempty"`
}

// fnSig is a method or associated function of an impl block or trait.
type fnSig struct {
	Name   string   `json:"n"`
	ID     string   `json:"id"`
	Params []string `json:"a,omitempty"` // after self
	Ret    string   `json:"r,omitempty"`
	Self   bool     `json:"s,omitempty"` // takes self: a method
	Body   bool     `json:"b,omitempty"` // a trait's provided method
}

// implDecl is one impl block: `impl Self` or `impl Trait for Self`.
type implDecl struct {
	Self    string   `json:"s"`
	Trait   string   `json:"t,omitempty"`
	Methods []*fnSig `json:"ms,omitempty"`
	// Target: the associated type Target as written (impl Deref for …)
	Target string `json:"d,omitempty"`
}

// useDecl is one name a `use` binds: `use a::b::c as d` binds d to
// a::b::c; a glob binds every public name of its path.
type useDecl struct {
	Name string `json:"n,omitempty"`
	Path string `json:"p"`
	Glob bool   `json:"g,omitempty"`
	Test bool   `json:"t,omitempty"` // under #[cfg(test)]: a name bound twice takes the other
	Line int    `json:"-"`
}

// encode returns the scope's JSON and its surface.
func (sc *fileScope) encode() (string, string) {
	data, err := json.Marshal(sc)
	if err != nil {
		panic(err) // plain structs: cannot fail
	}
	sum := sha256.Sum256(data)
	return string(data), hex.EncodeToString(sum[:12])
}

// decodeScope reads a stored scope; false when it is missing or does not
// decode (the file is parsed again).
func decodeScope(rel, js string) (*fileScope, bool) {
	if js == "" {
		return nil, false
	}
	sc := &fileScope{file: rel}
	if err := json.Unmarshal([]byte(js), sc); err != nil {
		return nil, false
	}
	return sc, true
}
