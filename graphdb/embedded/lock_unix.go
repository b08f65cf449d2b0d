//go:build unix

package embedded

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/relayhq/relay/graphdb"
)

// writeLock is the cross-process writer lock: an exclusive flock on
// <dir>/write.lock holding the owner's pid. The kernel drops it when the
// process dies, so a crashed writer never leaves a stale lock.
type writeLock struct{ f *os.File }

func acquireWriteLock(path string) (*writeLock, error) {
	// O_NOFOLLOW: a write.lock that is a link (one that came with the
	// repository) must not have its target truncated.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open write lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%s is held by %s: %w", path, lockHolder(path), graphdb.ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &writeLock{f: f}, nil
}

func lockHolder(path string) string {
	b, err := os.ReadFile(path)
	if pid := strings.TrimSpace(string(b)); err == nil && pid != "" {
		return "pid " + pid
	}
	return "another process"
}

func (l *writeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := syscall.Flock(int(l.f.Fd()), syscall.LOCK_UN)
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}
