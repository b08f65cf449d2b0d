package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/relayhq/relay/internal/lines"
)

// loadJSONL reads one T per line of r, blank lines skipped, lines of any
// length (internal/lines): the core of LoadInstances and LoadRealIssues.
// Every line must decode as T (fields lists the keys a line wants, for
// the error), carry an instance_id (id) that can name a directory and
// repeats no earlier line, and pass check. Errors name the line, and the
// instance where it is known; callers add the file name.
func loadJSONL[T any](r io.Reader, fields string, id func(*T) string, check func(*T) error) ([]T, error) {
	var out []T
	seen := map[string]int{}
	err := lines.Each(r, func(n int, line []byte) error {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			return nil
		}
		var rec T
		if err := json.Unmarshal(line, &rec); err != nil {
			return fmt.Errorf("line %d: %v (want one JSON object per line: %s)", n, err, fields)
		}
		name := id(&rec)
		switch {
		case name == "":
			return fmt.Errorf("line %d: instance_id is empty (give every line a unique instance_id)", n)
		case strings.ContainsAny(name, `/\`) || name == "." || name == "..":
			return fmt.Errorf("line %d: instance_id %q must be a plain directory name (no slashes, not . or ..)", n, name)
		}
		if err := check(&rec); err != nil {
			return fmt.Errorf("line %d (%s): %w", n, name, err)
		}
		if prev, dup := seen[name]; dup {
			return fmt.Errorf("line %d: instance_id %q repeats line %d (instance ids must be unique)", n, name, prev)
		}
		seen[name] = n
		out = append(out, rec)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no instances found: expected one JSON object per line")
	}
	return out, nil
}

// checkGoldPaths refuses a gold entry that cannot name a file of the
// checkout: an absolute path, one that climbs out with "..", one with
// backslashes or not in clean form. Such an entry never matches a
// prediction (those are clean paths relative to the repository root), so
// it used to score 0 without a word. withName is true for gold_functions,
// whose entries are "path/file.go:Func".
func checkGoldPaths(field string, entries []string, withName bool) error {
	for _, e := range entries {
		p := e
		if withName {
			p, _, _ = strings.Cut(e, ":")
		}
		var why string
		switch {
		case strings.TrimSpace(p) == "":
			why = "has no file path"
		case strings.HasPrefix(p, "/") || len(p) > 1 && p[1] == ':':
			why = "is absolute"
		case strings.Contains(p, `\`):
			why = "has backslashes"
		case p == ".." || strings.HasPrefix(p, "../") || strings.Contains(p, "/../") || strings.HasSuffix(p, "/.."):
			why = "climbs out of the repository with .."
		case path.Clean(p) != p:
			why = fmt.Sprintf("is not in clean form (write %q)", path.Clean(p))
		default:
			continue
		}
		return fmt.Errorf("%s entry %q %s: give paths relative to the repository root, with forward slashes", field, e, why)
	}
	return nil
}
