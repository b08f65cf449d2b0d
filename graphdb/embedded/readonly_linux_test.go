//go:build linux

package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

func init() { childRoles["read-only-mount"] = readOnlyMountChild }

// readOnlyMountChild runs in a private mount namespace: it bind-mounts dir
// read-only over itself, then reports what a reader sees and what a writer
// is told. Output lines: "view <digest>", "writer <error>"; or "skip
// <why>" when the kernel refuses the mount.
func readOnlyMountChild(dir string) error {
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		fmt.Println("skip bind mount:", err)
		return nil
	}
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND|syscall.MS_RDONLY, ""); err != nil {
		fmt.Println("skip read-only remount:", err)
		return nil
	}
	if err := os.WriteFile(dir+"/probe", nil, 0o644); !errors.Is(err, syscall.EROFS) {
		return fmt.Errorf("writing into the read-only mount: %v, want EROFS", err)
	}
	if pathWritable(dir) {
		return errors.New("pathWritable says the read-only mount is writable")
	}
	s, err := Open(dir, Options{ReadOnly: true})
	if err != nil {
		return fmt.Errorf("read-only open: %w", err)
	}
	d, err := view(context.Background(), s)
	s.Close()
	if err != nil {
		return fmt.Errorf("read-only queries: %w", err)
	}
	fmt.Println("view", d)
	w, err := Open(dir, Options{})
	if err == nil {
		w.Close()
	}
	fmt.Println("writer", err)
	return nil
}

// TestReadOnlyMount reproduces issue 9's probe (an index on a read-only
// file system could not be opened: "unable to open database file") on a
// real read-only mount: a child process of the test binary, in its own
// mount namespace, bind-mounts the store directory read-only (root is
// stopped by EROFS, unlike by permission bits). The reader must answer
// exactly what the writer stored — once from a sealed store with an empty
// log (opened immutable), once while the writer still holds commits in the
// log (opened mode=ro through the existing -shm) — and a writer must be
// refused with ErrReadOnly, its message
// naming the directory and no flag (the surface adds its advice). Skips where mount namespaces are not
// allowed (no CAP_SYS_ADMIN); TestReadOnlyDirectory covers the same paths
// everywhere with the writability check forced.
func TestReadOnlyMount(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	run := func(t *testing.T, dir string) (view, writer string) {
		t.Helper()
		out, _ := runMountChild(t, "read-only-mount", dir, "no mount namespace")
		return out["view"], out["writer"]
	}
	check := func(t *testing.T, dir, want string) {
		t.Helper()
		view, writer := run(t, dir)
		if view != want {
			t.Errorf("the reader on the read-only mount saw %q, the writer stored %q", view, want)
		}
		for _, m := range []string{"read-only", dir, "indexing writes the graph there", ErrReadOnly.Error()} {
			if !strings.Contains(writer, m) {
				t.Errorf("writer error %q does not say %q", writer, m)
			}
		}
		if strings.Contains(writer, "--store") {
			t.Errorf("writer error %q names a flag: advice is the surface's", writer)
		}
	}

	t.Run("sealed", func(t *testing.T) {
		dir := t.TempDir()
		s := writeGraph(t, dir, genGraph(30, 4, 3))
		want := digest(t, s)
		s.Close()
		if walFrames(dir) {
			t.Fatal("the closed writer left frames in the log")
		}
		check(t, dir, want)
	})
	t.Run("log holds commits", func(t *testing.T) {
		dir := t.TempDir()
		s := writeGraph(t, dir, genGraph(30, 4, 3))
		defer s.Close()
		want := digest(t, s)
		if !walFrames(dir) {
			t.Fatal("the open writer's commit is not in the log")
		}
		check(t, dir, want)
	})
}

// runMountChild runs the child role on dir in a process of the test binary
// with a mount namespace of its own, and returns the child's output lines
// by their first word ("view <digest>" → out["view"]) and its stderr. The
// test is skipped, saying why (and hint), where the kernel refuses the
// namespace or the child reports "skip".
func runMountChild(t *testing.T, role, dir, hint string) (out map[string]string, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RELAY_TEST_CHILD="+role, "RELAY_TEST_DIR="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	var stdout, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &errb
	if err := cmd.Run(); err != nil {
		if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EINVAL) {
			t.Skipf("%s: %v", hint, err)
		}
		t.Fatalf("child: %v\n%s%s", err, stdout.String(), errb.String())
	}
	out = map[string]string{}
	for _, line := range strings.Split(stdout.String(), "\n") {
		k, v, _ := strings.Cut(line, " ")
		if k == "skip" {
			t.Skipf("%s (%s)", v, hint)
		}
		out[k] = v
	}
	return out, errb.String()
}
