package diskindex

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// DESIGN: whose index it is. A search index that came with the repository
// (a committed or copied .relay) would otherwise be believed: its chunks
// are keyed by content and graph hashes an attacker can compute, so Build
// would reuse forged chunks and Open would serve them. With a key (the
// per-user secret graphdb/embedded seals its graph with), Build writes
// retrieve.mac beside the index (WriteMAC): the HMAC-SHA256 of the index's
// header (format, CRC-32C and length of the payload) and the index file's
// inode. Open refuses an index whose MAC does not verify (CheckOwner:
// ErrForeign), and Build neither reuses it nor calls it up to date. The inode ties the MAC
// to the file Build wrote: a checkout or copy is a new file, so CRC-32C's
// forgeability does not let a changed copy of this user's own index keep
// a valid MAC. Without a key nothing is judged.

// macFile is the name of the index's MAC under the index directory.
const macFile = "retrieve.mac"

// foreignError is CheckOwner's refusal: it matches ErrForeign and
// ErrDamaged.
type foreignError struct{ path, why string }

func (e *foreignError) Error() string {
	return fmt.Sprintf("the search index at %s was not written by relay for this user on this machine (%s): it may have come with the repository or been copied in, and is not believed", e.path, e.why)
}

func (e *foreignError) Is(target error) bool {
	return target == ErrForeign || target == ErrDamaged
}

// indexMAC returns the MAC of the index file at p under key.
func indexMAC(p string, key []byte) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	hdr := make([]byte, indexHeaderSize)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return nil, fmt.Errorf("read search index header: %w", err)
	}
	ino, err := fileIno(f)
	if err != nil {
		return nil, err
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte("relay search index\x00"))
	m.Write(hdr)
	m.Write(binary.BigEndian.AppendUint64(nil, ino))
	return m.Sum(nil), nil
}

// CheckOwner returns an error matching ErrForeign unless the index in dir
// carries key's MAC; nil without a key or with trust.
func CheckOwner(dir string, key []byte, trust bool) error {
	if key == nil || trust {
		return nil
	}
	p := filepath.Join(dir, FileName)
	want, err := indexMAC(p, key)
	if err != nil {
		return err
	}
	got, err := os.ReadFile(filepath.Join(dir, macFile))
	switch {
	case errors.Is(err, os.ErrNotExist):
		return &foreignError{p, "it has no " + macFile}
	case err != nil:
		return fmt.Errorf("read %s: %w", macFile, err)
	case !hmac.Equal(got, want):
		return &foreignError{p, "the MAC in " + macFile + " does not verify with this user's key"}
	}
	return nil
}

// WriteMAC writes the MAC of the index in dir under key (temp file and
// rename); without a key it removes any, so that no MAC outlives the index
// it was made for.
func WriteMAC(dir string, key []byte) error {
	if key == nil {
		if err := os.Remove(filepath.Join(dir, macFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	mac, err := indexMAC(filepath.Join(dir, FileName), key)
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, macFile+".tmp-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(tmp, mac, 0o600); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", macFile, err)
	}
	if err := os.Rename(tmp, filepath.Join(dir, macFile)); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("install %s: %w", macFile, err)
	}
	return nil
}

// Adopt gives the index in dir key's MAC when it lacks one (an index kept
// on trust, or one written before indexes carried a MAC).
func Adopt(dir string, key []byte) error {
	if key == nil || CheckOwner(dir, key, false) == nil {
		return nil
	}
	return WriteMAC(dir, key)
}
