package embedded

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// An edge set is one owner's edges packed into a blob:
//
//	version  byte (2)
//	nfiles   uvarint, then nfiles × (uvarint length, bytes): the edge files
//	         other than the owner's path; file index 0 is the owner's path
//	nedges   uvarint, then nedges × (src uvarint, dst uvarint, kind uvarint,
//	         file index uvarint, line varint)
//	crc      4 bytes, little endian: CRC-32C of the owner's path
//	         (length-prefixed) and every byte before it
//
// src and dst are interned ids (syms.sid), kind is edgeKindCode. The
// checksum covers the owner's path, which is not in the blob, so a set
// joined to the wrong files row is refused too.
//
// The per-kind counts (edgesets.counts, what Stats sums) are the JSON
// object, '#', and the CRC-32C of the JSON in 8 hex digits.
const edgesetVersion = 2

// rawEdge is one decoded edge with interned ends.
type rawEdge struct {
	src, dst, kind, file uint32 // file: index into the set's file table
	line                 int64
}

// encodeEdges packs edges owned by owner; sid maps each id to its sid.
// counts is the JSON object {"kind": n} that Stats sums.
func encodeEdges(owner string, edges []graphdb.Edge, sid func(graphdb.NodeID) int64) (data []byte, counts string) {
	fileIdx := map[string]uint64{owner: 0}
	var files []string
	per := map[graphdb.EdgeKind]int{}
	body := make([]byte, 0, len(edges)*10)
	for _, e := range edges {
		fi, ok := fileIdx[e.File]
		if !ok {
			files = append(files, e.File)
			fi = uint64(len(files))
			fileIdx[e.File] = fi
		}
		code, _ := edgeKindCode(e.Kind)
		body = binary.AppendUvarint(body, uint64(sid(e.From)))
		body = binary.AppendUvarint(body, uint64(sid(e.To)))
		body = binary.AppendUvarint(body, uint64(code))
		body = binary.AppendUvarint(body, fi)
		body = binary.AppendVarint(body, int64(e.Line))
		per[e.Kind]++
	}
	data = make([]byte, 0, len(body)+16+len(files)*24)
	data = append(data, edgesetVersion)
	data = binary.AppendUvarint(data, uint64(len(files)))
	for _, f := range files {
		data = binary.AppendUvarint(data, uint64(len(f)))
		data = append(data, f...)
	}
	data = binary.AppendUvarint(data, uint64(len(edges)))
	data = append(data, body...)
	data = binary.LittleEndian.AppendUint32(data, edgesSum(owner, data))
	b, _ := json.Marshal(per) // map[string]int cannot fail
	return data, fmt.Sprintf("%s#%08x", b, crc32.Checksum(b, castagnoli))
}

func edgesSum(owner string, data []byte) uint32 {
	return crc32.Update(stringSum(0, owner), castagnoli, data)
}

// decodeCounts verifies and decodes an edgesets.counts value.
func decodeCounts(s string) (map[graphdb.EdgeKind]int, error) {
	i := strings.LastIndexByte(s, '#')
	if i < 0 || len(s)-i-1 != 8 {
		return nil, fmt.Errorf("edge counts: %w", errRecord)
	}
	var sum uint32
	if _, err := fmt.Sscanf(s[i+1:], "%08x", &sum); err != nil || sum != crc32.Checksum([]byte(s[:i]), castagnoli) {
		return nil, fmt.Errorf("edge counts: %w", errRecord)
	}
	var per map[graphdb.EdgeKind]int
	if err := json.Unmarshal([]byte(s[:i]), &per); err != nil {
		return nil, fmt.Errorf("edge counts: %v: %w", err, errRecord)
	}
	return per, nil
}

// decodeEdges unpacks an edge set: files[0] is owner, then the set's own
// file names; each edge goes to fn.
func decodeEdges(data []byte, owner string, fn func(files []string, e rawEdge)) error {
	if len(data) < 5 || data[0] != edgesetVersion {
		return fmt.Errorf("edge set: unknown format: %w", errRecord)
	}
	body := data[:len(data)-4]
	if binary.LittleEndian.Uint32(data[len(data)-4:]) != edgesSum(owner, body) {
		return fmt.Errorf("edge set: %w", errRecord)
	}
	p := body[1:]
	var bad bool
	uv := func() uint64 {
		v, n := binary.Uvarint(p)
		if n <= 0 {
			bad = true
			return 0
		}
		p = p[n:]
		return v
	}
	nfiles := uv()
	if bad || nfiles > uint64(len(p)) {
		return fmt.Errorf("edge set: truncated file table: %w", errRecord)
	}
	files := make([]string, 1, nfiles+1)
	files[0] = owner
	for range nfiles {
		l := uv()
		if bad || l > uint64(len(p)) {
			return fmt.Errorf("edge set: truncated file name: %w", errRecord)
		}
		files = append(files, string(p[:l]))
		p = p[l:]
	}
	n := uv()
	for i := uint64(0); i < n && !bad; i++ {
		var e rawEdge
		e.src, e.dst, e.kind, e.file = uint32(uv()), uint32(uv()), uint32(uv()), uint32(uv())
		line, k := binary.Varint(p)
		if k <= 0 {
			bad = true
			break
		}
		p = p[k:]
		e.line = line
		if int(e.file) >= len(files) || e.kind < 1 || int(e.kind) > len(graphdb.EdgeKinds) {
			return fmt.Errorf("edge set: edge %d out of range: %w", i, errRecord)
		}
		fn(files, e)
	}
	if bad || len(p) != 0 {
		return fmt.Errorf("edge set: truncated or trailing bytes: %w", errRecord)
	}
	return nil
}
