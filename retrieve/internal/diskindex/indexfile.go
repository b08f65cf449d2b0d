package diskindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/relayhq/relay/retrieve/internal/bm25"
	"github.com/relayhq/relay/retrieve/internal/chunk"
)

// DESIGN: the index file is a fixed header and a payload:
//
//	magic "RELAYIX\n" | version uint32 | CRC-32C of the payload uint32 | payload length uint64 | payload
//
// (big endian, 24 bytes of header); the payload is the chunk and file
// postings sections (lexfile.go), then gob messages: indexHead (the rest
// of the index) and the chunks in batches. gob alone detects only some
// damage:
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

// Write writes ix to dir/FileName through a temp file and a rename.
func Write(dir string, ix *Index) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, FileName+".tmp-*")
	if err != nil {
		return fmt.Errorf("create retrieval index: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if err := encodeIndex(f, ix); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("sync retrieval index: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close retrieval index: %w", err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, FileName)); err != nil {
		return fmt.Errorf("install retrieval index: %w", err)
	}
	return nil
}

// encodeIndex writes the header and payload of ix to f (at its start).
func encodeIndex(f *os.File, ix *Index) error {
	hdr := make([]byte, indexHeaderSize)
	if _, err := f.Write(hdr); err != nil { // placeholder until length and checksum are known
		return fmt.Errorf("write retrieval index: %w", err)
	}
	sum := crc32.New(castagnoli)
	n := &countWriter{}
	w := bufio.NewWriterSize(io.MultiWriter(f, sum, n), 1<<20)
	for _, lx := range []*bm25.Index{ix.Lex, ix.FileLex} {
		if lx == nil {
			lx = &bm25.Index{}
		}
		if err := writeLexSection(w, lx); err != nil {
			return err
		}
	}
	// gob buffers each value whole before it writes it: the chunks go in
	// batches, so that its buffer stays small.
	enc := gob.NewEncoder(w)
	head := indexHead{Version: ix.Version, Files: ix.Files, EmbedModel: ix.EmbedModel, Vectors: ix.Vectors, Chunks: len(ix.Chunks)}
	if err := enc.Encode(&head); err != nil {
		return fmt.Errorf("encode retrieval index: %w", err)
	}
	for i := 0; i < len(ix.Chunks); i += chunkBatch {
		if err := enc.Encode(ix.Chunks[i:min(i+chunkBatch, len(ix.Chunks))]); err != nil {
			return fmt.Errorf("encode retrieval index: %w", err)
		}
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("write retrieval index: %w", err)
	}
	copy(hdr, indexMagic)
	binary.BigEndian.PutUint32(hdr[8:], uint32(ix.Version))
	binary.BigEndian.PutUint32(hdr[12:], sum.Sum32())
	binary.BigEndian.PutUint64(hdr[16:], uint64(n.n))
	if _, err := f.WriteAt(hdr, 0); err != nil {
		return fmt.Errorf("write retrieval index: %w", err)
	}
	return nil
}

type countWriter struct{ n int64 }

func (c *countWriter) Write(p []byte) (int, error) {
	c.n += int64(len(p))
	return len(p), nil
}

// Read loads the index file at p. A missing file is an os.ErrNotExist
// error; an index of another format version is ErrNoIndex; a file that
// fails a check is ErrDamaged (see the DESIGN note).
func Read(p string) (*Index, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, damaged(p, "not a regular file")
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("open search index: %w", err)
	}
	defer f.Close()
	buf, err := checkIndexFile(p, f, true)
	if err != nil {
		return nil, err
	}
	ix, err := decodePayload(buf)
	if err != nil {
		return nil, damaged(p, "undecodable: %v", err)
	}
	return ix, nil
}

// indexHead is the first gob message after the postings sections: the
// index but its postings and chunks, and how many chunks follow, in
// messages of up to chunkBatch.
type indexHead struct {
	Version    int
	Files      []FileEntry
	EmbedModel string
	Vectors    map[string][]float32
	Chunks     int
}

const chunkBatch = 4096

