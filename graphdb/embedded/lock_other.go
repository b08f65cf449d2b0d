//go:build !unix && !windows

package embedded

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/relayhq/relay/graphdb"
)

// writeLock on systems without flock: the lock file is created exclusively
// and removed on release. A writer killed mid-run leaves the file behind;
// the error names it so a person can delete it once the pid is gone.
type writeLock struct{ path string }

func acquireWriteLock(path string) (*writeLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		holder := "another process"
		if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
			holder = "pid " + strings.TrimSpace(string(b))
		}
		return nil, fmt.Errorf("%s is held by %s (delete it if that process is gone): %w", path, holder, graphdb.ErrLocked)
	}
	if err != nil {
		return nil, fmt.Errorf("open write lock: %w", err)
	}
	_, werr := f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		return nil, fmt.Errorf("write lock %s: %w", path, err)
	}
	return &writeLock{path: path}, nil
}

func (l *writeLock) release() error {
	if l == nil || l.path == "" {
		return nil
	}
	err := os.Remove(l.path)
	l.path = ""
	return err
}
