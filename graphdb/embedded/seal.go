package embedded

import (
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
// A writer removes the seal before its first change (Begin) and writes a
// new one when it closes, holding the write lock throughout. While no seal
// exists — a writer is at work, or one died — or while the log holds
// frames, opens skip this check and rely on the per-record checksums and
// SQLite's own checks (and a quick_check, see open).
//
//	graph.seal  header: magic[8] then u64s: byte-order mark, file size,
//	            chunk size, chunk count; then the chunk CRCs ([n]u32);
//	            sections padded to 8 and the file's own CRC-32C last
//	            (writeAtomic, as the adjacency snapshots).

const (
	sealName  = "graph.seal"
	sealChunk = 1 << 20
)

var sealMagic = [8]byte{'R', 'L', 'Y', 'S', 'E', 'A', 'L', '1'}

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

// writeSeal hashes graph.db (size bytes) and writes the seal.
func writeSeal(dir string, size int64) error {
	sums, err := hashFile(filepath.Join(dir, dbName), size)
	if err != nil {
		return err
	}
	h := make([]byte, headerBytes)
	copy(h, sealMagic[:])
	for i, v := range []uint64{byteOrderMark, uint64(size), sealChunk, uint64(len(sums))} {
		binary.NativeEndian.PutUint64(h[8+8*i:], v)
	}
	return writeAtomic(filepath.Join(dir, sealName), h, bytesOf(sums))
}

// readSeal returns the raw seal file; errNoSeal when there is none or it
// cannot be read (it is private to its writer, 0600 like the snapshots,
// and another user may read the store): the store is then treated as
// unsealed, not as damaged.
func readSeal(dir string) ([]byte, error) {
	b, err := os.ReadFile(filepath.Join(dir, sealName))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoSeal, err)
	}
	return b, nil
}

// parseSeal checks a seal file and returns the size and chunk CRCs it
// records.
func parseSeal(b []byte) (int64, []uint32, error) {
	bad := fmt.Errorf("%s is damaged", sealName)
	if len(b) < headerBytes+8 || len(b)%8 != 0 {
		return 0, nil, bad
	}
	body := b[:len(b)-8]
	if crc32.Checksum(body, castagnoli) != binary.NativeEndian.Uint32(b[len(b)-8:]) ||
		[8]byte(b[:8]) != sealMagic || binary.NativeEndian.Uint64(b[8:]) != byteOrderMark {
		return 0, nil, bad
	}
	size := int64(binary.NativeEndian.Uint64(b[16:]))
	chunk := binary.NativeEndian.Uint64(b[24:])
	n := binary.NativeEndian.Uint64(b[32:])
	if chunk != sealChunk || size < 0 || n != uint64((size+sealChunk-1)/sealChunk) || headerBytes+pad8(int(n)*4) != len(body) {
		return 0, nil, bad
	}
	sums := make([]uint32, n)
	for i := range sums {
		sums[i] = binary.NativeEndian.Uint32(body[headerBytes+4*i:])
	}
	return size, sums, nil
}

// walFrames reports whether graph.db-wal holds anything.
func walFrames(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, dbName+"-wal"))
	return err == nil && st.Size() > 0
}

// verifySeal checks graph.db against its seal. It returns nil when they
// match, errNoSeal when there is nothing to check (no seal, or the log holds
// frames: a writer is at work), and otherwise an error describing the
// damage. A writer that starts while the file is hashed removes or replaces
// the seal; the check then starts over rather than report damage.
func verifySeal(dir string) error {
	for attempt := 0; ; attempt++ {
		raw, err := readSeal(dir)
		if err != nil {
			return err
		}
		if walFrames(dir) {
			return errNoSeal
		}
		damage := checkAgainst(dir, raw)
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

func checkAgainst(dir string, raw []byte) error {
	size, sums, err := parseSeal(raw)
	if err != nil {
		return err
	}
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
