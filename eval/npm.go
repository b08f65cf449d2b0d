package eval

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// NPMPrefix marks an instance's Repo as a package of the npm registry:
// "npm:NAME@VERSION" ("npm:qs@6.12.1", "npm:@pkgjs/parseargs@0.11.0"). The
// checkout is the package's published tree, fetched with `npm pack`.
const NPMPrefix = "npm:"

// NPMPackage splits an npm Repo ("npm:NAME@VERSION") into the package name
// and version; ok is false for any other Repo (a Go module version).
func NPMPackage(repo string) (name, version string, ok bool) {
	spec, found := strings.CutPrefix(repo, NPMPrefix)
	if !found {
		return "", "", false
	}
	at := strings.LastIndex(spec, "@")
	if at <= 0 || at == len(spec)-1 {
		return "", "", false
	}
	return spec[:at], spec[at+1:], true
}

// HeldOut reports whether a package (or module) of a set is held out of
// tuning: the FNV-1a 32-bit hash of its name is divisible by 3, about a
// third of the names. The rule depends on the name alone, so it was fixed
// before any figure was measured and a package never changes side.
func HeldOut(name string) bool {
	h := fnv.New32a()
	h.Write([]byte(name))
	return h.Sum32()%3 == 0
}

// SplitName is the name of a package's part of a set: "held-out" or
// "tuning" (HeldOut).
func SplitName(name string) string {
	if HeldOut(name) {
		return "held-out"
	}
	return "tuning"
}

// fetchNPM writes the published tree of the npm package version spec
// ("NAME@VERSION") into dst (created; it must not exist): `npm pack` fetches
// the tarball (npm's cache first) into a temporary folder and it is
// unpacked without its top folder.
func fetchNPM(ctx context.Context, spec, dst string) error {
	if _, err := exec.LookPath("npm"); err != nil {
		return fmt.Errorf("npm is not on PATH: install Node.js and npm to fetch %s (scripts/setup.sh does)", spec)
	}
	tmp, err := os.MkdirTemp("", "relay-npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cmd := exec.CommandContext(ctx, "npm", "pack", spec, "--silent", "--pack-destination", tmp)
	cmd.Dir = tmp
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		return fmt.Errorf("npm pack %s: %v %s", spec, err, strings.TrimSpace(stderr.String()))
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		return fmt.Errorf("npm pack %s wrote %d tarballs, want 1", spec, len(tgzs))
	}
	f, err := os.Open(tgzs[0])
	if err != nil {
		return err
	}
	defer f.Close()
	if err := ExtractTarball(f, dst); err != nil {
		return fmt.Errorf("unpack %s: %w", spec, err)
	}
	return nil
}

// maxTarballBytes bounds what ExtractTarball writes: a published package
// larger than this is refused rather than filling the disk.
const maxTarballBytes = 1 << 30

// ExtractTarball unpacks a gzipped npm tarball into dst, dropping each
// entry's first path element (npm's "package/"). Only folders and regular
// files are written; an entry whose path is absolute or climbs out of dst
// is refused, links and devices are skipped. dst is created.
func ExtractTarball(r io.Reader, dst string) error {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzipped tarball: %w", err)
	}
	defer zr.Close()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	tr := tar.NewReader(zr)
	var written int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read tarball: %w", err)
		}
		rel, ok := tarEntryPath(h.Name)
		if !ok {
			return fmt.Errorf("tarball entry %q is outside the package folder", h.Name)
		}
		if rel == "" {
			continue
		}
		target := filepath.Join(dst, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if written += h.Size; written > maxTarballBytes {
				return fmt.Errorf("tarball unpacks to more than %d bytes", maxTarballBytes)
			}
			if err := writeEntry(tr, target, h.Size); err != nil {
				return err
			}
		}
	}
}

// tarEntryPath is an entry's path below its first element, in clean
// slash form; ok is false for one that is absolute or climbs out.
func tarEntryPath(name string) (string, bool) {
	name = strings.ReplaceAll(name, `\`, "/")
	if strings.HasPrefix(name, "/") {
		return "", false
	}
	_, rest, _ := strings.Cut(strings.TrimPrefix(name, "./"), "/")
	if rest == "" {
		return "", true
	}
	clean := path.Clean(rest)
	if clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
		return "", false
	}
	if clean == "." {
		return "", true
	}
	return clean, true
}

func writeEntry(r io.Reader, target string, size int64) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(target, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", target, err)
	}
	return f.Close()
}

// SummarizeGroups summarizes results per method and per group (group
// names an instance's group from its id; "" leaves it out), rows sorted
// by group, then method.
func SummarizeGroups(rs []InstanceResult, group func(id string) string) []Summary {
	by := map[string]map[string][]InstanceResult{}
	for _, r := range rs {
		g := group(r.ID)
		if g == "" {
			continue
		}
		if by[g] == nil {
			by[g] = map[string][]InstanceResult{}
		}
		by[g][r.Method] = append(by[g][r.Method], r)
	}
	var out []Summary
	for _, g := range sortedMethods(by) {
		for _, m := range sortedMethods(by[g]) {
			s := Summarize(m, by[g][m])
			s.Group = g
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out
}
