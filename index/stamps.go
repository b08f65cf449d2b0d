package index

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// DESIGN: a run that changes nothing used to read and hash every source
// file to prove it (most of a no-change run: on a deep Java tree the opens
// beneath the root cost more than the walk). The stamps table, written
// with every commit, records each file's size, modification time, change
// time and inode as the scan saw them before reading it, with the content
// hash read after; a later scan trusts the hash of a file whose stat still
// matches, and reads only the others. A file modified in the same clock
// tick as that read, after it, keeps its size and times: so a stamp is
// trusted only when the file's modification time lies racyWindow or more
// before the scan that recorded it began (git's "racy" rule); a file
// within the window is hashed, and only that file. Once such files are no
// longer within the window of the current run (saved long enough ago), a
// run that changes nothing rewrites the table, alone in its transaction,
// so that later runs trust them again, but only when there are enough of
// them (worthWriting: a fresh checkout, a branch switch): re-hashing the
// one file an edit left in the window costs each run far less than a
// write (a transaction, and the table encoded). Options.Full trusts no
// stamp.

// MetaStamps holds the stamps table of the last run that wrote it: each
// source file's stat and content hash.
const MetaStamps = "index.stamps"

// racyWindow is how long before a scan's start a file must have been
// modified for its stamp to be trusted: above every file system's time
// granularity (2 s on FAT) and the clock ticks between a stat and a read.
const racyWindow = 2 * time.Second

// stampsVersion starts the table's text; a table of another version (or
// damaged) is not trusted.
const stampsVersion = "stamps-1"

// worthWriting reports whether a no-change run's table, which would
// trust settled more files than the stored one, is worth a transaction of
// its own, total files in all: at least 256 of them, or a sixteenth.
func worthWriting(settled, total int) bool {
	return settled > 0 && (settled >= 256 || settled*16 >= total)
}

// stamp is what a stat says of a file, and the hash of its content.
type stamp struct {
	size, mod, ctime, ino int64 // ctime and ino 0 where the system has none
	hash                  string
}

// same reports whether two stats describe the same file content.
func (s stamp) same(o stamp) bool {
	return s.size == o.size && s.mod == o.mod && s.ctime == o.ctime && s.ino == o.ino
}

// stampOf reads the stat of a regular file as the walk listed it; ok is
// false for anything else (a file swapped since, a link), which is hashed.
func stampOf(d fs.DirEntry) (stamp, bool) {
	fi, err := d.Info()
	if err != nil || !fi.Mode().IsRegular() {
		return stamp{}, false
	}
	s := stamp{size: fi.Size(), mod: fi.ModTime().UnixNano()}
	s.ctime, s.ino = sysStampOf(fi)
	return s, true
}

// sysStampOf is sysStamp; a test replaces it to stand for a save within
// one tick of the clock (a change time that did not move).
var sysStampOf = sysStamp

// stamps is a stamps table: when the scan that recorded it began, and each
// file's stamp by repository-relative path.
type stamps struct {
	start int64 // UnixNano
	files map[string]stamp
}

// trusted returns the hash the table holds for rel when now (the file's
// current stat) matches its stamp and the file was modified outside the
// racy window of the scan that recorded it.
func (t *stamps) trusted(rel string, now stamp) (string, bool) {
	if t == nil {
		return "", false
	}
	old, ok := t.files[rel]
	if !ok || !old.same(now) || old.mod >= t.start-int64(racyWindow) {
		return "", false
	}
	return old.hash, true
}

// encode writes the table as text: a header line, then one line a file
// (path, size, times, inode, hash, tab-separated), sorted by path. A path
// holding a tab, a line break, a quote, a backslash or an unprintable
// character is quoted.
func (t *stamps) encode() string {
	var b strings.Builder
	b.Grow(len(t.files) * 96)
	fmt.Fprintf(&b, "%s\t%d\n", stampsVersion, t.start)
	for _, rel := range slices.Sorted(maps.Keys(t.files)) {
		s := t.files[rel]
		if needsQuote(rel) {
			rel = strconv.Quote(rel)
		}
		b.WriteString(rel)
		for _, n := range [...]int64{s.size, s.mod, s.ctime, s.ino} {
			b.WriteByte('\t')
			b.WriteString(strconv.FormatInt(n, 10))
		}
		b.WriteByte('\t')
		b.WriteString(s.hash)
		b.WriteByte('\n')
	}
	return b.String()
}

// decodeStamps reads a table that encode wrote; an empty text is no table
// (nil, nil), anything else that does not read back is an error.
func decodeStamps(text string) (*stamps, error) {
	if text == "" {
		return nil, nil
	}
	head, rest, _ := strings.Cut(text, "\n")
	v, start, ok := strings.Cut(head, "\t")
	if !ok || v != stampsVersion {
		return nil, fmt.Errorf("stamps table: unknown header %q", head)
	}
	t := &stamps{files: map[string]stamp{}}
	var err error
	if t.start, err = strconv.ParseInt(start, 10, 64); err != nil {
		return nil, fmt.Errorf("stamps table: start: %w", err)
	}
	for line := range strings.Lines(rest) {
		f := strings.Split(strings.TrimSuffix(line, "\n"), "\t")
		if len(f) != 6 {
			return nil, fmt.Errorf("stamps table: line %q: %d fields, want 6", line, len(f))
		}
		rel := f[0]
		if strings.HasPrefix(rel, `"`) {
			if rel, err = strconv.Unquote(rel); err != nil {
				return nil, fmt.Errorf("stamps table: path %s: %w", f[0], err)
			}
		}
		var n [4]int64
		for i := range n {
			if n[i], err = strconv.ParseInt(f[i+1], 10, 64); err != nil {
				return nil, fmt.Errorf("stamps table: %s: %w", rel, err)
			}
		}
		t.files[rel] = stamp{size: n[0], mod: n[1], ctime: n[2], ino: n[3], hash: f[5]}
	}
	return t, nil
}

// needsQuote reports whether a path must be quoted in the table.
func needsQuote(rel string) bool {
	if strings.HasPrefix(rel, `"`) {
		return true
	}
	for _, r := range rel {
		if r == '\t' || r == '\\' || r == '"' || !unicode.IsPrint(r) {
			return true
		}
	}
	return false
}
