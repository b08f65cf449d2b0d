//go:build windows

package embedded

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/windows"

	"github.com/relayhq/relay/graphdb"
)

// writeLock is the cross-process writer lock: an exclusive LockFileEx on
// one byte of <dir>/write.lock far past the pid it holds (so the pid stays
// readable). Windows drops the lock when the process dies.
type writeLock struct{ f *os.File }

// lockOffsetHigh places the locked byte at 1<<40.
const lockOffsetHigh = 1 << 8

func acquireWriteLock(path string) (*writeLock, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open write lock: %w", err)
	}
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, ol)
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			holder := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil && strings.TrimSpace(string(b)) != "" {
				holder = "pid " + strings.TrimSpace(string(b))
			}
			return nil, fmt.Errorf("%s is held by %s: %w", path, holder, graphdb.ErrLocked)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &writeLock{f: f}, nil
}

func (l *writeLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	ol := &windows.Overlapped{OffsetHigh: lockOffsetHigh}
	err := windows.UnlockFileEx(windows.Handle(l.f.Fd()), 0, 1, 0, ol)
	err = errors.Join(err, l.f.Close())
	l.f = nil
	return err
}
