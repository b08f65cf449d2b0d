package embedded

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
)

// A seal is the checksum of graph.db as the last writer left it: the
// CRC-32 of every 1 MiB chunk of the file (IEEE: Go computes it with
// carry-less multiplication, a third faster here than CRC-32C, and every
// open pays for it), written to graph.seal after the
// write-ahead log was checkpointed into graph.db and truncated. SQLite does
// not checksum its pages, so a bit flipped in the file (a bad disk, a
// damaged copy, a stray write) would otherwise be answered from: a name
// changed in an index entry hides a symbol without any error. Every open
// verifies the seal, so a store at rest is checked byte for byte before
// anything is answered from it; a mismatch is damage (graphdb.ErrCorrupt).
//
// A writer replaces the seal with an open one (no checksums: "a writer is
// at work") before its first change (Begin) and writes a closed one when it
// closes, holding the write lock throughout. While the seal is open — a
// writer is at work, or one died — or while the log holds frames, opens
// skip the checksum check and rely on the per-record checksums and
// SQLite's own checks (and a quick_check, see open).
//
// Ownership: every seal, open or closed, carries an HMAC-SHA256 under
// Options.Key over its header (which holds the inode of graph.db) and its
// checksums. With a Key, a store whose seal is missing, of an older
// format, or whose MAC does not verify is foreign (ErrForeign): relay did
// not write it here — it came with the repository, was copied in, or
// belongs to another user. The inode ties the MAC to the file relay wrote:
// a checkout or copy of a store, even one this machine sealed, is a new
// file with another inode, so CRC-32's forgeability does not let a changed
// copy keep a valid seal. (A process that may write the store in place can
// change it anyway; that is not what the MAC guards against.)
//
//	graph.seal  header: magic[8] then u64s: byte-order mark, file size,
//	            chunk size, chunk count, inode of graph.db, state (0
//	            closed, 1 open); then the chunk CRCs ([n]u32); then the
//	            MAC (32 bytes, zero without a Key); sections padded to 8
//	            and the file's own CRC-32C last (writeAtomic, as the
//	            adjacency snapshots).

const (
	sealName  = "graph.seal"
	sealChunk = 1 << 20
	// sealHeaderBytes: the magic and six u64s.
	sealHeaderBytes = 8 + 6*8
	sealMACBytes    = sha256.Size
)

var (
	sealMagic    = [8]byte{'R', 'L', 'Y', 'S', 'E', 'A', 'L', '2'}
	oldSealMagic = [8]byte{'R', 'L', 'Y', 'S', 'E', 'A', 'L', '1'}
)

// seal states
const (
	sealClosed = 0
	sealOpen   = 1
)

// errNoSeal: the store is not sealed (or is being written); nothing to check.
var errNoSeal = errors.New("no seal")

