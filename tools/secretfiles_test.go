package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/egress/egresstest"
)

// TestReadRefusesSecretFiles reads the canary repository's secret-bearing
// files by name and through a link: each is refused with a message naming
// the file and the pattern, ends with the surface's hint on allowing it,
// and shows no value.
// An operator's allow list lets one through.
func TestReadRefusesSecretFiles(t *testing.T) {
	t.Parallel()
	root := egresstest.Repo(t)
	if err := os.Symlink(".env", filepath.Join(root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	// The setting that allows a file is the surface's hint (tools.Hints),
	// not a flag the tools name.
	const hint = "The operator allows one in the surface's own way."
	r := newRead(t, Options{Root: root, Hints: Hints{SecretFiles: hint}})
	tests := []struct{ file, shown, pattern string }{
		{".env", ".env", "*.env"},
		{"./config/../.env", ".env", "*.env"},
		{"config/credentials.yml", "config/credentials.yml", "credentials.yml"},
		{"deploy/id_rsa", "deploy/id_rsa", "id_rsa*"},
		{"notes.txt", ".env", "*.env"},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := r.Run(t.Context(), ReadParams{File: tt.file})
			if err != nil {
				t.Fatal(err)
			}
			if !res.IsError {
				t.Fatalf("read %s was not refused:\n%s", tt.file, res.Content)
			}
			if !strings.HasSuffix(res.Content, "relay does not read, search or index such files. "+hint) {
				t.Errorf("answer does not end with the surface's hint:\n%s", res.Content)
			}
			for _, want := range []string{tt.shown + " is a secret-bearing file", `"` + tt.pattern + `"`} {
				if !strings.Contains(res.Content, want) {
					t.Errorf("answer lacks %q:\n%s", want, res.Content)
				}
			}
			if leaks := egresstest.Leaks(res.Content); len(leaks) > 0 {
				t.Errorf("leaked %v", leaks)
			}
		})
	}
	for _, ok := range []string{".env.example", "deploy/id_rsa.pub", "internal/sms/sender.go"} {
		if res, err := r.Run(t.Context(), ReadParams{File: ok}); err != nil || res.IsError {
			t.Errorf("read %s: %v %s", ok, err, res.Content)
		}
	}
	allow, err := egress.NewFilePolicy(nil, nil, []string{".env"})
	if err != nil {
		t.Fatal(err)
	}
	ra := newRead(t, Options{Root: root, SecretFiles: allow})
	if res, err := ra.Run(t.Context(), ReadParams{File: ".env"}); err != nil || res.IsError || !strings.Contains(res.Content, "AWS_SECRET_ACCESS_KEY") {
		t.Errorf("read of an allowed .env: %v %s", err, res.Content)
	}
}

// TestGrepDropsSecretFiles greps for what the canary repository's secret
// files hold: their lines are not shown and a note names them.
func TestGrepDropsSecretFiles(t *testing.T) {
	t.Parallel()
	needTools(t)
	root := egresstest.Repo(t)
	g := newGrep(t, Options{Root: root})
	for _, pat := range []string{"AWS_SECRET_ACCESS_KEY", "api_key", "PRIVATE KEY"} {
		res, err := g.Run(t.Context(), GrepParams{Pattern: pat})
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(res.Content, "\n") {
			for _, f := range []string{".env", "config/credentials.yml", "deploy/id_rsa"} {
				if strings.HasPrefix(line, f+":") || strings.HasPrefix(line, f+"-") {
					t.Errorf("grep %s shows a line of %s:\n%s", pat, f, res.Content)
				}
			}
		}
		// deploy/id_rsa is left to the path check (id_rsa* overlaps the
		// exemption *.pub), so its matches are dropped with a note; rg
		// does not open .env and config/credentials.yml at all.
		if pat == "PRIVATE KEY" && !strings.Contains(res.Content, "left out: deploy/id_rsa;") {
			t.Errorf("grep %s: no note on the files left out:\n%s", pat, res.Content)
		}
	}
	res, err := g.Run(t.Context(), GrepParams{Pattern: "AWS_SECRET_ACCESS_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Content, ".env.example:") || strings.Contains(res.Content, "q8Vr3KxZ") {
		t.Errorf("grep AWS_SECRET_ACCESS_KEY:\n%s", res.Content)
	}
}
