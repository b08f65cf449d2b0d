package mcpserver

import (
	"path/filepath"
	"regexp"
	"strings"
)

// OutsidePath replaces, in text sent to a client, an absolute path that is
// not inside the repository.
const OutsidePath = "<path outside the repository>"

var (
	// urlRE matches URLs, which may carry credentials or internal hosts.
	// Punctuation that ends a sentence or an error prefix is not part of it.
	urlRE = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^\s"'<>]*[^\s"'<>:.,;)\]]`)
	// absRE matches an absolute Unix or Windows path that starts a word.
	// ':' ends a path because Go errors put one after it ("open /x: ...").
	absRE = regexp.MustCompile(`(^|[\s"'(=\[{,;])((?:/|[A-Za-z]:\\)[^\s"':,;()\[\]{}<>]*)`)
)

// Redact rewrites text (an error message from a tool or a store) for an MCP
// client: a path inside one of roots becomes relative to it ("." for the
// root itself), any other absolute path becomes OutsidePath and a URL
// becomes "<url>". Roots are absolute; give the repository root both as
// passed and with symlinks resolved when they differ.
func Redact(text string, roots ...string) string { return redact(text, "", roots) }

// redact is Redact keeping the paths and URLs that occur in known (the
// client's own arguments, which it may see echoed back).
func redact(text, known string, roots []string) string {
	kept := func(s string) bool { return known != "" && strings.Contains(known, s) }
	text = urlRE.ReplaceAllStringFunc(text, func(u string) string {
		if kept(u) {
			return u
		}
		return "<url>"
	})
	return absRE.ReplaceAllStringFunc(text, func(m string) string {
		sub := absRE.FindStringSubmatch(m)
		lead, p := sub[1], sub[2]
		for _, root := range roots {
			root = strings.TrimRight(filepath.Clean(root), `/\`)
			if root == "" || root == "." {
				continue
			}
			switch {
			case p == root || p == root+"/" || p == root+`\`:
				return lead + "."
			case strings.HasPrefix(p, root+"/"), strings.HasPrefix(p, root+`\`):
				return lead + p[len(root)+1:]
			}
		}
		if kept(p) {
			return m
		}
		return lead + OutsidePath
	})
}