// hashFile returns the chunk CRCs of the first size bytes of path, hashed
// in parallel (a std-sized graph.db is ~50 MB). The file is memory-mapped
// where the platform allows (mapFile), which halves the cost: reading it
// into a buffer spent more time copying than hashing.
func hashFile(path string, size int64) ([]uint32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := int((size + sealChunk - 1) / sealChunk)
	sums := make([]uint32, n)
	if size == 0 {
		return sums, nil
	}
	data, unmap, err := mapFile(f, size)
	if err != nil {
		data, unmap = nil, func() {}
	}
	defer unmap()
	workers := min(runtime.GOMAXPROCS(0), 4, n)
	var wg sync.WaitGroup
	errs := make([]error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if data != nil {
				// A file truncated under the mapping (by something other
				// than relay) faults; report it instead of crashing.
				defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
				defer func() {
					if r := recover(); r != nil {
						errs[w] = fmt.Errorf("%s changed while it was read: %v", path, r)
					}
				}()
			}
			var buf []byte
			for i := w; i < n; i += workers {
				off := int64(i) * sealChunk
				end := min(off+sealChunk, size)
				if data != nil {
					sums[i] = crc32.ChecksumIEEE(data[off:end])
					continue
				}
				if buf == nil {
					buf = make([]byte, sealChunk)
				}
				b := buf[:end-off]
				if _, err := f.ReadAt(b, off); err != nil {
					if errors.Is(err, io.EOF) {
						err = io.ErrUnexpectedEOF
					}
					errs[w] = err
					return
				}
				sums[i] = crc32.ChecksumIEEE(b)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return sums, nil
}

// writeSeal hashes graph.db (size bytes) and writes a closed seal.
func writeSeal(dir string, size int64, key []byte) error {
	sums, err := hashFile(filepath.Join(dir, dbName), size)
	if err != nil {
		return err
	}
	return writeSealFile(dir, sealClosed, size, sums, key)
}

// writeOpenSeal writes an open seal: graph.db is relay's (the MAC says so)
// but about to change, so there are no checksums to verify.
func writeOpenSeal(dir string, key []byte) error {
	return writeSealFile(dir, sealOpen, 0, nil, key)
}

func writeSealFile(dir string, state uint64, size int64, sums []uint32, key []byte) error {
	ino, err := fileIno(filepath.Join(dir, dbName))
	if err != nil {
		return err
	}
	h := make([]byte, sealHeaderBytes)
	copy(h, sealMagic[:])
	for i, v := range []uint64{byteOrderMark, uint64(size), sealChunk, uint64(len(sums)), ino, state} {
		binary.NativeEndian.PutUint64(h[8+8*i:], v)
	}
	body := bytesOf(sums)
	return writeAtomic(filepath.Join(dir, sealName), h, body, sealMAC(key, h, body))
}

// sealMAC is the HMAC-SHA256 under key of a seal's header and checksums
// (as written, padded to 8); zero without a key.
func sealMAC(key, header, sums []byte) []byte {
	if key == nil {
		return make([]byte, sealMACBytes)
	}
	m := hmac.New(sha256.New, key)
	m.Write(header)
	m.Write(sums)
	m.Write(make([]byte, pad8(len(sums))-len(sums)))
	return m.Sum(nil)
}

// readSeal returns the raw seal file; errNoSeal when there is none or it
// cannot be read (it is private to its writer, 0600 like the snapshots,
// and another user may read the store).
func readSeal(dir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, sealName))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoSeal, err)
	}
	return b, nil
}

// sealInfo is a parsed seal.
type sealInfo struct {
	size  int64
	sums  []uint32
	ino   uint64
	open  bool
	mac   []byte
	macOK func(key []byte) bool // whether mac is the seal's MAC under key
}

// errOldSeal: the seal was written by a relay before seals carried a MAC.
var errOldSeal = errors.New("sealed by an older relay")

// parseSeal checks a seal file and returns what it records.
func parseSeal(b []byte) (sealInfo, error) {
	bad := fmt.Errorf("%s is damaged", sealName)
	if len(b) >= 8 && [8]byte(b[:8]) == oldSealMagic {
		return sealInfo{}, errOldSeal
	}
	if len(b) < sealHeaderBytes+sealMACBytes+8 || len(b)%8 != 0 {
		return sealInfo{}, bad
	}
	body := b[:len(b)-8]
	if crc32.Checksum(body, castagnoli) != binary.NativeEndian.Uint32(b[len(b)-8:]) ||
		[8]byte(b[:8]) != sealMagic || binary.NativeEndian.Uint64(b[8:]) != byteOrderMark {
		return sealInfo{}, bad
	}
	u := func(i int) uint64 { return binary.NativeEndian.Uint64(b[8+8*i:]) }
	size, chunk, n, ino, state := int64(u(1)), u(2), u(3), u(4), u(5)
	if chunk != sealChunk || size < 0 || n != uint64((size+sealChunk-1)/sealChunk) || state > sealOpen ||
		state == sealOpen && n != 0 || sealHeaderBytes+pad8(int(n)*4)+sealMACBytes != len(body) {
		return sealInfo{}, bad
	}
	sums := make([]uint32, n)
	for i := range sums {
		sums[i] = binary.NativeEndian.Uint32(body[sealHeaderBytes+4*i:])
	}
	sumBytes := body[sealHeaderBytes : len(body)-sealMACBytes]
	mac := body[len(body)-sealMACBytes:]
	return sealInfo{size: size, sums: sums, ino: ino, open: state == sealOpen, mac: mac,
		macOK: func(key []byte) bool { return hmac.Equal(mac, sealMAC(key, b[:sealHeaderBytes], sumBytes[:n*4])) },
	}, nil
}

// ownership is how opens judge whose a store is: key is Options.Key (nil:
// not judged), trust is Options.TrustForeign.
type ownership struct {
	key   []byte
	trust bool
}

