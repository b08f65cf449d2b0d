package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Freshness says how current the index a report was computed from was:
// built from nothing for the job (Cold), brought up to date by re-indexing
// the files that changed (Changed of Files), or already up to date, built
// Age before the job.
type Freshness struct {
	Cold      bool
	Unchanged bool
	Files     int
	Changed   int
	Age       time.Duration // Unchanged: since the index was last written; -1 when not known
}

// indexMark is what a repository's index-mark file records: when its
// store was last written, and at which commit.
type indexMark struct {
	At     time.Time `json:"at"`
	Commit string    `json:"commit"`
}

// markFile is the index-mark file of the store in storeDir, beside it.
func markFile(storeDir string) string { return filepath.Join(filepath.Dir(storeDir), "indexed.json") }

// freshness runs index on storeDir and says how fresh the index it leaves
// is, keeping the mark of the last write beside the store. A mark that
// cannot be read or written costs the age only, never the job.
func freshness(storeDir, commit string, now func() time.Time, index func() (IndexStats, error)) (IndexStats, Freshness, error) {
	_, err := os.Stat(storeDir)
	cold := errors.Is(err, fs.ErrNotExist)
	var mark indexMark
	known := false
	if b, err := os.ReadFile(markFile(storeDir)); err == nil && json.Unmarshal(b, &mark) == nil && !mark.At.IsZero() {
		known = true
	}
	st, err := index()
	if err != nil {
		return st, Freshness{}, err
	}
	f := Freshness{Cold: cold, Unchanged: st.Unchanged && !cold, Files: st.Files, Changed: st.Changed, Age: -1}
	if f.Unchanged {
		if known {
			f.Age = max(0, now().Sub(mark.At))
		}
		return st, f, nil
	}
	f.Age = 0
	if b, err := json.Marshal(indexMark{At: now().UTC(), Commit: commit}); err == nil {
		_ = os.WriteFile(markFile(storeDir), b, 0o644)
	}
	return st, f, nil
}

// ReportHead is the first line of a report the bot posts: the commit it
// was computed at (and its branch) and how fresh the index was.
func ReportHead(commit, branch string, f Freshness) string {
	short := commit
	if len(short) > 12 {
		short = short[:12]
	}
	at := fmt.Sprintf("Computed at `%s`", short)
	if branch != "" {
		at += " (" + branch + ")"
	}
	var idx string
	switch {
	case f.Cold:
		idx = fmt.Sprintf("index built cold for this run (%d files)", f.Files)
	case !f.Unchanged:
		idx = fmt.Sprintf("index updated incrementally for this run (%d of %d files re-indexed)", f.Changed, f.Files)
	case f.Age < 0:
		idx = "index already up to date (no file changed; its age is not known)"
	default:
		idx = "index already up to date (no file changed), last written " + ago(f.Age)
	}
	return "<sub>" + at + " · " + idx + ".</sub>"
}

// ago says how long ago d was, in the largest whole unit.
func ago(d time.Duration) string {
	plural := func(n int, unit string) string {
		if n == 1 {
			return fmt.Sprintf("1 %s ago", unit)
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case d < time.Minute:
		return "less than a minute ago"
	case d < time.Hour:
		return plural(int(d/time.Minute), "minute")
	case d < 48*time.Hour:
		return plural(int(d/time.Hour), "hour")
	}
	return plural(int(d/(24*time.Hour)), "day")
}
