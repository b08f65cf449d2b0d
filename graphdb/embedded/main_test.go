package embedded

import (
	"fmt"
	"os"
	"testing"
)

// childRoles are child roles defined on some platforms only.
var childRoles = map[string]func(dir string) error{}

// TestMain doubles as the child process of the crash and lock tests: with
// RELAY_TEST_CHILD set, the test binary runs that child role and exits.
func TestMain(m *testing.M) {
	if role := os.Getenv("RELAY_TEST_CHILD"); role != "" {
		run := runChild
		if f, ok := childRoles[role]; ok {
			run = func(_, dir string) error { return f(dir) }
		}
		if err := run(role, os.Getenv("RELAY_TEST_DIR")); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	code := m.Run()
	cleanupBenchStore()
	os.Exit(code)
}
