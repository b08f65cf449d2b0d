package arango

import (
	"crypto/sha1"
	"encoding/hex"

	"github.com/relayhq/relay/graphdb"
)

// Collection and graph names. One relay graph lives in one database, so the
// names are fixed; pick the database in the URL.
const (
	colNodes  = "nodes"
	colEdges  = "edges"
	colFiles  = "files"
	colMeta   = "meta"
	graphName = "code"
)

// Keys of the store's own documents in the meta collection. They contain
// '-', so they never collide with the 40-hex-digit keys of Tx.SetMeta.
const (
	lockKey   = "relay-writer-lock"
	schemaKey = "relay-schema"
)

// schemaVersion is stamped into the schema document; a database written by
// another layout is refused instead of misread.
const schemaVersion = 1

// docKey maps any string (a node id, a file path, a meta key) to a valid,
// stable ArangoDB _key: the hex SHA-1 of the string. Ids hold characters
// _key forbids ('/', ':', ' ', '*'…) and may exceed its 254 bytes; the
// original string is kept in a field of the document.
func docKey(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// nodeHandle is the document handle ("nodes/<key>") of a node id, the form
// _from, _to and traversal start vertices take.
func nodeHandle(id graphdb.NodeID) string { return colNodes + "/" + docKey(string(id)) }

// suffixes lists every dotted/slashed suffix of qname: the qname itself and
// each tail after a '.' or '/'. SymbolQuery.Suffix s matches a node exactly
// when s is in this list, so an array index on it answers suffix queries.
func suffixes(qname string) []string {
	if qname == "" {
		return nil
	}
	out := []string{qname}
	for i := 0; i < len(qname); i++ {
		if (qname[i] == '.' || qname[i] == '/') && i+1 < len(qname) {
			out = append(out, qname[i+1:])
		}
	}
	return out
}

// nodeDoc is a node as stored in the nodes collection.
type nodeDoc struct {
	Key       string            `json:"_key,omitempty"`
	ID        graphdb.NodeID    `json:"id"`
	Owner     string            `json:"owner"`
	Kind      graphdb.NodeKind  `json:"kind"`
	SubKind   string            `json:"sub_kind"`
	Name      string            `json:"name"`
	QName     string            `json:"qname"`
	Loc       string            `json:"loc"`
	Language  string            `json:"language"`
	File      string            `json:"file"`
	StartLine int               `json:"start_line"`
	EndLine   int               `json:"end_line"`
	Signature string            `json:"signature"`
	Doc       string            `json:"doc"`
	Exported  bool              `json:"exported"`
	Test      bool              `json:"test"`
	Generated bool              `json:"generated"`
	Testdata  bool              `json:"testdata"`
	Attrs     map[string]string `json:"attrs,omitempty"`
	Suffixes  []string          `json:"suffixes,omitempty"`
}

func toNodeDoc(owner string, n graphdb.Node) nodeDoc {
	return nodeDoc{
		Key: docKey(string(n.ID)), ID: n.ID, Owner: owner, Kind: n.Kind, SubKind: n.SubKind,
		Name: n.Name, QName: n.QName, Loc: n.Loc, Language: n.Language, File: n.File,
		StartLine: n.StartLine, EndLine: n.EndLine, Signature: n.Signature, Doc: n.Doc,
		Exported: n.Exported, Test: n.Test, Generated: n.Generated, Testdata: n.Testdata,
		Attrs: n.Attrs, Suffixes: suffixes(n.QName),
	}
}

func (d nodeDoc) node() graphdb.Node {
	return graphdb.Node{
		ID: d.ID, Kind: d.Kind, SubKind: d.SubKind, Name: d.Name, QName: d.QName, Loc: d.Loc,
		Language: d.Language, File: d.File, StartLine: d.StartLine, EndLine: d.EndLine,
		Signature: d.Signature, Doc: d.Doc, Exported: d.Exported, Test: d.Test,
		Generated: d.Generated, Testdata: d.Testdata, Attrs: d.Attrs,
	}
}

// edgeDoc is an edge as stored in the edges collection. _from/_to make it
// traversable; from/to keep the node ids, which the handles only hash.
type edgeDoc struct {
	From   string           `json:"_from,omitempty"`
	To     string           `json:"_to,omitempty"`
	FromID graphdb.NodeID   `json:"from"`
	ToID   graphdb.NodeID   `json:"to"`
	Kind   graphdb.EdgeKind `json:"kind"`
	File   string           `json:"file"`
	Line   int              `json:"line"`
	Owner  string           `json:"owner,omitempty"`
}

func toEdgeDoc(owner string, e graphdb.Edge) edgeDoc {
	return edgeDoc{
		From: nodeHandle(e.From), To: nodeHandle(e.To), FromID: e.From, ToID: e.To,
		Kind: e.Kind, File: e.File, Line: e.Line, Owner: owner,
	}
}

func (d edgeDoc) edge() graphdb.Edge {
	return graphdb.Edge{From: d.FromID, To: d.ToID, Kind: d.Kind, File: d.File, Line: d.Line}
}

// fileDoc is an owner record in the files collection.
type fileDoc struct {
	Key      string   `json:"_key,omitempty"`
	Path     string   `json:"path"`
	Hash     string   `json:"hash"`
	Language string   `json:"language"`
	Module   string   `json:"module"`
	Size     int64    `json:"size"`
	Errors   []string `json:"errors,omitempty"`
}

func toFileDoc(f graphdb.FileRecord) fileDoc {
	return fileDoc{Key: docKey(f.Path), Path: f.Path, Hash: f.Hash, Language: f.Language,
		Module: f.Module, Size: f.Size, Errors: f.Errors}
}

func (d fileDoc) record() graphdb.FileRecord {
	return graphdb.FileRecord{Path: d.Path, Hash: d.Hash, Language: d.Language, Module: d.Module,
		Size: d.Size, Errors: d.Errors}
}

// metaDoc is one Tx.SetMeta value.
type metaDoc struct {
	Key   string `json:"_key"`
	Name  string `json:"name"`
	Value string `json:"value"`
}

// lockDoc is the writer lease (see lock.go).
type lockDoc struct {
	Key     string `json:"_key"`
	Holder  string `json:"holder"`
	Expires int64  `json:"expires"` // Unix milliseconds
}