// ForeignError is the error of a store whose seal does not carry this
// key's MAC. It wraps ErrForeign; rebuilding the index (or trusting the
// store, Options.TrustForeign) makes it usable.
type ForeignError struct {
	Dir string // the store directory
	Why string // why the seal does not show it is this key's
}

func (e *ForeignError) Error() string {
	return fmt.Sprintf("the index at %s was not written by relay for this user on this machine (%s): it may have come with the repository or been copied in, and is not believed", e.Dir, e.Why)
}

// Unwrap returns ErrForeign.
func (e *ForeignError) Unwrap() error { return ErrForeign }

// checkOwner returns nil when raw (the seal, nil when there is none) shows
// that graph.db in dir is this key's, and a *ForeignError saying why not
// otherwise. Without a key, or with trust, every store passes.
func (o ownership) checkOwner(dir string, raw []byte) error {
	if o.key == nil || o.trust {
		return nil
	}
	if raw == nil {
		return &ForeignError{dir, "it has no " + sealName}
	}
	info, err := parseSeal(raw)
	switch {
	case errors.Is(err, errOldSeal):
		return &ForeignError{dir, sealName + " was written by an older relay, without a MAC"}
	case err != nil:
		return &ForeignError{dir, err.Error()}
	case !info.macOK(o.key):
		return &ForeignError{dir, "the MAC in " + sealName + " does not verify with this user's key"}
	}
	ino, err := fileIno(filepath.Join(dir, dbName))
	if err != nil {
		return err
	}
	if ino != info.ino {
		return &ForeignError{dir, dbName + " is not the file relay sealed (another inode: a copy or a checkout)"}
	}
	return nil
}

// walFrames reports whether graph.db-wal holds anything.
func walFrames(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, dbName+"-wal"))
	return err == nil && st.Size() > 0
}

// verifySeal checks graph.db against its seal. It returns a *ForeignError
// when the store is not o's (see checkOwner), nil when graph.db matches the
// seal, errNoSeal when there is nothing to check (no seal where ownership
// is not judged, an open seal, an older relay's seal, or a log holding
// frames: a writer is at work), and otherwise an error describing the
// damage. A writer that starts while the file is hashed replaces the seal;
// the check then starts over rather than report damage.
func verifySeal(dir string, o ownership) error {
	for attempt := 0; ; attempt++ {
		raw, err := readSeal(dir)
		if err != nil {
			if ferr := o.checkOwner(dir, nil); ferr != nil {
				return ferr
			}
			return err
		}
		if err := o.checkOwner(dir, raw); err != nil {
			return err
		}
		info, err := parseSeal(raw)
		switch {
		case errors.Is(err, errOldSeal):
			return errNoSeal
		case err != nil:
			return err
		case info.open || walFrames(dir):
			return errNoSeal
		}
		damage := checkAgainst(dir, info)
		if damage == nil {
			return nil
		}
		again, err := readSeal(dir)
		if errors.Is(err, errNoSeal) {
			return errNoSeal
		}
		if err == nil && string(again) == string(raw) && !walFrames(dir) {
			return damage
		}
		if attempt == 2 {
			return errNoSeal // a writer keeps changing it: not at rest
		}
	}
}

// sealedBy reports whether dir holds a closed seal whose MAC verifies
// under key for the graph.db there: nothing was written since it was
// sealed, by this key's owner.
func sealedBy(dir string, key []byte) bool {
	raw, err := readSeal(dir)
	if err != nil {
		return false
	}
	info, err := parseSeal(raw)
	if err != nil || info.open || !info.macOK(key) {
		return false
	}
	ino, err := fileIno(filepath.Join(dir, dbName))
	return err == nil && ino == info.ino
}

func checkAgainst(dir string, info sealInfo) error {
	size, sums := info.size, info.sums
	st, err := os.Stat(filepath.Join(dir, dbName))
	if err != nil {
		return err
	}
	if st.Size() != size {
		return fmt.Errorf("%s is %d bytes, it was %d bytes when last written", dbName, st.Size(), size)
	}
	got, err := hashFile(filepath.Join(dir, dbName), size)
	if err != nil {
		return err
	}
	bad, first := 0, -1
	for i := range sums {
		if got[i] != sums[i] {
			bad++
			if first < 0 {
				first = i
			}
		}
	}
	if bad > 0 {
		return fmt.Errorf("%s does not match the checksum written when it was last indexed: %d of its %d MiB differ, the first from byte %d", dbName, bad, len(sums), int64(first)*sealChunk)
	}
	return nil
}
