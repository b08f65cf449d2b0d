package egress

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DefaultSecretFiles are the patterns (.gitignore syntax, matched against
// repository-relative paths) of files relay treats as secret-bearing by
// default. Negated patterns keep templates that carry no secret (.env.example).
var DefaultSecretFiles = []string{
	// environment files
	".env", ".env.*", "*.env", "!.env.example", "!.env.sample", "!.env.template", "!.env.dist",
	"!*.env.example", "!*.env.sample", "!*.env.template",
	// keys and certificates with private parts
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore", "*.ppk", "*.asc",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*", "!*.pub",
	// package-manager and network credentials
	".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials", ".pgpass", ".my.cnf",
	".dockercfg", "**/.docker/config.json", ".htpasswd",
	// cloud and cluster credentials
	"kubeconfig", "*.kubeconfig", "**/.kube/config", "**/.aws/credentials", ".boto",
	"credentials", "credentials.json", "credentials.yml", "credentials.yaml", "credentials.xml",
	"credentials.toml", "credentials.ini", "credentials.properties", "credentials.csv",
	"service-account*.json", "*.tfvars", "terraform.tfstate", "terraform.tfstate.*",
	"secrets.yml", "secrets.yaml", "secrets.json", "secrets.toml",
}

// ErrSecretFile is wrapped by the error [FilePolicy.Check] returns for a
// secret-bearing file.
var ErrSecretFile = errors.New("secret-bearing file")

// RefusedError says which file was refused and by which pattern. Who may
// allow the file, and how (a flag, an environment variable, the bot's
// relay.yaml), depends on where relay runs: internal/advice says it.
type RefusedError struct {
	Path    string // repository-relative, slash-separated
	Pattern string // the pattern that matched
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("%s is a secret-bearing file (it matches %q in relay's list of secret files); relay does not read, search or index such files",
		e.Path, e.Pattern)
}

// Unwrap returns [ErrSecretFile].
func (e *RefusedError) Unwrap() error { return ErrSecretFile }

// FilePolicy decides which repository files are secret-bearing. The zero
// value refuses nothing; use [NewFilePolicy].
type FilePolicy struct {
	deny    []gitignore.Pattern
	allow   []gitignore.Pattern
	sources []string // the text of deny, for messages
	allowed []string // the text of allow
}

// NewFilePolicy builds a policy from patterns in .gitignore syntax: deny
// (nil means [DefaultSecretFiles]) plus extra, minus allow. A pattern
// that starts with "!" in deny or extra exempts what it matches.
func NewFilePolicy(deny, extra, allow []string) (*FilePolicy, error) {
	if deny == nil {
		deny = DefaultSecretFiles
	}
	p := &FilePolicy{}
	for _, list := range [][]string{deny, extra} {
		for _, s := range list {
			s = strings.TrimSpace(s)
			if s == "" || strings.HasPrefix(s, "#") {
				continue
			}
			if err := checkPattern(s); err != nil {
				return nil, err
			}
			p.deny = append(p.deny, gitignore.ParsePattern(s, nil))
			p.sources = append(p.sources, s)
		}
	}
	for _, s := range allow {
		s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "!"))
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if err := checkPattern(s); err != nil {
			return nil, err
		}
		p.allow = append(p.allow, gitignore.ParsePattern(s, nil))
		p.allowed = append(p.allowed, s)
	}
	return p, nil
}

func checkPattern(s string) error {
	if _, err := path.Match(strings.ReplaceAll(strings.TrimPrefix(s, "!"), "**", "*"), "x"); err != nil {
		return fmt.Errorf("secret file pattern %q: %w", s, err)
	}
	return nil
}

// Match reports whether rel (repository-relative, slash- or OS-separated)
// is secret-bearing, and the pattern that decided it. Later patterns win, as
// in .gitignore; an allow pattern wins over every deny pattern.
func (p *FilePolicy) Match(rel string) (pattern string, secret bool) {
	if p == nil || len(p.deny) == 0 {
		return "", false
	}
	parts := splitPath(rel)
	if len(parts) == 0 {
		return "", false
	}
	for _, a := range p.allow {
		if a.Match(parts, false) == gitignore.Exclude {
			return "", false
		}
	}
	for i := len(p.deny) - 1; i >= 0; i-- {
		switch p.deny[i].Match(parts, false) {
		case gitignore.Exclude:
			return p.sources[i], true
		case gitignore.Include:
			return "", false
		}
	}
	return "", false
}

