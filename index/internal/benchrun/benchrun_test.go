package benchrun

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/relayhq/relay/index"
)

func TestPhases(t *testing.T) {
	t.Parallel()
	r := Result{Sum: index.Summary{Phases: map[string]time.Duration{
		"py.resolve": 1500 * time.Millisecond, "py.parse": 250 * time.Millisecond,
		"write": time.Second, "ts.parse": time.Second, "commit": time.Second,
	}}}
	tests := []struct{ prefix, want string }{
		{"py.", "py.parse 0.25, py.resolve 1.50, write 1.00"},
		{"ts.", "ts.parse 1.00, write 1.00"},
		{"java.", "write 1.00"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, r.Phases(tt.prefix)); diff != "" {
				t.Errorf("Phases(%q) (-want +got):\n%s", tt.prefix, diff)
			}
		})
	}
}

func TestStep(t *testing.T) {
	t.Parallel()
	if _, err := Step(t.Context(), []string{"root"}, ""); err == nil {
		t.Error("Step with one argument: no error")
	}
	root, store := filepath.Join(t.TempDir(), "lib"), filepath.Join(t.TempDir(), "store")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "m.py"), []byte("def f():\n    return g()\n\ndef g():\n    return 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	prof := filepath.Join(t.TempDir(), "cpu.prof")
	r, err := Step(t.Context(), []string{root, store}, prof)
	if err != nil {
		t.Fatal(err)
	}
	if r.Sum.Files != 1 || r.Sum.Languages["Python"].Units != 1 || r.RSSMiB <= 0 || r.CPU <= 0 {
		t.Errorf("Step: files %d, modules %d, RSS %d MiB, CPU %.3f s; want 1, 1 and positive figures",
			r.Sum.Files, r.Sum.Languages["Python"].Units, r.RSSMiB, r.CPU)
	}
	if fi, err := os.Stat(prof); err != nil || fi.Size() == 0 {
		t.Errorf("CPU profile not written: %v", err)
	}
}
