package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// MaterializeCheckouts creates dir/<instance_id> for every instance that
// names a Go module version or an npm package version in Repo and has no
// checkout yet. A module's source is fetched with `go mod download -json`
// (the module cache first, so it works offline once cached) and copied,
// writable, into place; a module without a go.mod gets one. An npm package
// ("npm:NAME@VERSION", NPMPackage) is its published tree, fetched with
// `npm pack`. Instances without Repo are left alone. dir is created when
// missing.
func MaterializeCheckouts(ctx context.Context, insts []Instance, dir string) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	made := 0
	srcs := map[string]string{}
	for _, in := range insts {
		if in.Repo == "" {
			continue
		}
		dst := filepath.Join(dir, in.ID)
		if _, err := os.Stat(dst); err == nil {
			continue
		}
		if name, version, ok := NPMPackage(in.Repo); ok {
			tmp := dst + ".tmp"
			os.RemoveAll(tmp)
			if err := fetchNPM(ctx, name+"@"+version, tmp); err != nil {
				os.RemoveAll(tmp)
				return made, fmt.Errorf("instance %s: %w", in.ID, err)
			}
			if err := os.Rename(tmp, dst); err != nil {
				return made, err
			}
			made++
			continue
		}
		if strings.HasPrefix(in.Repo, NPMPrefix) {
			return made, fmt.Errorf("instance %s: repo %q: want npm:NAME@VERSION", in.ID, in.Repo)
		}
		src, ok := srcs[in.Repo]
		if !ok {
			var err error
			if src, err = downloadModule(ctx, in.Repo); err != nil {
				return made, fmt.Errorf("instance %s: %w", in.ID, err)
			}
			srcs[in.Repo] = src
		}
		tmp := dst + ".tmp"
		os.RemoveAll(tmp)
		if err := copyTree(src, tmp); err != nil {
			os.RemoveAll(tmp)
			return made, fmt.Errorf("instance %s: copy %s: %w", in.ID, src, err)
		}
		if _, err := os.Stat(filepath.Join(tmp, "go.mod")); os.IsNotExist(err) {
			mod := strings.SplitN(in.Repo, "@", 2)[0]
			if err := os.WriteFile(filepath.Join(tmp, "go.mod"), []byte("module "+mod+"\n\ngo 1.21\n"), 0o644); err != nil {
				return made, err
			}
		}
		if err := os.Rename(tmp, dst); err != nil {
			return made, err
		}
		made++
	}
	return made, nil
}

func downloadModule(ctx context.Context, modVer string) (string, error) {
	if !strings.Contains(modVer, "@") {
		return "", fmt.Errorf("repo %q: want MODULE@VERSION", modVer)
	}
	cmd := exec.CommandContext(ctx, "go", "mod", "download", "-json", modVer)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GO111MODULE=on")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct {
		Dir   string
		Error string
	}
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Dir == "" {
		msg := strings.TrimSpace(info.Error + " " + stderr.String())
		return "", fmt.Errorf("go mod download %s: %v %s", modVer, err, msg)
	}
	return info.Dir, nil
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
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