// Check returns a [*RefusedError] when rel is secret-bearing, else nil.
func (p *FilePolicy) Check(rel string) error {
	if pat, ok := p.Match(rel); ok {
		return &RefusedError{Path: strings.Join(splitPath(rel), "/"), Pattern: pat}
	}
	return nil
}

func splitPath(rel string) []string {
	rel = strings.ReplaceAll(rel, "\\", "/")
	var parts []string
	for _, s := range strings.Split(rel, "/") {
		if s != "" && s != "." {
			parts = append(parts, s)
		}
	}
	return parts
}

var defaultFiles = sync.OnceValue(func() *FilePolicy {
	p, err := NewFilePolicy(nil, nil, nil)
	if err != nil {
		panic(err) // DefaultSecretFiles is tested
	}
	return p
})

// DefaultFilePolicy returns the policy of [DefaultSecretFiles] alone; it
// needs no secret scanner, so the file walks that only decide what to skip
// use it without compiling gitleaks' rules.
func DefaultFilePolicy() *FilePolicy { return defaultFiles() }

// PolicyOrDefault returns p, or [DefaultFilePolicy] when p is nil: a
// caller that configured nothing gets the default list, never no list.
func PolicyOrDefault(p *FilePolicy) *FilePolicy {
	if p == nil {
		return DefaultFilePolicy()
	}
	return p
}

// ExcludeGlobs returns the deny patterns that can be handed to a search
// program as plain exclusions (rg --glob '!P'), so it does not open the
// files at all: those that no exemption (a "!" pattern of the list, an
// allow pattern) can overlap. The others are left to a path check with
// Match on each result; rg's globs cannot re-include, because a glob
// without "!" turns rg's globs into a whitelist.
//
// DESIGN: a pattern P without "/" excludes every file or folder whose name
// matches P. It is kept only when no segment of any exemption can name the
// same file: a literal segment must not match P, and for two globs the
// literal text before their first "*" and after their last "*" must rule
// out a common name (one is not a prefix, resp. suffix, of the other).
// Patterns with "/", "?", "[" or "{" are never handed over.
func (p *FilePolicy) ExcludeGlobs() []string {
	if p == nil {
		return nil
	}
	var exempt []string
	for _, s := range p.sources {
		if e, ok := strings.CutPrefix(s, "!"); ok {
			exempt = append(exempt, splitPath(e)...)
		}
	}
	for _, s := range p.allowed {
		exempt = append(exempt, splitPath(s)...)
	}
	var out []string
	for _, s := range p.sources {
		if strings.HasPrefix(s, "!") || strings.ContainsAny(s, "/?[{\\") {
			continue
		}
		if !slices.ContainsFunc(exempt, func(e string) bool { return globsOverlap(s, e) }) {
			out = append(out, s)
		}
	}
	return out
}

// globsOverlap reports whether a file name could match both a and b (file
// name globs where only "*" is special; anything else counts as overlap).
func globsOverlap(a, b string) bool {
	if strings.ContainsAny(b, "?[{\\") || strings.Contains(b, "**") {
		return true
	}
	if !strings.Contains(a, "*") || !strings.Contains(b, "*") {
		ma, _ := path.Match(a, b)
		mb, _ := path.Match(b, a)
		return ma || mb
	}
	pa, pb := a[:strings.Index(a, "*")], b[:strings.Index(b, "*")]
	sa, sb := a[strings.LastIndex(a, "*")+1:], b[strings.LastIndex(b, "*")+1:]
	prefixes := strings.HasPrefix(pa, pb) || strings.HasPrefix(pb, pa)
	suffixes := strings.HasSuffix(sa, sb) || strings.HasSuffix(sb, sa)
	return prefixes && suffixes
}
