package rustcheck

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Registry is Debian's local Cargo registry: the sources of the
// librust-*-dev packages, which Cargo reads offline as a directory source.
const Registry = "/usr/share/cargo/registry"

// Tools are the programs a build runs: Debian's rustc (1.63 still has
// -Zsave-analysis; rustup's newer ones do not) and cargo.
type Tools struct {
	Rustc, Cargo string
}

// FindTools finds Debian's rustc and cargo (/usr/bin: a rustup toolchain
// first on PATH lacks -Zsave-analysis), or says what is missing.
func FindTools() (Tools, error) {
	t := Tools{Rustc: "/usr/bin/rustc", Cargo: "/usr/bin/cargo"}
	for _, p := range []string{t.Rustc, t.Cargo} {
		if _, err := os.Stat(p); err != nil {
			return t, fmt.Errorf("find %s (Debian's rustc and cargo packages): %w", p, err)
		}
	}
	cmd := exec.Command(t.Rustc, "-Zhelp")
	cmd.Env = append(os.Environ(), "RUSTC_BOOTSTRAP=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return t, fmt.Errorf("%s -Zhelp: %w: %s", t.Rustc, err, firstLine(out))
	}
	if !bytes.Contains(out, []byte("save-analysis")) {
		return t, fmt.Errorf("%s has no -Zsave-analysis (Debian's rustc 1.63 has it)", t.Rustc)
	}
	return t, nil
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	return s
}

// AnalyzeFile compiles a one-crate library at dir/main (relative to dir)
// with rustc alone and returns its save-analysis file, written under out.
func AnalyzeFile(ctx context.Context, t Tools, dir, main, crate, out string) (string, error) {
	cmd := exec.CommandContext(ctx, t.Rustc, "--crate-type", "lib", "--crate-name", crate, "--edition", "2021",
		"-Zsave-analysis", "--out-dir", out, main)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "RUSTC_BOOTSTRAP=1")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("rustc %s: %w:\n%s", main, err, b)
	}
	return findAnalysis(filepath.Join(out, "save-analysis"), crate)
}

// AnalyzeCrate copies the registry crate at src to work, drops its
// dev-dependencies (the registry need not hold them, and building the
// library does not use them), builds its library with cargo offline
// against the registry with features, and returns the copy's root and
// the library's save-analysis file.
func AnalyzeCrate(ctx context.Context, t Tools, src, work string, features []string) (root, analysis string, err error) {
	root = filepath.Join(work, "crate")
	if err := copyTree(src, root); err != nil {
		return "", "", err
	}
	name, err := stripDevDeps(filepath.Join(root, "Cargo.toml"))
	if err != nil {
		return "", "", err
	}
	home := filepath.Join(work, "cargo-home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return "", "", err
	}
	cfg := fmt.Sprintf("[source.crates-io]\nreplace-with = \"debian\"\n[source.debian]\ndirectory = %q\n[net]\noffline = true\n", Registry)
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(cfg), 0o644); err != nil {
		return "", "", err
	}
	args := []string{"rustc", "--offline", "--lib", "--profile", "check"} // no code generation: the analysis is all it needs
	if len(features) > 0 {
		args = append(args, "--features", strings.Join(features, ","))
	}
	cmd := exec.CommandContext(ctx, t.Cargo, append(args, "--", "-Zsave-analysis")...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "RUSTC_BOOTSTRAP=1", "RUSTC="+t.Rustc, "CARGO_HOME="+home, "CARGO_TARGET_DIR="+filepath.Join(work, "target"))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("cargo rustc in %s: %w:\n%s", root, err, b)
	}
	a, err := findAnalysis(filepath.Join(work, "target", "debug", "deps", "save-analysis"), strings.ReplaceAll(name, "-", "_")) // check builds write under debug too
	return root, a, err
}

// findAnalysis finds lib<crate>*.json in dir.
func findAnalysis(dir, crate string) (string, error) {
	m, err := filepath.Glob(filepath.Join(dir, "lib"+crate+"*.json"))
	if err != nil || len(m) == 0 {
		return "", fmt.Errorf("no save-analysis of %s in %s (%v)", crate, dir, err)
	}
	return m[0], nil
}

// stripDevDeps rewrites a Cargo.toml without its dev-dependencies (also
// the target-specific ones) and returns the package's name.
func stripDevDeps(name string) (string, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		return "", fmt.Errorf("parse %s: %w", name, err)
	}
	delete(m, "dev-dependencies")
	delete(m, "dev_dependencies")
	if ts, ok := m["target"].(map[string]any); ok {
		for _, t := range ts {
			if tm, ok := t.(map[string]any); ok {
				delete(tm, "dev-dependencies")
			}
		}
	}
	pkg, _ := m["package"].(map[string]any)
	pname, _ := pkg["name"].(string)
	out, err := toml.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("write %s: %w", name, err)
	}
	return pname, os.WriteFile(name, out, 0o644)
}

// copyTree copies the regular files under src to dst, leaving out
// Debian's packaging folder.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && rel == "debian" {
			return filepath.SkipDir
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
}
