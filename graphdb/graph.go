package graphdb

import (
	"errors"
	"fmt"
	"strings"
)

// NodeID identifies a node. It is stable across index runs as long as the
// symbol keeps its qualified name, so edges from one file can point at nodes
// owned by another.
type NodeID string

// NodeKind is the coarse kind of a node.
type NodeKind string

// Node kinds.
const (
	KindModule   NodeKind = "module"   // Go package, Python module, TS file-module
	KindFile     NodeKind = "file"     // a source file
	KindType     NodeKind = "type"     // struct, class, interface, enum, alias, named type
	KindFunction NodeKind = "function" // package-level function
	KindMember   NodeKind = "member"   // method or field
)

// NodeKinds lists every node kind in a stable order.
var NodeKinds = []NodeKind{KindModule, KindFile, KindType, KindFunction, KindMember}

// EdgeKind is the relation an edge expresses.
type EdgeKind string

// Edge kinds. Directions are fixed: From is always the first noun.
const (
	EdgeCalls       EdgeKind = "calls"        // function/member → function/member; carries the call site
	EdgeImplements  EdgeKind = "implements"   // concrete type → interface
	EdgeInherits    EdgeKind = "inherits"     // class → base; Go struct/interface embedding (embedder → embedded)
	EdgeReturns     EdgeKind = "returns"      // function → type it returns
	EdgeParamOf     EdgeKind = "param_of"     // type → function taking it as a parameter
	EdgeParent      EdgeKind = "parent"       // member → type; declaration → file; file → module
	EdgeImports     EdgeKind = "imports"      // file/module → module
	EdgeDecoratedBy EdgeKind = "decorated_by" // decorated → decorator
	// EdgeReferences: function/member → function/method it uses as a
	// value without calling it there (h := handle, Register(handle),
	// struct{fn: handle}, a method value x.M); carries the site.
	EdgeReferences EdgeKind = "references"
	// EdgeCallsByName: function/member → function/member whose name matches
	// a call the frontend could not resolve by type (Python, TypeScript,
	// Java). Not a call edge: traversals over EdgeCalls never follow it;
	// `graph callers` lists these after the exact answer as possible
	// callers by name only. Carries the call site.
	EdgeCallsByName EdgeKind = "calls_by_name"
)

// EdgeKinds lists every edge kind in a stable order.
// New kinds are only ever appended: the embedded store persists a kind as
// its position here.
var EdgeKinds = []EdgeKind{EdgeCalls, EdgeImplements, EdgeInherits, EdgeReturns, EdgeParamOf, EdgeParent, EdgeImports, EdgeDecoratedBy, EdgeReferences, EdgeCallsByName}

// Direction selects which end of an edge a traversal follows.
type Direction int

// Directions.
const (
	Outbound Direction = iota // follow From → To
	Inbound                   // follow To → From
)

func (d Direction) String() string {
	if d == Inbound {
		return "inbound"
	}
	return "outbound"
}

// Node is one symbol or container in the code graph.
type Node struct {
	ID       NodeID   `json:"id"`
	Kind     NodeKind `json:"kind"`
	SubKind  string   `json:"sub_kind,omitempty"` // struct, interface, alias, method, field, package, class…
	Name     string   `json:"name"`               // short name: "Serve"
	QName    string   `json:"qname"`              // "net/http.Server.Serve"
	Loc      string   `json:"loc,omitempty"`      // location name: "net/http/server.go:Server.Serve"
	Language string   `json:"language"`
	File     string   `json:"file,omitempty"` // repo-relative, slash-separated
	// StartLine and EndLine are 1-based and inclusive; 0 when unknown.
	StartLine int    `json:"start_line,omitempty"`
	EndLine   int    `json:"end_line,omitempty"`
	Signature string `json:"signature,omitempty"`
	Doc       string `json:"doc,omitempty"` // first line of the doc comment
	Exported  bool   `json:"exported,omitempty"`
	Test      bool   `json:"test,omitempty"`      // declared in a test file / test package
	Generated bool   `json:"generated,omitempty"` // declared in a generated file
	Testdata  bool   `json:"testdata,omitempty"`  // declared under a testdata directory
	// Attrs holds language-specific facts that have no column of their own.
	// Keys are namespaced by language ("go.methodset"), except AttrSynthetic
	// and AttrExternal.
	// Backends store them verbatim and never interpret them.
	Attrs map[string]string `json:"attrs,omitempty"`
}

// AttrSynthetic is the Attrs key of nodes that stand for no declaration in
// the source; its value says what they stand for. A Go file's
// package-level variable initialisers are one synthetic function (value
// "go.varinit") that owns their calls. Its lines span those declarations,
// possibly with other declarations between them, so consumers that map
// lines to enclosing symbols (chunking, review) skip it.
const AttrSynthetic = "synthetic"

