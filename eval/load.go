package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
