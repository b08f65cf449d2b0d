//go:build linux

package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func init() { childRoles["full-disk"] = fullDiskChild }

// fullDiskChild runs in a private mount namespace: it mounts a 2 MiB tmpfs
// on dir, writes and seals a store there, fills the file system, then
// reads the store. Output lines: "want <digest>", "view <digest>" (or
// "view error <err>"); "skip <why>" when the kernel refuses the mount.
func fullDiskChild(dir string) error {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=2m"); err != nil {
		fmt.Println("skip tmpfs mount:", err)
		return nil
	}
	key := []byte("the key of the full-disk test ...")
	ctx := context.Background()
	store := filepath.Join(dir, ".relay")
	w, err := Open(store, Options{Key: key})
	if err != nil {
		return err
	}
	g := genGraph(30, 4, 3)
	tx, err := w.Begin(ctx)
	if err != nil {
		return err
	}
	for _, o := range g.owners {
		if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	want, err := view(ctx, w)
	if err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Println("want", want)
	fill, err := os.Create(filepath.Join(dir, "fill"))
	if err != nil {
		return err
	}
	buf := make([]byte, 64<<10)
	for {
		if _, err := fill.Write(buf); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				return fmt.Errorf("fill: %w", err)
			}
			break
		}
	}
	fill.Close()
	r, err := Open(store, Options{ReadOnly: true, Key: key})
	if err != nil {
		fmt.Println("view error", err)
		return nil
	}
	defer r.Close()
	got, err := view(ctx, r)
	if err != nil {
		fmt.Println("view error", err)
		return nil
	}
	fmt.Println("view", got)
	return nil
}

// TestFullDiskReaders reproduces issue 18's probe (with the disk full every
// reader failed with "disk I/O error" though the index was intact: SQLite
// could not create its -shm index) on a real full file system: a child
// process of the test binary, in its own mount namespace, mounts a small
// tmpfs, writes a store there, fills it and reads the store back, which
// must answer exactly what the writer stored. Skips where mounts are not
// allowed (not root, no mount namespace).
func TestFullDiskReaders(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	out, stderr := runMountChild(t, "full-disk", t.TempDir(), "mounting a small tmpfs needs root")
	want, got := out["want"], out["view"]
	if want == "" || got != want {
		t.Errorf("a reader on the full disk saw %q, the writer stored %q\n%s", got, want, stderr)
	}
}
