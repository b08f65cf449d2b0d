package retrieve

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/repofs"
	"github.com/relayhq/relay/internal/safefs"
)

// MaxFileSize is the largest file Build reads; bigger files are data.
const MaxFileSize = 1 << 20

// walkFiles returns the repository-relative paths of the text files Build
// considers, sorted, honouring the repository's ignore rules (.gitignore
// files and .git/info/exclude, internal/repofs), skipping repofs.SkipDirs,
// secret-bearing files (egress.DefaultSecretFiles), files over MaxFileSize
// and everything that is not a regular file (symbolic links included).
// stateDir (the index directory, which may be anywhere, e.g. --store
// ./idx) is skipped too when it lies inside root: relay's own files are
// not the repository's.
func walkFiles(root, stateDir string) ([]string, error) {
	paths, _, err := walkTree(root, stateDir, nil)
	return paths, err
}

// walkTree is walkFiles that also returns notes ("path: why") on what
// could hold text but is not read: symbolic links whose real path lies
// outside the repository (files of a known language, directories), link
// loops, directories that cannot be read (a path too long to open) and
// ignore files that cannot be read.
// Links inside the repository are skipped silently, as before: their
// targets are indexed where they are. Files the policy secret (nil: the
// default list) calls secret-bearing are left out with a note naming the
// pattern.
func walkTree(root, stateDir string, secret *egress.FilePolicy) (paths, notes []string, err error) {
	secret = egress.PolicyOrDefault(secret)
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, nil, err
	}
	err = repofs.Walk(context.Background(), root, repofs.Options{StateDir: stateDir}, func(e repofs.Entry) error {
		switch {
		case e.Err != nil:
			notes = append(notes, e.Rel+": "+safefs.Reason(e.Err))
			return nil // unreadable entry: skip it, keep walking
		case e.D.IsDir():
			return nil
		case e.D.Type()&fs.ModeSymlink != 0:
			if why := linkNote(realRoot, filepath.Join(root, filepath.FromSlash(e.Rel)), e.Rel); why != "" {
				notes = append(notes, e.Rel+": "+why)
			}
			return nil
		case !e.D.Type().IsRegular():
			return nil
		}
		if _, ok := LanguageOf(e.Rel); !ok {
			return nil
		}
		if pat, ok := secret.Match(e.Rel); ok {
			notes = append(notes, e.Rel+": secret-bearing file (pattern "+pat+"), not indexed")
			return nil
		}
		fi, err := e.D.Info()
		if err != nil || fi.Size() > MaxFileSize || fi.Size() == 0 {
			return nil
		}
		paths = append(paths, e.Rel)
		return nil
	})
	return paths, notes, err
}

// linkNote says why a symbolic link is worth a note, or "": it leads
// outside the repository to a directory or a file of a known language, or
// it is a loop.
func linkNote(realRoot, abs, rel string) string {
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if strings.Contains(err.Error(), "too many links") || errors.Is(err, syscall.ELOOP) {
			return "symbolic link loop"
		}
		return "" // broken: nothing to read
	}
	in, err := filepath.Rel(realRoot, real)
	if err == nil && in != ".." && !strings.HasPrefix(in, ".."+string(filepath.Separator)) {
		return ""
	}
	fi, err := os.Stat(real)
	if err != nil {
		return ""
	}
	if _, ok := LanguageOf(rel); ok || fi.IsDir() {
		return "links outside the repository"
	}
	return ""
}

// isBinary reports whether data looks binary: a NUL byte in the first 8 KiB.
func isBinary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// LanguageOf returns the language of a path and whether it is indexed
// (repofs.Language: one table for the search index and the indexer).
func LanguageOf(rel string) (string, bool) { return repofs.Language(rel) }
