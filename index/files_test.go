package index

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/internal/testutil"
)

func writeFile(t *testing.T, root, rel, content string) {
	t.Helper()
	testutil.WriteFile(t, root, rel, content)
}

func readFile(t *testing.T, root, rel string) string {
	t.Helper()
	return indextest.ReadFile(t, root, rel)
}

func removeFile(t *testing.T, root, rel string) {
	t.Helper()
	if err := os.RemoveAll(filepath.Join(root, filepath.FromSlash(rel))); err != nil {
		t.Fatal(err)
	}
}