// decodePayload decodes an index payload: the chunk and file postings
// sections, then the gob part (the head and the chunks in batches).
func decodePayload(buf []byte) (*Index, error) {
	var ix Index
	var err error
	if ix.Lex, buf, err = readLexSection(buf); err != nil {
		return nil, err
	}
	if ix.FileLex, buf, err = readLexSection(buf); err != nil {
		return nil, err
	}
	r := bytes.NewReader(buf) // an io.ByteReader: gob reads no further than its messages
	dec := gob.NewDecoder(r)
	var head indexHead
	if err := dec.Decode(&head); err != nil {
		return nil, err
	}
	if head.Version != Version {
		return nil, fmt.Errorf("the payload says format %d, the header %d", head.Version, Version)
	}
	// A chunk takes more than 8 bytes: a larger count is damage, refused
	// before allocating for it.
	if head.Chunks < 0 || head.Chunks > r.Len()/8 {
		return nil, fmt.Errorf("%d chunks announced in %d bytes", head.Chunks, r.Len())
	}
	ix.Version, ix.Files, ix.EmbedModel, ix.Vectors = head.Version, head.Files, head.EmbedModel, head.Vectors
	ix.Chunks = make([]chunk.Chunk, 0, head.Chunks)
	for len(ix.Chunks) < head.Chunks {
		var batch []chunk.Chunk
		if err := dec.Decode(&batch); err != nil {
			return nil, fmt.Errorf("chunk %d of %d: %w", len(ix.Chunks), head.Chunks, err)
		}
		if len(batch) == 0 || len(batch) > head.Chunks-len(ix.Chunks) {
			return nil, fmt.Errorf("a batch of %d chunks after %d of %d", len(batch), len(ix.Chunks), head.Chunks)
		}
		ix.Chunks = append(ix.Chunks, batch...)
	}
	if r.Len() != 0 {
		return nil, fmt.Errorf("%d bytes after the last chunk", r.Len())
	}
	return &ix, nil
}

// Verify checks the index file at p as Read does, without decoding it.
func Verify(p string) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = checkIndexFile(p, f, false)
	return err
}

// checkIndexFile checks the header, size and checksum of the index file f
// (named p) without decoding it, and returns the payload when keep is set
// (read once, into memory, and checked there).
func checkIndexFile(p string, f *os.File, keep bool) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat search index: %w", err)
	}
	size := fi.Size()
	if size == 0 {
		return nil, damaged(p, "the file is empty")
	}
	head := make([]byte, 512)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, fmt.Errorf("read search index %s: %w", p, err)
	}
	head = head[:n]
	if !bytes.HasPrefix(head, []byte(indexMagic)) {
		// Formats before 7 were a bare gob stream, whose first message
		// defines the type diskIndex.
		if bytes.Contains(head, []byte("diskIndex")) {
			return nil, &Error{Path: p, Kind: ErrNoIndex, Reason: "was written by an older relay"}
		}
		if size < indexHeaderSize {
			return nil, damaged(p, "truncated to %d bytes", size)
		}
		return nil, damaged(p, "not a relay search index")
	}
	if size < indexHeaderSize {
		return nil, damaged(p, "truncated to %d bytes", size)
	}
	if v := binary.BigEndian.Uint32(head[8:]); v != Version {
		return nil, &Error{Path: p, Kind: ErrNoIndex,
			Reason: fmt.Sprintf("was written by another relay version (format %d; this relay reads format %d)", v, Version)}
	}
	want := binary.BigEndian.Uint32(head[12:])
	payload := int64(binary.BigEndian.Uint64(head[16:]))
	if payload < 0 || size != indexHeaderSize+payload {
		return nil, damaged(p, "%d bytes where the header promises %d: truncated or overwritten", size, indexHeaderSize+payload)
	}
	if keep {
		buf := make([]byte, payload)
		if _, err := f.ReadAt(buf, indexHeaderSize); err != nil {
			return nil, fmt.Errorf("read search index %s: %w", p, err)
		}
		if crc32.Checksum(buf, castagnoli) != want {
			return nil, damaged(p, "checksum mismatch")
		}
		return buf, nil
	}
	if _, err := f.Seek(indexHeaderSize, io.SeekStart); err != nil {
		return nil, fmt.Errorf("read search index %s: %w", p, err)
	}
	sum := crc32.New(castagnoli)
	if _, err := io.Copy(sum, io.LimitReader(f, payload)); err != nil {
		return nil, fmt.Errorf("read search index %s: %w", p, err)
	}
	if sum.Sum32() != want {
		return nil, damaged(p, "checksum mismatch")
	}
	return nil, nil
}
