package main

import (
	"bytes"
	"encoding/gob"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/relayhq/relay/graphdb/embedded"
)

// The read-only tests re-run themselves in a child process inside a private
// mount namespace (unshare -m) where some directories are bind-mounted
// read-only onto themselves: a real read-only file system, which even root
// cannot write (permission bits would not stop root, as the tests run).
// The parent prepares the fixture and passes it to the child in
// roFixtureEnv; where no such namespace can be made (no unshare, no
// privilege) the tests skip, and TestStoreHoldsEverything still proves
// that nothing is written to the repository.

const roFixtureEnv = "RELAY_TEST_READONLY_FIXTURE"

var roProbe struct {
	once sync.Once
	err  error
}

// canMountReadOnly reports whether this process can make a read-only bind
// mount in a private mount namespace.
func canMountReadOnly(t *testing.T) error {
	roProbe.once.Do(func() {
		if _, err := exec.LookPath("unshare"); err != nil {
			roProbe.err = err
			return
		}
		d, err := os.MkdirTemp("", "relay-ro-probe-")
		if err != nil {
			roProbe.err = err
			return
		}
		defer os.RemoveAll(d)
		out, err := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c",
			`mount --bind "$1" "$1" && mount -o remount,ro,bind "$1" && ! touch "$1/x" 2>/dev/null`, "sh", d).CombinedOutput()
		if err != nil {
			roProbe.err = errors.New(strings.TrimSpace(string(out)) + ": " + err.Error())
		}
	})
	return roProbe.err
}

