package retrieve

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/relayhq/relay/internal/repofs"
)

// Filter restricts search to chunks with the given metadata. Empty fields do
// not restrict. Filters are hard: a chunk that fails one is never returned
// (but see the fallback chain in Search when nothing passes).
type Filter struct {
	// Languages are language names ("go", "markdown", "yaml"…).
	Languages []string `json:"languages,omitempty"`
	// Path is a glob over the repo-relative path: '*' and '?' stay within a
	// path segment, '**' spans segments. A pattern without '/' matches the
	// base name at any depth ("*_test.go"); a pattern without glob
	// characters also matches everything below it as a directory
	// ("graphdb" matches graphdb/store.go).
	Path string `json:"path,omitempty"`
	// Kinds are chunk kinds (function, method, type, section, text).
	Kinds []string `json:"kinds,omitempty"`
}

// IsZero reports whether f restricts nothing.
func (f Filter) IsZero() bool { return len(f.Languages) == 0 && f.Path == "" && len(f.Kinds) == 0 }

// KnownLanguages returns the language names Build assigns, sorted.
func KnownLanguages() []string { return repofs.Languages() }

// Validate checks the languages, the kinds and the path pattern.
func (f Filter) Validate() error {
	if len(f.Languages) > 0 {
		known := KnownLanguages()
		for _, l := range f.Languages {
			if !slices.Contains(known, strings.ToLower(l)) {
				return fmt.Errorf("unknown language %q (want one of %s)", l, strings.Join(known, ", "))
			}
		}
	}
	for _, k := range f.Kinds {
		if !slices.Contains(ChunkKinds, k) {
			return fmt.Errorf("unknown kind %q (want one of %s)", k, strings.Join(ChunkKinds, ", "))
		}
	}
	if _, err := compileGlob(f.Path); err != nil {
		return err
	}
	return nil
}

// globMatcher matches repo-relative paths against a Filter.Path pattern.
type globMatcher struct {
	re     *regexp.Regexp
	prefix string // non-empty for a literal directory pattern
	base   bool   // match the base name only
}

func compileGlob(p string) (*globMatcher, error) {
	p = strings.TrimPrefix(strings.TrimSpace(p), "./")
	if p == "" {
		return nil, nil
	}
	m := &globMatcher{base: !strings.Contains(strings.TrimSuffix(p, "/"), "/")}
	if !strings.ContainsAny(p, "*?[") {
		m.prefix = strings.TrimSuffix(p, "/") + "/"
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				i++
				if i+1 < len(p) && p[i+1] == '/' {
					i++
					b.WriteString("(?:.*/)?")
				} else {
					b.WriteString(".*")
				}
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("invalid path pattern %q: %v", p, err)
	}
	m.re = re
	return m, nil
}

func (m *globMatcher) match(p string) bool {
	if m == nil {
		return true
	}
	if m.prefix != "" && (strings.HasPrefix(p, m.prefix) || strings.Contains(p, "/"+m.prefix) && m.base) {
		return true
	}
	if m.base {
		return m.re.MatchString(path.Base(p)) || m.re.MatchString(p)
	}
	return m.re.MatchString(p)
}

// relaxPath drops the file part of a path pattern ("graphdb/**/*_test.go" →
// "graphdb/**"); it returns "" when nothing folder-like remains.
func relaxPath(p string) string {
	p = strings.TrimSuffix(p, "/")
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	last := p[i+1:]
	if !strings.ContainsAny(last, "*?[") && !strings.Contains(last, ".") {
		return "" // already a folder
	}
	dir := strings.TrimSuffix(p[:i], "/**")
	if dir == "" || dir == "**" {
		return ""
	}
	return dir
}
