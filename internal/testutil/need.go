package testutil

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Need makes sure the commands a test runs are installed: each name may
// list alternatives ("fd|fdfind"). When one is missing the test is skipped
// locally and fails under CI=true, where everything must run; hint says
// how to install them.
func Need(t testing.TB, hint string, names ...string) {
	t.Helper()
	var missing []string
	for _, name := range names {
		found := false
		for _, alt := range strings.Split(name, "|") {
			if _, err := exec.LookPath(alt); err == nil {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		Missing(t, strings.Join(missing, ", ")+" not installed", hint)
	}
}

// Missing ends a test that cannot run here because what is missing is
// not installed: skipped locally, failed under CI=true.
func Missing(t testing.TB, what, hint string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s under CI; %s", what, hint)
	}
	t.Skipf("%s; %s", what, hint)
}