// runReadOnly runs the current (top-level) test again in a child whose
// dirs are read-only, with fixture in roFixtureEnv, and fails with the
// child's output when the child fails.
func runReadOnly(t *testing.T, fixture string, dirs ...string) {
	t.Helper()
	if err := canMountReadOnly(t); err != nil {
		t.Skipf("no read-only bind mount here (needs unshare -m and the privilege to mount): %v", err)
	}
	script := `for d; do mount --bind "$d" "$d" && mount -o remount,ro,bind "$d" || exit 97; done
exec "$RELAY_TEST_BIN" -test.run "$RELAY_TEST_RUN" -test.count=1 -test.v`
	cmd := exec.CommandContext(t.Context(), "unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, "sh"}, dirs...)...)
	cmd.Env = append(os.Environ(), roFixtureEnv+"="+fixture, "RELAY_TEST_BIN="+os.Args[0], "RELAY_TEST_RUN=^"+t.Name()+"$")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("read-only child: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("read-only child did not run the test:\n%s", out)
	}
	// Say what the child skipped, and why: the lines between a skipped
	// test's RUN and its verdict.
	lines := strings.Split(string(out), "\n")
	for _, l := range lines {
		name, ok := strings.CutPrefix(strings.TrimSpace(l), "--- SKIP: ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, " ")
		var why []string
		for i, r := range lines {
			if strings.TrimSpace(r) == "=== RUN   "+name {
				for _, w := range lines[i+1:] {
					if strings.HasPrefix(strings.TrimSpace(w), "---") || strings.HasPrefix(strings.TrimSpace(w), "===") {
						break
					}
					why = append(why, strings.TrimSpace(w))
				}
			}
		}
		t.Logf("read-only child skipped %s: %s", name, strings.Join(why, " "))
	}
}

// assertReadOnly fails unless dir is on a read-only file system.
func assertReadOnly(t *testing.T, dir string) {
	t.Helper()
	err := os.WriteFile(filepath.Join(dir, "probe"), []byte("x"), 0o644)
	if !errors.Is(err, syscall.EROFS) {
		t.Fatalf("%s is not read-only in the child (write: %v)", dir, err)
	}
}

// TestReadOnlyRepository is issue 9's probe 5 on a read-only repository:
// with --store elsewhere, index, search, offline scope/ask, feedback add and
// import, review, and indexing on first use all work.
func TestReadOnlyRepository(t *testing.T) {
	if fixture := os.Getenv(roFixtureEnv); fixture != "" {
		repo := filepath.Join(fixture, "repo")
		assertReadOnly(t, repo)
		storeElsewhereSteps(t, repo, "--store", filepath.Join(fixture, "store"))
		// A first offline run indexes into the (writable) store.
		code, stdout, stderr := relay(t, "", "--repo", repo, "--store", filepath.Join(fixture, "fresh"), "scope", "SMS sent twice")
		if code != 0 || !strings.Contains(stdout, "Context report (offline)") || !strings.Contains(stderr, "indexing it first") {
			t.Errorf("offline scope indexing first: exit %d\n%.1000s\n%s", code, stdout, stderr)
		}
		return
	}
	fixture := t.TempDir()
	repo := filepath.Join(fixture, "repo")
	if err := os.Rename(sampleRepo(t), repo); err != nil {
		t.Fatal(err)
	}
	runReadOnly(t, fixture, repo)
}

// diskIndex is named like the type older relays wrote bare with gob, so
// its stream is what such a relay left behind: an index of an older format.
type diskIndex struct{ Version int }

// TestReadOnlyState is issue 9's probe 6 for the search index: with the
// search index in a read-only directory, search and offline scope/ask read
// it without writing; an index of an older format is rebuilt in memory,
// with a note; a damaged one is a clear error.
func TestReadOnlyState(t *testing.T) {
	if fixture := os.Getenv(roFixtureEnv); fixture != "" {
		readOnlyStateChild(t, fixture)
		return
	}
	fixture := t.TempDir()
	repo := filepath.Join(fixture, "repo")
	if err := os.Rename(sampleRepo(t), repo); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(fixture, "store")
	current := filepath.Join(fixture, "current")
	if code, _, stderr := relay(t, "", "--repo", repo, "--store", store, "--state", current, "index"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	old := filepath.Join(fixture, "old")
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(diskIndex{Version: 6}); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(fixture, "damaged")
	idx, err := os.ReadFile(filepath.Join(current, "retrieve.idx"))
	if err != nil {
		t.Fatal(err)
	}
	idx[len(idx)/2] ^= 0x40
	for dir, data := range map[string][]byte{old: buf.Bytes(), damaged: idx} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "retrieve.idx"), data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(fixture, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	// The whole store read-only: graph and search index (the default
	// state directory is the store's).
	whole := filepath.Join(fixture, "whole")
	if code, _, stderr := relay(t, "", "--repo", repo, "--store", whole, "index"); code != 0 {
		t.Fatalf("index: %s", stderr)
	}
	runReadOnly(t, fixture, current, old, damaged, empty, whole)
}

func readOnlyStateChild(t *testing.T, fixture string) {
	repo, store := filepath.Join(fixture, "repo"), filepath.Join(fixture, "store")
	commands := [][]string{
		{"search", "sms retry"},
		{"scope", "SMS sent twice when the gateway is slow"},
		{"ask", "where are retries decided?"},
	}
	inMemory := "cannot be written, so the search index is built in memory for this run only"
	tests := []struct {
		state    string
		code     int
		stderr   string // "" : must not mention building
		badNotes []string
	}{
		{state: "current", badNotes: []string{"building", "in memory"}},
		{state: "old", stderr: filepath.Join(fixture, "old") + " " + inMemory},
		{state: "empty", stderr: inMemory},
		{state: "damaged", code: 1, stderr: "the search index at " + filepath.Join(fixture, "damaged", "retrieve.idx") + " is damaged"},
	}
	for _, tt := range tests {
		state := filepath.Join(fixture, tt.state)
		assertReadOnly(t, state)
		for _, c := range commands {
			code, stdout, stderr := relay(t, "", append([]string{"--repo", repo, "--store", store, "--state", state}, c...)...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("%s with state %s: exit %d, want %d and stderr with %q:\n%.800s\n%s", c[0], tt.state, code, tt.code, tt.stderr, stdout, stderr)
			}
			for _, bad := range tt.badNotes {
				if strings.Contains(stderr, bad) {
					t.Errorf("%s with state %s mentions %q:\n%s", c[0], tt.state, bad, stderr)
				}
			}
			if tt.code == 0 && !strings.Contains(stdout, "retr") {
				t.Errorf("%s with state %s found nothing about retries:\n%.800s", c[0], tt.state, stdout)
			}
		}
	}
	t.Run("whole store", func(t *testing.T) {
		whole := filepath.Join(fixture, "whole")
		assertReadOnly(t, whole)
		st, err := embedded.Open(whole, embedded.Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("open the embedded store on a read-only file system: %v", err)
		}
		st.Close()
		for _, c := range commands {
			code, stdout, stderr := relay(t, "", append([]string{"--repo", repo, "--store", whole}, c...)...)
			if code != 0 || strings.Contains(stderr, "building") {
				t.Errorf("%s on a read-only store: exit %d:\n%.800s\n%s", c[0], code, stdout, stderr)
			}
		}
	})
}
