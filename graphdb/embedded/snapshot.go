package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"unsafe"
)

// The adjacency snapshot (<dir>/adjacency.bin) saves a built adjacency so a
// new process (every CLI call) reads a few megabytes instead of scanning the
// edge table. It is a cache: tagged with the generation it was built from,
// checksummed, replaced atomically by rename, and rebuilt whenever it is
// missing, stale or damaged. Integers are in the machine's byte order (a
// marker detects a foreign one).
//
// Layout, every section padded to 8 bytes:
//
//	header   magic[8] order u64 gen u64 nsid u64 nout u64 nin u64 nfiles u64 nids u64
//	exists   [ceil(nsid/64)]u64
//	rank     [nsid]u32
//	off      2 × [nsid+1]u32
//	ents     [nout]ent [nin]ent
//	files    string table: [nfiles+1]u32 offsets, then the bytes
//	ids      string table: [nids+1]u32 offsets, then the bytes
//	trailer  crc32c u32 of everything before it (padded to 8)

var snapshotMagic = [8]byte{'R', 'L', 'Y', 'A', 'D', 'J', '0', '1'}

const byteOrderMark = 0x0102030405060708

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (s *Store) snapshotPath() string { return filepath.Join(s.dir, snapshotName) }

const headerWords = 8 // magic + 7 u64

func pad8(n int) int { return (n + 7) &^ 7 }

func bytesOf[T any](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*int(unsafe.Sizeof(s[0])))
}

// sliceOf views b[off:off+n*size(T)] as []T; b must be 8-aligned and off a
// multiple of 8.
func sliceOf[T any](b []byte, off, n int) ([]T, int, error) {
	var zero T
	size := n * int(unsafe.Sizeof(zero))
	if n < 0 || off+size > len(b) {
		return nil, 0, errors.New("truncated")
	}
	if n == 0 {
		return nil, off, nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[off])), n), off + pad8(size), nil
}

// stringTable encodes names as offsets and bytes.
func stringTable(names []string) (offs []uint32, data []byte) {
	offs = make([]uint32, 0, len(names)+1)
	for _, n := range names {
		offs = append(offs, uint32(len(data)))
		data = append(data, n...)
	}
	return append(offs, uint32(len(data))), data
}

func saveSnapshot(dir, path string, a *adjacency) error {
	fileOffs, fileData := stringTable(a.files)
	idOffs, idData := stringTable(a.ids)
	if len(fileData) > math.MaxUint32 || len(idData) > math.MaxUint32 {
		return errors.New("snapshot: string tables too large")
	}
	hdr := make([]byte, headerWords*8)
	copy(hdr, snapshotMagic[:])
	for i, v := range []uint64{byteOrderMark, uint64(a.gen), uint64(a.nsid),
		uint64(len(a.ents[dirOut])), uint64(len(a.ents[dirIn])), uint64(len(a.files)), uint64(len(a.ids))} {
		binary.NativeEndian.PutUint64(hdr[8+8*i:], v)
	}
	sections := [][]byte{hdr, bytesOf(a.exists), bytesOf(a.rank), bytesOf(a.off[dirOut]), bytesOf(a.off[dirIn]),
		bytesOf(a.ents[dirOut]), bytesOf(a.ents[dirIn]), bytesOf(fileOffs), fileData, bytesOf(idOffs), idData}

	tmp, err := os.CreateTemp(dir, snapshotName+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	crc := crc32.New(castagnoli)
	var zeros [8]byte
	for _, sec := range sections {
		p := pad8(len(sec)) - len(sec)
		for _, chunk := range [][]byte{sec, zeros[:p]} {
			if _, err := tmp.Write(chunk); err != nil {
				tmp.Close()
				return err
			}
			crc.Write(chunk)
		}
	}
	var trailer [8]byte
	binary.NativeEndian.PutUint32(trailer[:], crc.Sum32())
	if _, err := tmp.Write(trailer[:]); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// loadSnapshot returns the saved adjacency when it is intact and of
// generation gen; (nil, nil) when there is none, (nil, err) when it is
// stale or damaged.
func loadSnapshot(path string, gen int64) (*adjacency, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hdr := make([]byte, headerWords*8)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return nil, fmt.Errorf("snapshot header: %w", err)
	}
	if [8]byte(hdr[:8]) != snapshotMagic || binary.NativeEndian.Uint64(hdr[8:]) != byteOrderMark {
		return nil, errors.New("snapshot: not an adjacency snapshot of this format")
	}
	if got := int64(binary.NativeEndian.Uint64(hdr[16:])); got != gen {
		return nil, fmt.Errorf("snapshot: generation %d, store is at %d", got, gen)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := int(st.Size())
	if size < len(hdr)+8 || size%8 != 0 {
		return nil, errors.New("snapshot: truncated")
	}
	// Read into 8-aligned memory so sections can be viewed in place.
	words := make([]uint64, size/8)
	b := bytesOf(words)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	body := b[:size-8]
	if crc32.Checksum(body, castagnoli) != binary.NativeEndian.Uint32(b[size-8:]) {
		return nil, errors.New("snapshot: checksum mismatch")
	}
	h := func(i int) int { return int(binary.NativeEndian.Uint64(b[8+8*i:])) }
	nsid, nout, nin, nfiles, nids := h(2), h(3), h(4), h(5), h(6)
	if nsid < 1 || nsid > size || nout > size || nin > size || nfiles > size || nids > size {
		return nil, errors.New("snapshot: inconsistent sizes")
	}
	a := &adjacency{gen: gen, nsid: uint32(nsid)}
	off := len(hdr)
	var errs [8]error
	a.exists, off, errs[0] = sliceOf[uint64](body, off, (nsid+63)/64)
	a.rank, off, errs[1] = sliceOf[uint32](body, off, nsid)
	a.off[dirOut], off, errs[2] = sliceOf[uint32](body, off, nsid+1)
	a.off[dirIn], off, errs[3] = sliceOf[uint32](body, off, nsid+1)
	a.ents[dirOut], off, errs[4] = sliceOf[ent](body, off, nout)
	a.ents[dirIn], off, errs[5] = sliceOf[ent](body, off, nin)
	if err := errors.Join(errs[:]...); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if int(a.off[dirOut][nsid]) != nout || int(a.off[dirIn][nsid]) != nin {
		return nil, errors.New("snapshot: inconsistent sizes")
	}
	a.files, off, err = readStrings(body, off, nfiles)
	if err != nil {
		return nil, err
	}
	a.ids, _, err = readStrings(body, off, nids)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// readStrings decodes a string table written by stringTable.
func readStrings(body []byte, off, n int) ([]string, int, error) {
	offs, off, err := sliceOf[uint32](body, off, n+1)
	if err != nil {
		return nil, 0, fmt.Errorf("snapshot: %w", err)
	}
	size := int(offs[n])
	if off+size > len(body) {
		return nil, 0, errors.New("snapshot: truncated string table")
	}
	// Zero-copy: the strings share the snapshot buffer, which is never
	// written after loading and stays alive as long as any of them does.
	data := unsafe.String(unsafe.SliceData(body[off:]), size)
	out := make([]string, n)
	for i := range n {
		lo, hi := int(offs[i]), int(offs[i+1])
		if lo > hi || hi > len(data) {
			return nil, 0, errors.New("snapshot: bad string table")
		}
		out[i] = data[lo:hi]
	}
	return out, off + pad8(size), nil
}
