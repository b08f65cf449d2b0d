package embedded

import (
	"crypto/hmac"
	"crypto/sha256"
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

// Adjacency snapshots save a built adjacency so a new process (every CLI
// call) reads a few megabytes instead of decoding every edge set. They are
// a cache: three files, each tagged with the generation it was built from,
// checksummed, replaced atomically by rename, and rebuilt whenever missing,
// stale or damaged. The two directions live in separate files so a query
// that follows one direction (callers) reads only that one.
//
//	adjacency.bin      header, exists [ceil(nsid/64)]u64, rank [nsid]u32,
//	                   files string table ([n+1]u32 offsets, bytes)
//	adjacency.out.bin  header, off [nsid+1]u32, ents [n]ent (outbound)
//	adjacency.in.bin   the same, inbound
//
// A header is magic[8] then u64s: byte-order mark, generation, nsid, n.
// Every section is padded to 8 bytes; after the sections comes the tag (32
// bytes), then the CRC-32C of everything before it (padded to 8). Integers
// are in the machine's byte order (the mark detects a foreign one).
//
// The tag is the HMAC-SHA256 under the store key (Options.Key; zero
// without one) of the magic, the inode of graph.db and the CRC-32C of the
// sections: a snapshot is believed only in the store it was built for, so
// one that came with the repository (a checkout rewrites ignored files) is
// not loaded even when its generation matches. The MAC covers the CRC, not
// the bytes, so that loading costs no extra hash pass; a changed copy of
// this store's own snapshot with the same CRC is the one thing it does not
// catch, and that needs the genuine snapshot, which stays on this machine.

var (
	commonMagic = [8]byte{'R', 'L', 'Y', 'A', 'D', 'J', 'C', '2'}
	dirMagic    = [2][8]byte{{'R', 'L', 'Y', 'A', 'D', 'J', 'O', '2'}, {'R', 'L', 'Y', 'A', 'D', 'J', 'I', '2'}}
)

// snapTag is what a snapshot's tag is computed from besides its contents:
// the store key (nil: tags are zero and not checked) and the inode of
// graph.db.
type snapTag struct {
	key []byte
	ino uint64
}

// sum returns the tag of a snapshot of the given magic and sections.
func (t snapTag) sum(magic []byte, sections ...[]byte) []byte {
	if t.key == nil {
		return make([]byte, sha256.Size)
	}
	crc := crc32.New(castagnoli)
	var zeros [8]byte
	for _, sec := range sections {
		crc.Write(sec)
		crc.Write(zeros[:pad8(len(sec))-len(sec)])
	}
	m := hmac.New(sha256.New, t.key)
	var buf [12]byte
	binary.NativeEndian.PutUint64(buf[:], t.ino)
	binary.NativeEndian.PutUint32(buf[8:], crc.Sum32())
	m.Write([]byte("relay adjacency snapshot\x00"))
	m.Write(magic)
	m.Write(buf[:])
	return m.Sum(nil)
}

const (
	byteOrderMark = 0x0102030405060708
	headerBytes   = 8 + 4*8
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func (s *Store) snapshotPaths() (common string, dirs [2]string) {
	return filepath.Join(s.dir, snapshotName),
		[2]string{filepath.Join(s.dir, "adjacency.out.bin"), filepath.Join(s.dir, "adjacency.in.bin")}
}

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

func header(magic [8]byte, gen int64, nsid uint32, n int) []byte {
	h := make([]byte, headerBytes)
	copy(h, magic[:])
	for i, v := range []uint64{byteOrderMark, uint64(gen), uint64(nsid), uint64(n)} {
		binary.NativeEndian.PutUint64(h[8+8*i:], v)
	}
	return h
}

// writeAtomic writes sections (each padded to 8) and the checksum to a
// temporary file and renames it over path.
func writeAtomic(path string, sections ...[]byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp-"+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	crc := crc32.New(castagnoli)
	var zeros [8]byte
	for _, sec := range sections {
		for _, chunk := range [][]byte{sec, zeros[:pad8(len(sec))-len(sec)]} {
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

// saveSnapshot writes the three files of a fully built adjacency.
func saveSnapshot(common string, dirs [2]string, a *adjacency, tag snapTag) error {
	write := func(path string, magic [8]byte, sections ...[]byte) error {
		return writeAtomic(path, append(sections, tag.sum(magic[:], sections...))...)
	}
	for d := range 2 {
		c := a.dirs[d].Load()
		if err := write(dirs[d], dirMagic[d], header(dirMagic[d], a.gen, a.nsid, len(c.ents)), bytesOf(c.off), bytesOf(c.ents)); err != nil {
			return err
		}
	}
	offs, data := stringTable(a.files)
	if len(data) > math.MaxUint32 {
		return errors.New("snapshot: file names too large")
	}
	return write(common, commonMagic, header(commonMagic, a.gen, a.nsid, len(a.files)), bytesOf(a.exists), bytesOf(a.rank), bytesOf(offs), data)
}

// readChecked reads a snapshot file into 8-aligned memory and verifies its
// magic, byte order, generation, checksum and tag. It returns the body
// (without the tag and the trailer), nsid and n; (nil, nil) when the file
// does not exist.
func readChecked(path string, magic [8]byte, gen int64, tag snapTag) (body []byte, nsid, n int, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 0, 0, nil
	}
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	hdr := make([]byte, headerBytes)
	if _, err := f.ReadAt(hdr, 0); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: header: %w", path, err)
	}
	if [8]byte(hdr[:8]) != magic || binary.NativeEndian.Uint64(hdr[8:]) != byteOrderMark {
		return nil, 0, 0, fmt.Errorf("%s: not a snapshot of this format", path)
	}
	if got := int64(binary.NativeEndian.Uint64(hdr[16:])); got != gen {
		return nil, 0, 0, fmt.Errorf("%s: generation %d, store is at %d", path, got, gen)
	}
	st, err := f.Stat()
	if err != nil {
		return nil, 0, 0, err
	}
	size := int(st.Size())
	if size < headerBytes+sha256.Size+8 || size%8 != 0 {
		return nil, 0, 0, fmt.Errorf("%s: truncated", path)
	}
	words := make([]uint64, size/8) // 8-aligned so sections can be viewed in place
	b := bytesOf(words)
	if _, err := f.ReadAt(b, 0); err != nil {
		return nil, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	body = b[:size-8]
	if crc32.Checksum(body, castagnoli) != binary.NativeEndian.Uint32(b[size-8:]) {
		return nil, 0, 0, fmt.Errorf("%s: checksum mismatch", path)
	}
	body, mac := body[:len(body)-sha256.Size], body[len(body)-sha256.Size:]
	if tag.key != nil && !hmac.Equal(mac, tag.sum(magic[:], body)) {
		return nil, 0, 0, fmt.Errorf("%s: not built for this store (its tag does not verify with this user's key)", path)
	}
	nsid, n = int(binary.NativeEndian.Uint64(hdr[24:])), int(binary.NativeEndian.Uint64(hdr[32:]))
	if nsid < 1 || nsid > size || n < 0 || n > size {
		return nil, 0, 0, fmt.Errorf("%s: inconsistent sizes", path)
	}
	return body, nsid, n, nil
}

// loadCommon returns the shared part of a saved adjacency of generation
// gen, without directions; (nil, nil) when there is none.
func loadCommon(path string, gen int64, tag snapTag) (*adjacency, error) {
	body, nsid, nfiles, err := readChecked(path, commonMagic, gen, tag)
	if body == nil || err != nil {
		return nil, err
	}
	a := &adjacency{gen: gen, nsid: uint32(nsid)}
	off := headerBytes
	var e1, e2 error
	a.exists, off, e1 = sliceOf[uint64](body, off, (nsid+63)/64)
	a.rank, off, e2 = sliceOf[uint32](body, off, nsid)
	if err := errors.Join(e1, e2); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a.files, _, err = readStrings(body, off, nfiles)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// loadDir returns one saved direction of generation gen for nsid sids;
// (nil, nil) when there is none.
func loadDir(path string, d int, gen int64, nsid uint32, tag snapTag) (*csr, error) {
	body, n, nents, err := readChecked(path, dirMagic[d], gen, tag)
	if body == nil || err != nil {
		return nil, err
	}
	if n != int(nsid) {
		return nil, fmt.Errorf("%s: %d ids, the rest of the snapshot has %d", path, n, nsid)
	}
	c := &csr{}
	off := headerBytes
	var e1, e2 error
	c.off, off, e1 = sliceOf[uint32](body, off, n+1)
	c.ents, _, e2 = sliceOf[ent](body, off, nents)
	if err := errors.Join(e1, e2); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int(c.off[n]) != nents {
		return nil, fmt.Errorf("%s: inconsistent sizes", path)
	}
	for i := range n {
		if c.off[i] > c.off[i+1] {
			return nil, fmt.Errorf("%s: offsets out of order", path)
		}
	}
	return c, nil
}

// readStrings decodes a string table written by stringTable.
func readStrings(body []byte, off, n int) ([]string, int, error) {
	offs, off, err := sliceOf[uint32](body, off, n+1)
	if err != nil {
		return nil, 0, err
	}
	size := int(offs[n])
	if off+size > len(body) {
		return nil, 0, errors.New("truncated string table")
	}
	// Zero-copy: the strings share the snapshot buffer, which is never
	// written after loading and stays alive as long as any of them does.
	data := unsafe.String(unsafe.SliceData(body[off:]), size)
	out := make([]string, n)
	for i := range n {
		lo, hi := int(offs[i]), int(offs[i+1])
		if lo > hi || hi > len(data) {
			return nil, 0, errors.New("bad string table")
		}
		out[i] = data[lo:hi]
	}
	return out, off + pad8(size), nil
}
