package tools

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// outsidePath finds a path token that leaves the repository: an absolute
// path, or one that climbs out with "..".
var outsidePath = regexp.MustCompile(`(?:^|[\s'"(\[=,:])(?:/|\.\./|\.\.$)`)

// cleanStderr makes rg's or fd's error text fit to show the model. Paths
// beneath root (as given or resolved: rg names its ancestors' ignore files
// by the physical working directory) become repository-relative; a line
// that still names a path outside the repository — an ignore file above
// it, which rg quotes line by line when it cannot parse it, or a file it
// was refused — is withheld, and one line at the end says how many were.
//
// DESIGN: the lines are filtered, not parsed: rg and fd print free-form
// messages whose shape varies by version ("rg: PATH: msg", "PATH: line N:
// error parsing glob '…'", "[fd error]: …"), and the one rule that holds
// for all of them is that a message about a file names it. A regex error
// echoes the model's own pattern, which is kept unless it looks like an
// absolute path.
func cleanStderr(stderr, root string) string {
	if strings.TrimSpace(stderr) == "" {
		return stderr
	}
	roots := []string{filepath.Clean(root)}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != roots[0] {
		roots = append(roots, real)
	}
	var kept []string
	withheld := 0
	for _, line := range strings.Split(strings.TrimRight(stderr, "\n"), "\n") {
		for _, r := range roots {
			if r == "/" {
				continue
			}
			line = strings.ReplaceAll(line, r+string(filepath.Separator), "")
		}
		if outsidePath.MatchString(line) {
			withheld++
			continue
		}
		kept = append(kept, line)
	}
	if withheld > 0 {
		kept = append(kept, fmt.Sprintf("(%d line(s) of the message named files outside the repository and were withheld)", withheld))
	}
	return strings.Join(kept, "\n")
}
