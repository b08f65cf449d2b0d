package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// lastReports keeps, under the state directory, the last report body relay
// posted on each issue. A job that fails posts it again with a short note
// below instead of replacing it with the error: trackers keep every
// edit of a comment, and a failed re-run must never bury a good report
// under an error. Each process remembers the reports it posted (with
// several processes on one PostgreSQL queue, the one that posted).
type lastReports struct{ dir string }

func (l lastReports) path(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(l.dir, hex.EncodeToString(sum[:16])+".md")
}

// load returns the last report posted for key, or "" when there is none.
func (l lastReports) load(key string) (string, error) {
	b, err := os.ReadFile(l.path(key))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the last report of %s: %w", key, err)
	}
	return string(b), nil
}

// save records body as the last report posted for key, atomically.
func (l lastReports) save(key, body string) error {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return fmt.Errorf("keep the last report of %s: %w", key, err)
	}
	tmp, err := os.CreateTemp(l.dir, ".report-*")
	if err != nil {
		return fmt.Errorf("keep the last report of %s: %w", key, err)
	}
	_, werr := tmp.WriteString(body)
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("keep the last report of %s: %w", key, err)
	}
	if err := os.Rename(tmp.Name(), l.path(key)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("keep the last report of %s: %w", key, err)
	}
	return nil
}

// below is body with note under it, or note alone when there is no body.
func below(body, note string) string {
	if body == "" {
		return note
	}
	return body + "\n\n---\n\n" + note
}