// Synthetic reports whether n stands for no declaration (AttrSynthetic).
func (n Node) Synthetic() bool { return n.Attrs[AttrSynthetic] != "" }

// AttrExternal is the Attrs key of nodes declared outside the repository;
// its value names where (a Go import path, "builtin" for error). They exist
// because repository code refers to them (Go: interfaces the repository
// uses, so that implements and interface calls can point at them) and have
// no File, Loc or lines: consumers that show or chunk source skip them.
const AttrExternal = "external"

// External reports whether n is declared outside the repository
// (AttrExternal).
func (n Node) External() bool { return n.Attrs[AttrExternal] != "" }

// AttrPointerMethods is the Attrs key of a Go concrete type node T whose
// method set lacks methods that *T's has (declared with a pointer receiver,
// or promoted from an embedded type whose method has one): their names,
// comma-separated and sorted. An interface needing one of them is
// implemented by *T only.
const AttrPointerMethods = "go.pointer_methods"

// AttrEmbeddedMethods is the Attrs key of a Go interface node whose method
// set has methods it does not declare itself (they come from embedded
// interfaces and have no member node under it): their names,
// comma-separated and sorted.
const AttrEmbeddedMethods = "go.embedded_methods"

// Edge is one directed relation. Calls carry the call site in File/Line; other
// kinds may carry the declaring position.
type Edge struct {
	From NodeID   `json:"from"`
	To   NodeID   `json:"to"`
	Kind EdgeKind `json:"kind"`
	File string   `json:"file,omitempty"`
	Line int      `json:"line,omitempty"`
}

// Key returns a string that identifies e among all edges: two call edges
// between the same functions at different sites are different edges.
func (e Edge) Key() string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%d", e.From, e.To, e.Kind, e.File, e.Line)
}

// FileRecord describes one owner: a source file, or a pseudo-owner whose path
// starts with "@" (facts computed across files, such as Go's implements edges).
type FileRecord struct {
	Path     string   `json:"path"`               // repo-relative, slash-separated
	Hash     string   `json:"hash,omitempty"`     // content hash used for incremental indexing
	Language string   `json:"language,omitempty"` // "go", "python", …
	Module   string   `json:"module,omitempty"`   // package import path / module name
	Size     int64    `json:"size,omitempty"`
	Errors   []string `json:"errors,omitempty"` // parse/type errors reported for this file
}

// IsPseudo reports whether the owner is not a real file.
func (f FileRecord) IsPseudo() bool { return strings.HasPrefix(f.Path, "@") }

// Stats counts what a store holds.
type Stats struct {
	Files int              `json:"files"`
	Nodes map[NodeKind]int `json:"nodes"`
	Edges map[EdgeKind]int `json:"edges"`
}

// TotalNodes sums Nodes.
func (s Stats) TotalNodes() int {
	n := 0
	for _, v := range s.Nodes {
		n += v
	}
	return n
}

// TotalEdges sums Edges.
func (s Stats) TotalEdges() int {
	n := 0
	for _, v := range s.Edges {
		n += v
	}
	return n
}

// Errors shared by every backend; test with errors.Is.
var (
	ErrNotFound  = errors.New("not found")
	ErrLocked    = errors.New("store is locked by another writer")
	ErrAmbiguous = errors.New("ambiguous target")
	ErrClosed    = errors.New("store is closed")
	// ErrCorrupt is wrapped by every answer a backend refuses because the
	// stored data failed a check (a record or file checksum, the database
	// engine's own integrity checks). The data is derived from the source
	// tree: rebuilding the index repairs it.
	ErrCorrupt = errors.New("store is damaged")
)

// NoIndexError is the ErrNotFound of a store that holds no index yet: it
// says where the index was looked for and, when there is more to say, what
// is missing there. What to do about it depends on who reads it (run the
// indexer on the command line; nothing for the bot, which indexes before
// every job), so the message states the problem only and the surface adds
// its advice (internal/advice). It is a whole sentence: wrapping
// ErrNotFound with %w instead ended it with a stray ": not found".
type NoIndexError struct {
	Where string // the store: a directory, or a URL such as arangodb://host/db
	Why   string // what is missing there, e.g. `database "relay" does not exist`; "" when nothing more is known
}

func (e *NoIndexError) Error() string {
	if e.Why == "" {
		return "no index at " + e.Where
	}
	return "no index at " + e.Where + ": " + e.Why
}

// Is makes errors.Is(err, ErrNotFound) true.
func (e *NoIndexError) Is(target error) bool { return target == ErrNotFound }
