package embedded

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// Graphs of the crash test: the committed one, and the one a killed writer
// was replacing it with.
var (
	crashOld = func() *synthGraph { return genGraphSeed(1, 60, 6, 4) }
	crashNew = func() *synthGraph { return genGraphSeed(7, 200, 6, 4) }
)

// crashWrite is the big transaction the child is killed in: it replaces
// every old file with new content, adds more files and deletes some.
func crashWrite(ctx context.Context, tx graphdb.Tx, progress func(i, n int)) error {
	g := crashNew()
	for i, o := range g.owners {
		if err := tx.ReplaceFile(ctx, o.file, o.nodes, o.edges); err != nil {
			return err
		}
		progress(i, len(g.owners))
	}
	for _, o := range crashOld().owners[:10] {
		if err := tx.DeleteFile(ctx, o.file.Path); err != nil {
			return err
		}
	}
	return tx.SetMeta(ctx, "run", "new")
}

// runChild is a child process role (see TestMain). It prints progress
// lines the parent waits for before it kills the child.
func runChild(role, dir string) error {
	ctx := context.Background()
	s, err := Open(dir, Options{})
	if err != nil {
		return err
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		return err
	}
	switch role {
	case "hold-lock":
		fmt.Println("locked")
		time.Sleep(time.Minute)
		return errors.New("hold-lock child was not killed")
	case "mid-write":
		return crashWrite(ctx, tx, func(i, n int) {
			if i == n/2 {
				fmt.Println("writing")
				time.Sleep(20 * time.Millisecond) // the parent kills us here or a little later
			}
		})
	case "before-commit":
		if err := crashWrite(ctx, tx, func(int, int) {}); err != nil {
			return err
		}
		fmt.Println("written")
		time.Sleep(time.Minute)
		return errors.New("before-commit child was not killed")
	case "commit":
		if err := crashWrite(ctx, tx, func(int, int) {}); err != nil {
			return err
		}
		fmt.Println("committing")
		if err := tx.Commit(); err != nil {
			return err
		}
		fmt.Println("committed")
		time.Sleep(time.Minute)
		return nil
	}
	return fmt.Errorf("unknown child role %q", role)
}

// startChild runs the test binary in a child role and waits for its first
// output line.
func startChild(t *testing.T, role, dir string) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "RELAY_TEST_CHILD="+role, "RELAY_TEST_DIR="+dir)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		cmd.Wait()
		t.Fatalf("child %s exited before reporting progress: %v", role, cmd.ProcessState)
	}
	return cmd, sc
}

// digest hashes everything a reader can see of a store.
func digest(t *testing.T, s *Store) string {
	t.Helper()
	d, err := view(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// view hashes everything a reader can see of a store: files, stats, meta,
// every node, its outgoing calls and its callers two deep.
func view(ctx context.Context, s *Store) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	files, err := s.Files(ctx)
	if err != nil {
		return "", err
	}
	st, err := s.Stats(ctx)
	if err != nil {
		return "", err
	}
	meta, err := s.Meta(ctx, "run")
	if err != nil {
		return "", err
	}
	enc.Encode(files)
	enc.Encode(st)
	enc.Encode(meta)
	for _, f := range files {
		nodes, err := s.FindSymbols(ctx, graphdb.SymbolQuery{File: f.Path})
		if err != nil {
			return "", err
		}
		enc.Encode(nodes)
		for _, n := range nodes {
			es, err := s.Neighbors(ctx, n.ID, graphdb.EdgeCalls, graphdb.Outbound, 0)
			if err != nil {
				return "", err
			}
			enc.Encode(es)
			hops, err := s.Traverse(ctx, n.ID, []graphdb.EdgeKind{graphdb.EdgeCalls}, graphdb.Inbound, 2, 0)
			if err != nil {
				return "", err
			}
			enc.Encode(hops)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil)), nil
}

// writeOld creates a store in dir holding crashOld and returns its digest.
func writeOld(t *testing.T, dir string) string {
	t.Helper()
	s := writeGraph(t, dir, crashOld())
	defer s.Close()
	if err := s.Warm(t.Context()); err != nil { // a snapshot that must go stale
		t.Fatal(err)
	}
	return digest(t, s)
}

// TestCrashSafety kills a writer (SIGKILL) mid-write, before commit and
// around commit, and checks the store afterwards: integrity intact, exactly
// the old graph (or, when the kill lost the race to COMMIT, exactly the new
// one), the lock released, and the store writable again.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	newDigest := func() string {
		dir := t.TempDir()
		writeOld(t, dir)
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tx, err := s.Begin(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := crashWrite(t.Context(), tx, func(int, int) {}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		return digest(t, s)
	}()
	tests := []struct {
		role     string
		delay    time.Duration
		allowNew bool
	}{
		{role: "mid-write"},
		{role: "before-commit"},
		{role: "commit", allowNew: true},
		{role: "commit", delay: 2 * time.Millisecond, allowNew: true},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%s+%s", tc.role, tc.delay), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			old := writeOld(t, dir)
			cmd, _ := startChild(t, tc.role, dir)
			time.Sleep(tc.delay)
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			s, err := Open(dir, Options{})
			if err != nil {
				t.Fatalf("Open after kill -9: %v", err)
			}
			defer s.Close()
			var check string
			if err := s.rdb.QueryRowContext(t.Context(), "PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check after kill -9 = %q, %v", check, err)
			}
			switch got := digest(t, s); {
			case got == old:
			case got == newDigest && tc.allowNew:
				t.Logf("the commit completed before the kill; the new graph is whole")
			default:
				t.Fatalf("graph after kill -9 is neither the old one nor (for a finished commit) the new one")
			}
			// Native traversals agree with the tables (the snapshot is
			// stale whenever the commit went through).
			funcs := crashNew().funcs
			assertAgree(t, s, funcs[len(funcs)-4:])
			// The kernel released the dead writer's lock.
			tx, err := s.Begin(t.Context())
			if err != nil {
				t.Fatalf("Begin after kill -9: %v", err)
			}
			if err := tx.SetMeta(t.Context(), "run", "after"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestWriteLockAcrossProcesses: a second process's Begin fails with
// ErrLocked naming the holder's pid; readers are not blocked; the lock goes
// away with the holder.
func TestWriteLockAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dir := t.TempDir()
	s := writeGraph(t, dir, genGraph(20, 5, 2))
	defer s.Close()
	cmd, _ := startChild(t, "hold-lock", dir)

	_, err := s.Begin(t.Context())
	if !errors.Is(err, graphdb.ErrLocked) {
		t.Fatalf("Begin while another process writes: %v, want ErrLocked", err)
	}
	if pid := strconv.Itoa(cmd.Process.Pid); !strings.Contains(err.Error(), "pid "+pid) {
		t.Errorf("lock error %q does not name the holder's pid %s", err, pid)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if _, err := s.Stats(ctx); err != nil {
		t.Errorf("reader blocked by another process's writer: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	tx, err := s.Begin(t.Context())
	if err != nil {
		t.Fatalf("Begin after the holder died: %v", err)
	}
	tx.Rollback()
}
