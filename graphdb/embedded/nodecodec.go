package embedded

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/relayhq/relay/graphdb"
)

// nodes.rest packs the node fields no query filters or sorts on, so a node
// row has 8 columns instead of 14: reading a column costs a driver call and
// a mutex round trip each, which dominated fetching many nodes.
//
//	flags uvarint, end_line varint, then sub_kind, language, signature, doc
//	as (uvarint length, bytes), then attrs: count uvarint and (key, value)
//	pairs in key order, each a (uvarint length, bytes).

// Node flag bits.
const (
	flagExported = 1 << iota
	flagTest
	flagGenerated
	flagTestdata
)

func nodeFlags(n graphdb.Node) uint64 {
	var f uint64
	if n.Exported {
		f |= flagExported
	}
	if n.Test {
		f |= flagTest
	}
	if n.Generated {
		f |= flagGenerated
	}
	if n.Testdata {
		f |= flagTestdata
	}
	return f
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encodeRest packs n's other fields.
func encodeRest(n graphdb.Node) []byte {
	b := make([]byte, 0, 16+len(n.SubKind)+len(n.Language)+len(n.Signature)+len(n.Doc))
	b = binary.AppendUvarint(b, nodeFlags(n))
	b = binary.AppendVarint(b, int64(n.EndLine))
	for _, s := range []string{n.SubKind, n.Language, n.Signature, n.Doc} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(n.Attrs)))
	keys := make([]string, 0, len(n.Attrs))
	for k := range n.Attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = appendString(appendString(b, k), n.Attrs[k])
	}
	return b
}

var errRest = errors.New("damaged node record; delete the store directory and run `relay index`")

// decodeRest fills n's other fields from b.
func decodeRest(b []byte, n *graphdb.Node) error {
	bad := false
	uv := func() uint64 {
		v, k := binary.Uvarint(b)
		if k <= 0 {
			bad = true
			return 0
		}
		b = b[k:]
		return v
	}
	str := func() string {
		l := uv()
		if bad || l > uint64(len(b)) {
			bad = true
			return ""
		}
		s := string(b[:l])
		b = b[l:]
		return s
	}
	flags := uv()
	end, k := binary.Varint(b)
	if bad || k <= 0 {
		return errRest
	}
	b = b[k:]
	n.EndLine = int(end)
	n.SubKind, n.Language, n.Signature, n.Doc = str(), str(), str(), str()
	n.Exported = flags&flagExported != 0
	n.Test = flags&flagTest != 0
	n.Generated = flags&flagGenerated != 0
	n.Testdata = flags&flagTestdata != 0
	if na := uv(); na > 0 && !bad {
		if na > uint64(len(b)) {
			return errRest
		}
		n.Attrs = make(map[string]string, na)
		for range na {
			k := str()
			n.Attrs[k] = str()
		}
	}
	if bad || len(b) != 0 {
		return errRest
	}
	return nil
}
