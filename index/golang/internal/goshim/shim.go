package goshim

import (
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// DESIGN: every `go` process the indexer starts dies with relay, even when
// relay is killed with SIGKILL.
//
// go/packages starts `go list` itself (golang.org/x/tools/internal/gocommand:
// exec.Command("go", …) with Setpgid, and on cancellation SIGINT to the
// process group, SIGKILL 5 s later), so relay cannot set
// SysProcAttr.Pdeathsig on it, and nothing stops it when relay dies without
// running that code. exec.Command resolves "go" on the PATH of the relay
// process (not on Config.Env), so while a Run lists packages, relay puts
// first on its PATH a directory holding a link named "go" to its own
// executable. Started under that name (Run, through index.RunGoShim,
// called first in main), the executable is a small supervisor:
//
//  1. PR_SET_PDEATHSIG = SIGTERM: the kernel signals it when relay dies,
//     however relay dies; it then checks relay was not gone already (the
//     race before prctl);
//  2. it leads its own process group (gocommand already made it a leader);
//  3. it starts the real go command in that group with Pdeathsig = SIGKILL,
//     from its main goroutine locked to its thread (the signal follows the
//     parent thread, which therefore lives as long as the shim);
//  4. on SIGTERM or SIGHUP it kills its whole process group (the go
//     command and every process it started, cgo and compilers included);
//     SIGINT and SIGQUIT are passed to the go command, whose exit status it
//     returns.
//
// PR_SET_PDEATHSIG follows the thread of relay that started the shim, not
// the process; a Go thread ends only when a goroutine locked to it
// (runtime.LockOSThread) exits locked, which neither relay nor its
// dependencies do, so the signal comes when relay dies.
//
// The alternatives are weaker: exec-ing the real go after prctl would kill
// go but orphan its children (PR_SET_PDEATHSIG is not inherited), and
// running the loader in a child relay process needs the same trick for
// that child's own `go list`. The link lives in the user cache directory
// (one per executable, reused; links to vanished executables are pruned),
// or in a temporary directory removed after the run. The shim reads its
// settings from environment variables that only this file sets
// (RELAY_GO_SHIM_*). Only Linux has PR_SET_PDEATHSIG; elsewhere go list is
// stopped by its timeout and by the context, as gocommand does.
const (
	envShimDir    = "RELAY_GO_SHIM_DIR"    // the directory put first on PATH
	envShimReal   = "RELAY_GO_SHIM_REAL"   // the real go command
	envShimParent = "RELAY_GO_SHIM_PARENT" // relay's process id
)

// shimEnabled is set by Run: the executable can act as the shim.
var shimEnabled atomic.Bool

// Run must be called first in main by programs that run index.Run. When
// the process was started by index.Run as its stand-in for the go
// command, it supervises the real go command and exits with its status;
// otherwise it returns at once and lets later runs in this process start
// `go list` through the executable, so that go list and its children die
// with the process, even on SIGKILL (Linux only; see the DESIGN note in
// shim.go).
func Run() {
	if filepath.Base(os.Args[0]) == "go" && os.Getenv(envShimDir) != "" {
		os.Exit(runShim())
	}
	shimEnabled.Store(shimSupported)
}

// shim is the PATH change shared by the Runs of a process.
var shim struct {
	mu      sync.Mutex
	users   int
	dir     string
	temp    bool // dir is removed by the last release
	oldPath string
	hadPath bool
}

// Acquire puts the shim first on PATH until release is called. It
// does nothing (and says why at debug level) when the shim is not enabled
// or cannot be installed: go list then runs unsupervised.
func Acquire(log *slog.Logger) (release func()) {
	if !shimEnabled.Load() {
		return func() {}
	}
	shim.mu.Lock()
	defer shim.mu.Unlock()
	if shim.users == 0 {
		if err := installShim(); err != nil {
			log.Debug("go command shim not installed; go list runs unsupervised", "err", err)
			return func() {}
		}
	}
	shim.users++
	return func() {
		shim.mu.Lock()
		defer shim.mu.Unlock()
		shim.users--
		if shim.users > 0 {
			return
		}
		if shim.hadPath {
			os.Setenv("PATH", shim.oldPath)
		} else {
			os.Unsetenv("PATH")
		}
		os.Unsetenv(envShimDir)
		os.Unsetenv(envShimReal)
		os.Unsetenv(envShimParent)
		if shim.temp {
			os.RemoveAll(shim.dir)
		}
	}
}

// installShim creates the link and changes the environment (shim.mu held).
func installShim() error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	real, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	dir, temp, err := shimDir(exe)
	if err != nil {
		return err
	}
	shim.dir, shim.temp = dir, temp
	shim.oldPath, shim.hadPath = os.LookupEnv("PATH")
	os.Setenv(envShimDir, dir)
	os.Setenv(envShimReal, real)
	os.Setenv(envShimParent, strconv.Itoa(os.Getpid()))
	os.Setenv("PATH", dir+string(os.PathListSeparator)+shim.oldPath)
	return nil
}

// shimDir returns a directory holding "go", a link to exe: in the user
// cache directory when there is one, else a new temporary directory.
func shimDir(exe string) (dir string, temp bool, err error) {
	if cache, err := os.UserCacheDir(); err == nil {
		sum := sha256.Sum256([]byte(exe))
		base := filepath.Join(cache, "relay", "go-shim")
		dir := filepath.Join(base, hex.EncodeToString(sum[:8]))
		if err := linkShim(dir, exe); err == nil {
			pruneShims(base, dir)
			return dir, false, nil
		}
	}
	dir, err = os.MkdirTemp("", "relay-go-shim-")
	if err != nil {
		return "", false, err
	}
	if err := linkShim(dir, exe); err != nil {
		os.RemoveAll(dir)
		return "", false, err
	}
	return dir, true, nil
}

// linkShim makes dir/go a link to exe, replacing another link atomically.
func linkShim(dir, exe string) error {
	link := filepath.Join(dir, "go")
	if target, err := os.Readlink(link); err == nil && target == exe {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp := link + ".tmp" + strconv.Itoa(os.Getpid())
	os.Remove(tmp)
	if err := os.Symlink(exe, tmp); err != nil {
		return err
	}
	return os.Rename(tmp, link)
}

// pruneShims removes the shim directories whose executable is gone (test
// binaries, replaced builds).
func pruneShims(base, keep string) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	for _, e := range entries {
		d := filepath.Join(base, e.Name())
		if d == keep {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, "go")); os.IsNotExist(err) {
			os.RemoveAll(d)
		}
	}
}

// shimEnv returns env without the shim's variables and without dir on
// PATH: what the real go command and its children see.
func shimEnv(env []string, dir string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, envShimDir+"="), strings.HasPrefix(kv, envShimReal+"="), strings.HasPrefix(kv, envShimParent+"="):
			continue
		case strings.HasPrefix(kv, "PATH="):
			kv = "PATH=" + stripPath(strings.TrimPrefix(kv, "PATH="), dir)
		}
		out = append(out, kv)
	}
	return out
}

// stripPath removes dir from a PATH list.
func stripPath(list, dir string) string {
	parts := filepath.SplitList(list)
	out := parts[:0]
	for _, p := range parts {
		if p != dir {
			out = append(out, p)
		}
	}
	return strings.Join(out, string(os.PathListSeparator))
}
