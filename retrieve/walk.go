package retrieve

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/safefs"
)

// MaxFileSize is the largest file Build reads; bigger files are data.
const MaxFileSize = 1 << 20

// skipDirs are never walked.
var skipDirs = map[string]bool{
	".git": true, ".relay": true, ".hg": true, ".svn": true, "vendor": true, "node_modules": true,
	"__pycache__": true, ".venv": true, ".idea": true, ".vscode": true,
}

// ignoreRule is one .gitignore line, reduced to what Build needs: a glob on
// the base name (unanchored) or on the whole relative path (anchored or
// containing '/'), optionally only for directories, optionally negated.
type ignoreRule struct {
	base    string // directory of the .gitignore, relative to the root ("" for the root)
	pattern string
	anchor  bool
	dirOnly bool
	negate  bool
}

// ignorer applies the .gitignore files found while walking.
type ignorer struct {
	fsys  *safefs.Root // the repository root
	rules []ignoreRule
}

func (ig *ignorer) load(relDir string) {
	data, err := ig.fsys.ReadFile(path.Join(relDir, ".gitignore"), MaxFileSize)
	if err != nil {
		return
	}
	// Split, not a bufio.Scanner: one over-long line would silently end
	// the scan and drop the rules after it.
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, " \t\r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		r := ignoreRule{base: relDir}
		if strings.HasPrefix(line, "!") {
			r.negate = true
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimSuffix(line, "/")
		}
		if strings.HasPrefix(line, "/") {
			r.anchor = true
			line = strings.TrimPrefix(line, "/")
		} else if strings.Contains(line, "/") {
			r.anchor = true
		}
		line = strings.TrimPrefix(line, "**/")
		if line == "" {
			continue
		}
		r.pattern = line
		ig.rules = append(ig.rules, r)
	}
}

// ignored reports whether rel (slash-separated, relative to root) is ignored.
// The last matching rule wins, as in git.
func (ig *ignorer) ignored(rel string, isDir bool) bool {
	out := false
	for _, r := range ig.rules {
		if r.dirOnly && !isDir {
			continue
		}
		p := rel
		if r.base != "" {
			if !strings.HasPrefix(rel, r.base+"/") {
				continue
			}
			p = rel[len(r.base)+1:]
		}
		var ok bool
		if r.anchor {
			ok, _ = path.Match(r.pattern, p)
			if !ok && strings.HasSuffix(r.pattern, "/**") {
				ok = strings.HasPrefix(p, strings.TrimSuffix(r.pattern, "**"))
			}
		} else {
			ok, _ = path.Match(r.pattern, path.Base(p))
		}
		if ok {
			out = !r.negate
		}
	}
	return out
}

// walkFiles returns the repository-relative paths of the text files Build
// considers, sorted, honouring .gitignore files, skipping skipDirs,
// secret-bearing files (egress.DefaultSecretFiles), files over MaxFileSize
// and everything that is not a regular file (symbolic links included). stateDir (the index directory, which may be anywhere,
// e.g. --store ./idx) is skipped too when it lies inside root: relay's own
// files are not the repository's.
func walkFiles(root, stateDir string) ([]string, error) {
	paths, _, err := walkTree(root, stateDir, nil)
	return paths, err
}

// walkTree is walkFiles that also returns notes ("path: why") on what
// could hold text but is not read: symbolic links whose real path lies
// outside the repository (files of a known language, directories), link
// loops, and directories that cannot be read (a path too long to open).
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
	fsys, err := safefs.OpenRoot(root)
	if err != nil {
		return nil, nil, err
	}
	defer fsys.Close()
	ig := &ignorer{fsys: fsys}
	skipRel := insideRel(root, stateDir)
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == root {
				return err
			}
			notes = append(notes, rel+": "+safefs.Reason(err))
			return nil // unreadable entry: skip it, keep walking
		}
		if d.IsDir() {
			if rel == "." {
				ig.load("")
				return nil
			}
			if skipDirs[d.Name()] || rel == skipRel || ig.ignored(rel, true) {
				return filepath.SkipDir
			}
			ig.load(rel)
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 && !skipDirs[d.Name()] && !ig.ignored(rel, false) {
			if why := linkNote(realRoot, p, rel); why != "" {
				notes = append(notes, rel+": "+why)
			}
			return nil
		}
		if !d.Type().IsRegular() || ig.ignored(rel, false) {
			return nil
		}
		if _, ok := LanguageOf(rel); !ok {
			return nil
		}
		if pat, ok := secret.Match(rel); ok {
			notes = append(notes, rel+": secret-bearing file (pattern "+pat+"), not indexed")
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() > MaxFileSize || fi.Size() == 0 {
			return nil
		}
		paths = append(paths, rel)
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

// insideRel returns dir relative to root (slash-separated) when dir lies
// strictly inside root, and "" otherwise.
func insideRel(root, dir string) string {
	if dir == "" {
		return ""
	}
	ar, err1 := filepath.Abs(root)
	ad, err2 := filepath.Abs(dir)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(ar, ad)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// isBinary reports whether data looks binary: a NUL byte in the first 8 KiB.
func isBinary(data []byte) bool {
	if len(data) > 8192 {
		data = data[:8192]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// languages maps file extensions (and a few base names) to a language name.
// Files whose language is unknown are not indexed.
var languages = map[string]string{
	".go": "go", ".py": "python", ".pyi": "python", ".ts": "typescript", ".tsx": "typescript",
	".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".cjs": "javascript",
	".java": "java", ".kt": "kotlin", ".rs": "rust", ".rb": "ruby", ".php": "php", ".cs": "csharp",
	".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".swift": "swift", ".scala": "scala",
	".sh": "shell", ".bash": "shell", ".zsh": "shell", ".s": "asm",
	".md": "markdown", ".markdown": "markdown", ".rst": "rst", ".txt": "text",
	".yaml": "yaml", ".yml": "yaml", ".json": "json", ".toml": "toml", ".ini": "ini", ".cfg": "ini",
	".conf": "config", ".env": "config", ".properties": "config", ".xml": "xml", ".html": "html",
	".css": "css", ".sql": "sql", ".proto": "protobuf", ".graphql": "graphql", ".tf": "terraform",
	".mod": "gomod", ".sum": "", ".lock": "", ".tmpl": "template", ".gotmpl": "template",
	".txtar": "txtar",
}

var baseLanguages = map[string]string{
	"Makefile": "make", "Dockerfile": "docker", "Taskfile.yml": "yaml", "go.mod": "gomod",
	".gitignore": "config", "Jenkinsfile": "groovy",
}

// LanguageOf returns the language of a path and whether it is indexed.
func LanguageOf(rel string) (string, bool) {
	base := path.Base(rel)
	if l, ok := baseLanguages[base]; ok {
		return l, l != ""
	}
	l, ok := languages[strings.ToLower(path.Ext(base))]
	return l, ok && l != ""
}
