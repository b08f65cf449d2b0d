package diskindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// DESIGN: every file of the index (the commit file retrieve.idx and its
// segments, segment.go) is a fixed header and a payload:
//
//	magic | version uint32 | CRC-32C of the payload uint32 | payload length uint64 | payload
//
// (big endian, 24 bytes of header; the magic is "RELAYIX\n" for the
// commit file, "RELAYSG\n" for a segment). A segment's payload is its
// chunk and file postings sections (lexfile.go), then gob messages: its
// head and its chunks in batches; the commit file's is one gob message.
// gob alone detects only some damage:
// a flipped bit inside a string or a number decodes without complaint and
// would change answers, and a bad length can make the decoder allocate
// before it fails. So the reader checks, in this order, that the file is
// not empty, that it starts with the magic (a bare gob stream naming
// diskIndex, the type's name then, is an index of an older relay: stale,
// not damaged), that the version is this relay's, that the length matches
// the file size (truncation), and that the checksum matches, all before
// decoding. A stale index is ErrNoIndex (rebuild it); anything else is
// ErrDamaged, whose message names the file and the problem.

// indexMagic starts every index file written since format 7.
const indexMagic = "RELAYIX\n"

// indexHeaderSize is the size of the header before the payload.
const indexHeaderSize = 24

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Error is a problem with the index file at Path: Kind is ErrNoIndex
// (another format version: rebuild it) or ErrDamaged, and Reason says
// what the checks found.
type Error struct {
	Path   string
	Kind   error
	Reason string
}

func (e *Error) Error() string {
	if e.Kind == ErrDamaged {
		return fmt.Sprintf("the search index at %s is damaged (%s)", e.Path, e.Reason)
	}
	return fmt.Sprintf("the search index at %s %s", e.Path, e.Reason)
}

// Is reports whether target is e's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

func damaged(path, format string, args ...any) error {
	return &Error{Path: path, Kind: ErrDamaged, Reason: fmt.Sprintf(format, args...)}
}

// checkedFile is one file of the index: its magic, and what a damage
// message calls it ("" for the commit file itself).
type checkedFile struct {
	magic string
	name  string
}

// writeChecked writes a file of the index in dir: the header, then the
// payload body writes, through a temp file named after pattern that is
// synced and returned (the caller renames it or keeps its name), with
// its size and checksum.
func writeChecked(dir, pattern, magic string, body func(w *bufio.Writer) error) (name string, size int64, sum uint32, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", 0, 0, fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", 0, 0, fmt.Errorf("create retrieval index: %w", err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	hdr := make([]byte, indexHeaderSize)
	if _, err := f.Write(hdr); err != nil { // placeholder until length and checksum are known
		return "", 0, 0, fmt.Errorf("write retrieval index: %w", err)
	}
	crc := crc32.New(castagnoli)
	n := &countWriter{}
	w := bufio.NewWriterSize(io.MultiWriter(f, crc, n), 1<<20)
	if err := body(w); err != nil {
		return "", 0, 0, err
	}
	if err := w.Flush(); err != nil {
		return "", 0, 0, fmt.Errorf("write retrieval index: %w", err)
	}
	copy(hdr, magic)
	binary.BigEndian.PutUint32(hdr[8:], uint32(Version))
	binary.BigEndian.PutUint32(hdr[12:], crc.Sum32())
	binary.BigEndian.PutUint64(hdr[16:], uint64(n.n))
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return "", 0, 0, fmt.Errorf("write retrieval index: %w", err)
	}
	if err := f.Sync(); err != nil {
		return "", 0, 0, fmt.Errorf("sync retrieval index: %w", err)
	}
	if err := f.Close(); err != nil {
		return "", 0, 0, fmt.Errorf("close retrieval index: %w", err)
	}
	return f.Name(), indexHeaderSize + n.n, crc.Sum32(), nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// checkFile checks the header, size and checksum of the file f of kind k
// of the index at p without decoding it, and returns the payload when
// keep is set (read once, into memory, and checked there).
func checkFile(p string, k checkedFile, f *os.File, keep bool) ([]byte, uint32, error) {
	bad := func(format string, args ...any) error {
		if k.name != "" {
			format = "segment " + k.name + ": " + format
		}
		return damaged(p, format, args...)
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, fmt.Errorf("stat search index: %w", err)
	}
	size := fi.Size()
	if size == 0 {
		return nil, 0, bad("the file is empty")
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, 0, fmt.Errorf("read search index %s: %w", p, err)
	}
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(k.magic)) {
		// Formats before 7 were a bare gob stream, whose first message
		// defines the type diskIndex.
		if k.magic == indexMagic && bytes.Contains(head, []byte("diskIndex")) {
			return nil, 0, &Error{Path: p, Kind: ErrNoIndex, Reason: "was written by an older relay"}
		}
		if size < indexHeaderSize {
			return nil, 0, bad("truncated to %d bytes", size)
		}
		return nil, 0, bad("not a relay search index")
	}
	if size < indexHeaderSize {
		return nil, 0, bad("truncated to %d bytes", size)
	}
	if v := binary.BigEndian.Uint32(head[8:]); v != Version && k.name == "" {
		return nil, 0, &Error{Path: p, Kind: ErrNoIndex,
			Reason: fmt.Sprintf("was written by another relay version (format %d; this relay reads format %d)", v, Version)}
	} else if v != Version {
		return nil, 0, bad("format %d inside a format %d index", v, Version)
	}
	want := binary.BigEndian.Uint32(head[12:])
	payload := int64(binary.BigEndian.Uint64(head[16:]))
	if payload < 0 || size != indexHeaderSize+payload {
		return nil, 0, bad("%d bytes where the header promises %d: truncated or overwritten", size, indexHeaderSize+payload)
	}
	if keep {
		buf := make([]byte, payload)
		if _, err := f.ReadAt(buf, indexHeaderSize); err != nil {
			return nil, 0, fmt.Errorf("read search index %s: %w", p, err)
		}
		if crc32.Checksum(buf, castagnoli) != want {
			return nil, 0, bad("checksum mismatch")
		}
		return buf, want, nil
	}
	if _, err := f.Seek(indexHeaderSize, io.SeekStart); err != nil {
		return nil, 0, fmt.Errorf("read search index %s: %w", p, err)
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.LimitReader(f, payload)); err != nil {
		return nil, 0, fmt.Errorf("read search index %s: %w", p, err)
	}
	if sum.Sum32() != want {
		return nil, 0, bad("checksum mismatch")
	}
	return nil, want, nil
}
