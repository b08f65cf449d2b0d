package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"unsafe"

	"github.com/relayhq/relay/graphdb"
)

// nodes.rest packs the node fields no query filters or sorts on, so a node
// row has 8 columns instead of 14: reading a column costs a driver call and
// a mutex round trip each, which dominated fetching many nodes.
//
//	flags uvarint, end_line varint, then sub_kind, language, signature, doc
//	as (uvarint length, bytes), then attrs: count uvarint and (key, value)
//	pairs in key order, each a (uvarint length, bytes); last the CRC-32C
//	(4 bytes, little endian) of the node's id, kind, name, qname, loc,
//	file and start_line (see nodeSum) followed by everything before it.
//
// The checksum covers the row's plain columns too, so a damaged name or a
// row reached through a damaged index entry is refused (errRecord) instead
// of answered.

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

// encodeRest packs n's other fields and the row's checksum.
func encodeRest(n graphdb.Node) []byte {
	b := make([]byte, 0, 20+len(n.SubKind)+len(n.Language)+len(n.Signature)+len(n.Doc))
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
	return binary.LittleEndian.AppendUint32(b, nodeSum(&n, b))
}

// errRecord is wrapped by every record (node, id, file, edge set) whose
// checksum or encoding is wrong; the store turns it into graphdb.ErrCorrupt.
var errRecord = errors.New("record checksum mismatch")

var errRest = fmt.Errorf("node record: %w", errRecord)

// nodeSum is the CRC-32C of the node's column values (each length-prefixed,
// so shifting bytes between two columns changes it) and the rest payload.
func nodeSum(n *graphdb.Node, payload []byte) uint32 {
	var scratch [binary.MaxVarintLen64]byte
	c := uint32(0)
	for _, s := range [...]string{string(n.ID), string(n.Kind), n.Name, n.QName, n.Loc, n.File} {
		c = crc32.Update(c, castagnoli, binary.AppendUvarint(scratch[:0], uint64(len(s))))
		c = crc32.Update(c, castagnoli, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	c = crc32.Update(c, castagnoli, binary.AppendVarint(scratch[:0], int64(n.StartLine)))
	return crc32.Update(c, castagnoli, payload)
}

// stringSum is the CRC-32C of length-prefixed strings and an integer: the
// checksum of a syms row (sid, id) and of a files row.
func stringSum(i int64, ss ...string) uint32 {
	var scratch [binary.MaxVarintLen64]byte
	c := crc32.Update(0, castagnoli, binary.AppendVarint(scratch[:0], i))
	for _, s := range ss {
		c = crc32.Update(c, castagnoli, binary.AppendUvarint(scratch[:0], uint64(len(s))))
		c = crc32.Update(c, castagnoli, unsafe.Slice(unsafe.StringData(s), len(s)))
	}
	return c
}

// decodeRest verifies the row's checksum (n's column fields must already be
// set) and fills n's other fields from b.
func decodeRest(b []byte, n *graphdb.Node) error {
	if len(b) < 4 {
		return errRest
	}
	payload := b[:len(b)-4]
	if binary.LittleEndian.Uint32(b[len(b)-4:]) != nodeSum(n, payload) {
		return errRest
	}
	b = payload
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

// symSum is the checksum of a syms row.
func symSum(sid int64, id string) int64 { return int64(stringSum(sid, id)) }

// fileSum is the checksum of a files row (errors as stored, "" for NULL).
func fileSum(path, hash, language, module string, size int64, errs string) int64 {
	return int64(stringSum(size, path, hash, language, module, errs))
}
