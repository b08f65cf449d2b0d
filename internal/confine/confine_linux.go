//go:build linux

package confine

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// fsRights are the file system rights of Landlock's first ABI, all
// handled: what a rule does not grant is refused.
const fsRights = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE |
	unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR |
	unix.LANDLOCK_ACCESS_FS_REMOVE_DIR | unix.LANDLOCK_ACCESS_FS_REMOVE_FILE |
	unix.LANDLOCK_ACCESS_FS_MAKE_CHAR | unix.LANDLOCK_ACCESS_FS_MAKE_DIR |
	unix.LANDLOCK_ACCESS_FS_MAKE_REG | unix.LANDLOCK_ACCESS_FS_MAKE_SOCK |
	unix.LANDLOCK_ACCESS_FS_MAKE_FIFO | unix.LANDLOCK_ACCESS_FS_MAKE_BLOCK |
	unix.LANDLOCK_ACCESS_FS_MAKE_SYM

const (
	readTree = unix.LANDLOCK_ACCESS_FS_READ_FILE | unix.LANDLOCK_ACCESS_FS_READ_DIR
	execFile = unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_READ_FILE
)

// libDirs hold the shared libraries, the dynamic loader and the system's
// programs (a wrapper script's interpreter and what it runs): readable
// and executable when they exist.
var libDirs = []string{"/lib", "/lib64", "/lib32", "/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib",
	"/bin", "/usr/bin", "/usr/local/bin"}

// libFiles are single files the loader reads.
var libFiles = []string{"/etc/ld.so.cache"}

var available = sync.OnceValue(func() bool {
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	return errno == 0 && int(abi) >= 1
})

// Available reports whether programs started through Start are confined.
func Available() bool { return available() }

// Start starts cmd (cmd.Path absolute) confined to reading root, as
// cmd.Start does: from a thread of its own that Landlock restricts first,
// and that ends once the child has exited. A child inherits the
// restrictions of the thread that forks it; Go never starts other threads
// from a locked one, and a goroutine that ends locked takes its thread
// with it, so nothing else ever runs restricted. Where Landlock is
// unavailable it is cmd.Start.
//
// The thread lives as long as the child because Linux delivers a child's
// SysProcAttr.Pdeathsig when the thread that forked it ends, not the
// process: a thread ending right after the fork would kill the child at
// once, while one that waits (on a pidfd of the child) keeps the signal
// for when relay itself dies.
func Start(cmd *exec.Cmd, root string) error {
	if !Available() {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := restrict(root, cmd.Path); err != nil {
			errc <- fmt.Errorf("confine %s to the repository: %w", filepath.Base(cmd.Path), err)
			return
		}
		if err := cmd.Start(); err != nil {
			errc <- err
			return
		}
		// Opened before Start returns, so the child cannot have been
		// reaped (and its pid reused) yet.
		pidfd, err := unix.PidfdOpen(cmd.Process.Pid, 0)
		errc <- nil
		if err == nil {
			waitExit(pidfd)
		}
	}()
	return <-errc
}

// waitExit blocks until the process of pidfd has exited, then closes pidfd.
func waitExit(pidfd int) {
	defer unix.Close(pidfd)
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err != unix.EINTR {
			return
		}
	}
}

