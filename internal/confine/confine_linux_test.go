//go:build linux

package confine

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// run starts bin with args in root through Start and waits for it.
func run(root, bin string, args ...string) ([]byte, error) {
	var buf strings.Builder
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Stdout, cmd.Stderr = root, &buf, &buf
	if err := Start(cmd, root); err != nil {
		return []byte(buf.String()), err
	}
	err := cmd.Wait()
	return []byte(buf.String()), err
}

// TestStart starts cat through Start: it reads a file of the root, and
// neither a file outside nor one reached through a symbolic link out of
// the root.
func TestStart(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel: programs run unconfined")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat:", err)
	}
	root, outside := t.TempDir(), t.TempDir()
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(filepath.Join(root, "in.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("TOP-SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name, arg string
		ok        bool
	}{
		{"file of the root", "in.txt", true},
		{"link out of the root", "link.txt", false},
		{"absolute path outside", secret, false},
		{"etc passwd", "/etc/passwd", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, err := run(root, cat, tt.arg)
			if tt.ok {
				if err != nil || string(out) != "inside\n" {
					t.Fatalf("cat %s: %v, %q; want inside", tt.arg, err, out)
				}
				return
			}
			if err == nil || strings.Contains(string(out), "TOP-SECRET") || strings.Contains(string(out), "root:") {
				t.Fatalf("cat %s: %v, %q; want a refusal", tt.arg, err, out)
			}
			if !strings.Contains(string(out), "Permission denied") {
				t.Errorf("cat %s said %q; want Permission denied", tt.arg, out)
			}
		})
	}
}

// TestStartBadRoot: a program that cannot be confined is not started
// unconfined behind the caller's back: a root that does not exist fails.
func TestStartBadRoot(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel")
	}
	_, err := run(filepath.Join(t.TempDir(), "missing"), "/bin/true")
	if err == nil || !strings.Contains(err.Error(), "confine true to the repository") {
		t.Fatalf("got %v; want a refusal to start", err)
	}
}

// TestStartLeavesOthersFree: after many confined starts, this process
// (its other threads) still reads files outside the root.
func TestStartLeavesOthersFree(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel")
	}
	root := t.TempDir()
	for range 50 {
		if _, err := run(root, "/bin/true"); err != nil {
			t.Fatal(err)
		}
	}
	for range 50 {
		if _, err := os.ReadFile("/etc/passwd"); err != nil {
			t.Fatalf("this process can no longer read outside the root: %v", err)
		}
		if _, err := os.ReadDir(os.TempDir()); err != nil {
			t.Fatalf("this process can no longer list outside the root: %v", err)
		}
	}
}

// TestStartReadsIgnoreFilesAbove: a root inside a larger work tree keeps
// the ignore files of the directories above it readable (rg honours
// them), and nothing else there.
func TestStartReadsIgnoreFilesAbove(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat:", err)
	}
	top := t.TempDir()
	root := filepath.Join(top, "sub")
	for p, body := range map[string]string{".gitignore": "secret.txt\n", "notes.txt": "private\n", "sub/a.txt": "a\n"} {
		p = filepath.Join(top, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := run(root, cat, "../.gitignore"); err != nil || string(out) != "secret.txt\n" {
		t.Errorf("cat ../.gitignore: %v, %q; want it readable", err, out)
	}
	if out, err := run(root, cat, "../notes.txt"); err == nil || strings.Contains(string(out), "private") {
		t.Errorf("cat ../notes.txt: %v, %q; want a refusal", err, out)
	}
}

// TestStartIgnoreLinkAboveRefused: an ignore file above the root that is
// a link to a file elsewhere (or sits under a linked directory) is not
// granted, so the file it points to stays unreadable; a regular one next
// to it still is.
func TestStartIgnoreLinkAboveRefused(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat:", err)
	}
	top, outside := t.TempDir(), t.TempDir()
	root := filepath.Join(top, "sub")
	secret := filepath.Join(outside, "secret.txt")
	for p, body := range map[string]string{secret: "TOP-SECRET\n", filepath.Join(top, ".ignore"): "*.log\n", filepath.Join(outside, "info", "exclude"): "TOP-SECRET-2\n", filepath.Join(root, "a.txt"): "a\n"} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(secret, filepath.Join(top, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(top, ".git")); err != nil { // ../.git/info/exclude through a linked directory
		t.Fatal(err)
	}
	for _, arg := range []string{"../.gitignore", secret, "../.git/info/exclude"} {
		if out, err := run(root, cat, arg); err == nil || strings.Contains(string(out), "TOP-SECRET") {
			t.Errorf("cat %s: %v, %q; want a refusal", arg, err, out)
		}
	}
	if out, err := run(root, cat, "../.ignore"); err != nil || string(out) != "*.log\n" {
		t.Errorf("cat ../.ignore: %v, %q; want it readable", err, out)
	}
}

// TestStartKeepsDeathSignalForRelay: a child started with Pdeathsig lives
// on after Start returns (the signal is for the thread that forked it,
// which must outlive the child), reads its input and exits normally.
func TestStartKeepsDeathSignalForRelay(t *testing.T) {
	if !Available() {
		t.Skip("Landlock is not available on this kernel")
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat:", err)
	}
	root := t.TempDir()
	var out strings.Builder
	cmd := exec.Command(cat)
	cmd.Dir, cmd.Stdout = root, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := Start(cmd, root); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // time for a thread that ended to have killed the child
	if _, err := io.WriteString(in, "still here\n"); err != nil {
		t.Errorf("write to the child: %v", err)
	}
	in.Close()
	if err := cmd.Wait(); err != nil || out.String() != "still here\n" {
		t.Errorf("child: %v, output %q; want it alive until its input ended", err, out.String())
	}
}
