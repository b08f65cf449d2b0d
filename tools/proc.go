package tools

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"sync"
	"time"

	"github.com/relayhq/relay/internal/confine"
)

// ProcLimit bounds how many external processes (rg, fd) run at once, so
// that many concurrent tool calls — 200 pipelined MCP greps — start at most
// Cap processes and the rest wait their turn. It is safe for concurrent use.
type ProcLimit struct {
	slots chan struct{}
}

// NewProcLimit returns a bound of n processes (n <= 0: DefaultMaxProcs).
func NewProcLimit(n int) *ProcLimit {
	if n <= 0 {
		n = DefaultMaxProcs
	}
	return &ProcLimit{slots: make(chan struct{}, n)}
}

// Cap returns the most processes that may run at once.
func (l *ProcLimit) Cap() int { return cap(l.slots) }

// Running returns how many slots are taken now.
func (l *ProcLimit) Running() int { return len(l.slots) }

// Acquire takes a slot, waiting until one is free or ctx ends (then it
// returns ctx's error). Every successful Acquire needs one Release.
func (l *ProcLimit) Acquire(ctx context.Context) error {
	select {
	case l.slots <- struct{}{}:
		return nil
	default:
	}
	select {
	case l.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Release frees a slot taken by Acquire.
func (l *ProcLimit) Release() { <-l.slots }

// errStop is returned by a stdout handler that has read enough; the child is
// then killed without that counting as a failure.
var errStop = errors.New("stop reading")

// procResult is how a child process ended.
type procResult struct {
	exitCode int    // -1 when killed
	stderr   string // first few KB of stderr, with paths outside dir withheld (cleanStderr)
	timedOut bool   // the per-call deadline expired before the child finished
	stopped  bool   // the handler stopped early and the child was killed
	waited   bool   // ctx ended while waiting for a ProcLimit slot; nothing ran
}

// runProc runs bin in dir and hands its stdout to handle while it runs,
// confined to reading dir where the OS allows unless unconfined is set
// (internal/confine: a file of dir swapped for a symbolic link out of it
// is not read). It first takes
// a slot of lim (waiting within ctx). The child lives in its
// own process group; when ctx ends (or handle stops early) the whole group
// is killed and Wait gives up on the pipes after a short delay, so no rg or
// fd outlives the call. onStart, when set, sees the pid (tests use it to
// check the process is gone).
func runProc(ctx context.Context, lim *ProcLimit, bin string, args []string, dir string, unconfined bool, onStart func(pid int), handle func(io.Reader) error) (procResult, error) {
	if err := lim.Acquire(ctx); err != nil {
		return procResult{exitCode: -1, timedOut: true, waited: true}, nil
	}
	defer lim.Release()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(cctx, bin, args...)
	cmd.Dir = dir
	cmd.WaitDelay = 2 * time.Second
	killGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return procResult{}, fmt.Errorf("pipe for %s: %w", bin, err)
	}
	stderr := &capBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	start := func() error { return confine.Start(cmd, dir) }
	if unconfined {
		start = cmd.Start
	}
	if err := start(); err != nil {
		if ctx.Err() != nil {
			return procResult{exitCode: -1, timedOut: true}, nil
		}
		return procResult{}, fmt.Errorf("start %s: %w", bin, err)
	}
	if onStart != nil {
		onStart(cmd.Process.Pid)
	}
	herr := handle(stdout)
	stopped := false
	if herr != nil {
		cancel() // kill the group; nothing more will be read
		if errors.Is(herr, errStop) {
			stopped = true
			herr = nil
		}
	}
	werr := cmd.Wait()
	res := procResult{stderr: cleanStderr(stderr.String(), dir), stopped: stopped}
	if ctx.Err() != nil {
		res.timedOut = true
	}
	var ee *exec.ExitError
	switch {
	case werr == nil:
		res.exitCode = 0
	case errors.As(werr, &ee):
		res.exitCode = ee.ExitCode()
	case errors.Is(werr, exec.ErrWaitDelay):
		res.exitCode = -1
	case res.timedOut || stopped:
		res.exitCode = -1
	default:
		return res, fmt.Errorf("wait for %s: %w", bin, werr)
	}
	if herr != nil && !res.timedOut {
		return res, fmt.Errorf("read output of %s: %w", bin, herr)
	}
	return res, nil
}

// capBuffer keeps the first max bytes written to it and drops the rest.
type capBuffer struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if room := b.max - len(b.buf); room > 0 {
		b.buf = append(b.buf, p[:min(room, len(p))]...)
	}
	return len(p), nil
}

func (b *capBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}
