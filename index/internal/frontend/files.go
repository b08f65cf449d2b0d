package frontend

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/safefs"
)

// diskFile is one source file found under the root.
type DiskFile struct {
	Rel  string // repo-relative, slash-separated
	Hash string
	Size int64
	Err  error // read error (the file vanished or is unreadable)
}

// isTestdata reports whether rel lies under a testdata directory.
func IsTestdata(rel string) bool {
	return rel == "testdata" || strings.HasPrefix(rel, "testdata/") || strings.Contains(rel, "/testdata/")
}

// contentHash is the FileRecord.Hash of a file's bytes.
func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:16])
}

// firstLine returns the first line of s, trimmed.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// countLines counts the lines of data (a last line without newline counts).
func CountLines(data []byte) int {
	n := bytes.Count(data, []byte{'\n'})
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

var (
	// reason says in a few words why a file or directory was not read,
	// never naming an absolute path.
	Reason = safefs.Reason
)

// readRegular reads an absolute path outside the repository (a dependency's
// file), only if it is a regular file, without blocking on a FIFO.
func ReadRegular(name string) ([]byte, error) { return safefs.ReadRegular(name, 0) }

// shortRel keeps a very long repository-relative path readable in a note.
func ShortRel(rel string) string {
	const max = 160
	if len(rel) <= max {
		return rel
	}
	return fmt.Sprintf("%s…%s (%d bytes)", rel[:max/2], rel[len(rel)-max/2+10:], len(rel))
}

// fileID is the id of a file's node (see doc.go).
func FileID(rel string) graphdb.NodeID { return graphdb.NodeID("file:" + rel) }

// sortedKeys returns m's keys in order.
func SortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// splitLines splits s at line breaks; nil for "".
func SplitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
