package serve

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestPostgresScript: scripts/postgres.sh on a port of its own (never the
// shared test cluster's): start initialises and starts a cluster; a second
// checkout's start on the same port uses that cluster instead of failing
// and starts nothing; the second checkout's stop leaves it running; the
// first one's stop stops it.
func TestPostgresScript(t *testing.T) {
	if _, err := exec.LookPath("pg_isready"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("PostgreSQL is not installed under CI: scripts/setup.sh installs it")
		}
		t.Skip("PostgreSQL is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	// Directories the postgres user can reach when the tests run as root.
	dirs := make([]string, 2)
	for i := range dirs {
		d, err := os.MkdirTemp("", "relay-pgscript-")
		if err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o755)
		dirs[i] = d
		t.Cleanup(func() { os.RemoveAll(d) })
	}
	script, err := filepath.Abs("../scripts/postgres.sh")
	if err != nil {
		t.Fatal(err)
	}
	sh := func(dir, cmd string) (string, error) {
		c := exec.Command("bash", script, cmd)
		c.Env = append(os.Environ(), "RELAY_TEST_PG_PORT="+port, "RELAY_TEST_PG_DIR="+dir)
		out, err := c.CombinedOutput()
		return string(out), err
	}
	t.Cleanup(func() { sh(dirs[0], "stop") })
	if out, err := sh(dirs[0], "start"); err != nil {
		t.Fatalf("start: %v\n%s", err, out)
	}
	if out, err := sh(dirs[1], "start"); err != nil || !strings.Contains(out, "using the PostgreSQL already running on port "+port) {
		t.Fatalf("a second checkout's start on a port in use: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(dirs[1], "data", "PG_VERSION")); err == nil {
		t.Errorf("the second checkout initialised a cluster of its own")
	}
	if out, err := sh(dirs[1], "stop"); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if _, err := sh(dirs[1], "status"); err != nil {
		t.Errorf("the second checkout's stop stopped the first one's cluster")
	}
	if out, err := sh(dirs[0], "stop"); err != nil {
		t.Fatalf("stop: %v\n%s", err, out)
	}
	if _, err := sh(dirs[0], "status"); err == nil {
		t.Errorf("the cluster still answers after its own checkout's stop")
	}
}