// restrict confines the calling thread: read root, execute and read bin,
// read the shared libraries and run the system's programs, read and write
// /dev/null (a child's missing standard streams), read the ignore files
// rg and fd honour outside root (ignoreFiles); nothing else: not /etc, not
// /home or /root, not /tmp, no writes.
func restrict(root, bin string) error {
	attr := struct{ handledFS uint64 }{fsRights}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	if err := addRule(int(fd), root, readTree); err != nil {
		return err
	}
	if err := addRule(int(fd), bin, execFile); err != nil {
		return err
	}
	for _, d := range libDirs {
		if err := addRule(int(fd), d, readTree|unix.LANDLOCK_ACCESS_FS_EXECUTE); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	for _, f := range libFiles {
		if err := addRule(int(fd), f, unix.LANDLOCK_ACCESS_FS_READ_FILE); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	if err := addRule(int(fd), os.DevNull, unix.LANDLOCK_ACCESS_FS_READ_FILE|unix.LANDLOCK_ACCESS_FS_WRITE_FILE); err != nil {
		return err
	}
	for _, f := range ignoreFilesAbove(root) {
		if err := addIgnoreRule(int(fd), f.dir, f.name); err != nil {
			return err
		}
	}
	for _, f := range globalIgnoreFiles() {
		if err := addRule(int(fd), f, unix.LANDLOCK_ACCESS_FS_READ_FILE); err != nil && !errors.Is(err, unix.ENOENT) {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// ignoreNames are the ignore files rg and fd read in each directory above
// the one they search.
var ignoreNames = []string{".gitignore", ".ignore", ".rgignore", ".fdignore", ".git/info/exclude"}

// ignoreFile is an ignore file name (ignoreNames) in an ancestor of root.
type ignoreFile struct{ dir, name string }

// ignoreFilesAbove lists the ignore files rg and fd read in the
// directories above root, so that a root inside a larger work tree keeps
// their rules: each ancestor's names that exist and are not links
// (Lstat; addIgnoreRule checks again on what it opens). Each is granted
// alone, as a file; the patterns they hold are read as rules, never
// searched.
func ignoreFilesAbove(root string) []ignoreFile {
	var out []ignoreFile
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		for _, n := range ignoreNames {
			if fi, err := os.Lstat(filepath.Join(d, n)); err == nil && fi.Mode().IsRegular() {
				out = append(out, ignoreFile{d, n})
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	return out
}

// addIgnoreRule grants reading name beneath dir when it is a regular file
// reached without following a link (openat2 RESOLVE_NO_SYMLINKS, checked
// with fstat on what was opened): an ignore file above the repository
// that is, or becomes, a link to a file elsewhere is not granted, so rg
// cannot read that file through it. Anything that cannot be opened so is
// skipped; only a failure to add the rule is an error.
func addIgnoreRule(ruleset int, dir, name string) error {
	dfd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(dfd)
	pfd, err := unix.Openat2(dfd, name, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_BENEATH,
	})
	if err != nil {
		return nil
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil
	}
	return addRuleFD(ruleset, pfd, filepath.Join(dir, name), unix.LANDLOCK_ACCESS_FS_READ_FILE)
}

// globalIgnoreFiles lists the user's global git and fd ignore files: the
// user's own configuration (commonly links into a dotfiles checkout), not
// the repository's, so they are granted wherever they point.
func globalIgnoreFiles() []string {
	var out []string
	add := func(p string) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out = append(out, p)
		}
	}
	config := os.Getenv("XDG_CONFIG_HOME")
	if config == "" {
		if home, err := os.UserHomeDir(); err == nil {
			config = filepath.Join(home, ".config")
		}
	}
	if config != "" {
		add(filepath.Join(config, "git", "ignore"))
		add(filepath.Join(config, "fd", "ignore"))
	}
	return out
}

// addRule grants access beneath path (a directory) or to path (a file:
// only the file rights of access apply).
func addRule(ruleset int, path string, access uint64) error {
	pfd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer unix.Close(pfd)
	var st unix.Stat_t
	if err := unix.Fstat(pfd, &st); err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		access &= unix.LANDLOCK_ACCESS_FS_EXECUTE | unix.LANDLOCK_ACCESS_FS_WRITE_FILE | unix.LANDLOCK_ACCESS_FS_READ_FILE
	}
	return addRuleFD(ruleset, pfd, path, access)
}

// addRuleFD grants access beneath (or to) the file open as pfd, named path
// in errors.
func addRuleFD(ruleset, pfd int, path string, access uint64) error {
	rule := unix.LandlockPathBeneathAttr{Allowed_access: access, Parent_fd: int32(pfd)}
	if _, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, uintptr(ruleset), unix.LANDLOCK_RULE_PATH_BENEATH,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_add_rule %s: %w", path, errno)
	}
	return nil
}
