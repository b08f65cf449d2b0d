//go:build linux

package confine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
