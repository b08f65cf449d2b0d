package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	sqlite "modernc.org/sqlite"

	"github.com/relayhq/relay/graphdb"
)

// SQLite result codes (the low byte of an extended code) that mean the
// file is damaged.
const (
	sqliteIOErr   = 10 // SQLITE_IOERR
	sqliteCorrupt = 11 // SQLITE_CORRUPT
	sqliteFull    = 13 // SQLITE_FULL
	sqliteNotADB  = 26 // SQLITE_NOTADB
)

// isCorruption reports whether err says stored data failed a check: a
// record checksum (errRecord), SQLite's own corruption codes, or an error
// that already wraps graphdb.ErrCorrupt.
func isCorruption(err error) bool {
	if errors.Is(err, errRecord) || errors.Is(err, graphdb.ErrCorrupt) {
		return true
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteCorrupt, sqliteNotADB:
			return true
		}
	}
	return false
}

// DamageError is the error every answer gets once the store found damage.
// It wraps graphdb.ErrCorrupt; the graph is derived from the source tree,
// so rebuilding the index repairs it.
type DamageError struct {
	Dir    string // the store directory
	Detail string // what failed its check
}

func (e *DamageError) Error() string {
	return fmt.Sprintf("the index at %s is damaged (%s)", e.Dir, e.Detail)
}

// Unwrap returns graphdb.ErrCorrupt.
func (e *DamageError) Unwrap() error { return graphdb.ErrCorrupt }

func (s *Store) damaged(detail string) error { return &DamageError{Dir: s.dir, Detail: detail} }

// guard passes err through unless it reports damage. Damage is sticky: the
// first failed check marks the whole store as damaged (the rest of the file
// is suspect too), and from then on every call returns the same error
// wrapping graphdb.ErrCorrupt, so no answer is ever built from data that
// failed a check. When SQLite itself reported the damage, a bounded
// quick_check names what is broken.
func (s *Store) guard(err error) error {
	if err == nil {
		return nil
	}
	if d := s.damage.Load(); d != nil {
		return *d
	}
	if !isCorruption(err) {
		return err
	}
	if errors.Is(err, graphdb.ErrCorrupt) {
		s.damage.CompareAndSwap(nil, &err)
		return *s.damage.Load()
	}
	detail := err.Error()
	if !errors.Is(err, errRecord) {
		if qc := s.quickCheck(); qc != "" {
			detail += "; quick_check: " + qc
		}
	}
	d := s.damaged(detail)
	s.damage.CompareAndSwap(nil, &d)
	s.log.Warn("graph store damaged", "dir", s.dir, "err", err)
	return *s.damage.Load()
}

// quickCheck runs SQLite's quick_check (b-tree structure and record
// format; O(file size), ~0.1 s for a std-sized graph) and returns its
// first complaint, "" when it finds none or cannot run.
func (s *Store) quickCheck() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := s.rdb.QueryContext(ctx, "PRAGMA quick_check(3)")
	if err != nil {
		return err.Error()
	}
	defer rows.Close()
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			return err.Error()
		}
		if m != "ok" && !strings.HasPrefix(m, "*** in database") {
			msgs = append(msgs, strings.TrimSpace(m))
		}
	}
	if err := rows.Err(); err != nil {
		msgs = append(msgs, err.Error())
	}
	return strings.Join(msgs, "; ")
}

// matchesQuery reports whether n satisfies q: a row reached through a
// damaged index entry can carry an intact checksum and still not be what
// the query asked for.
func matchesQuery(q graphdb.SymbolQuery, n graphdb.Node) bool {
	if q.ID != "" && n.ID != q.ID ||
		q.QName != "" && n.QName != q.QName ||
		q.Name != "" && n.Name != q.Name ||
		q.Loc != "" && n.Loc != q.Loc ||
		q.File != "" && n.File != q.File {
		return false
	}
	if q.Suffix != "" {
		qn, sfx := n.QName, q.Suffix
		if qn != sfx && !(strings.HasSuffix(qn, sfx) && (qn[len(qn)-len(sfx)-1] == '.' || qn[len(qn)-len(sfx)-1] == '/')) {
			return false
		}
	}
	if len(q.Kinds) > 0 {
		for _, k := range q.Kinds {
			if n.Kind == k {
				return true
			}
		}
		return false
	}
	return true
}

// fullCheck is what a writer runs on a store that is not sealed (its last
// writer died, or could not seal): SQLite's integrity_check, which also
// finds index entries that disagree with their rows (~0.6 s for a
// std-sized graph), then every record's checksum. It returns a description
// of the first problem, "" when there is none.
func (s *Store) fullCheck(ctx context.Context) string {
	rows, err := s.rdb.QueryContext(ctx, "PRAGMA integrity_check(3)")
	if err != nil {
		return err.Error()
	}
	var msgs []string
	for rows.Next() {
		var m string
		if err := rows.Scan(&m); err != nil {
			msgs = append(msgs, err.Error())
			break
		}
		if m != "ok" && !strings.HasPrefix(m, "*** in database") {
			msgs = append(msgs, strings.TrimSpace(m))
		}
	}
	if err := rows.Err(); err != nil {
		msgs = append(msgs, err.Error())
	}
	rows.Close()
	if len(msgs) > 0 {
		return "integrity_check: " + strings.Join(msgs, "; ")
	}
	if err := s.checkRecords(ctx); err != nil {
		return err.Error()
	}
	return ""
}

// checkRecords verifies the checksum of every node, id, file and edge set.
func (s *Store) checkRecords(ctx context.Context) error {
	q, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer q.Rollback()
	each := func(query string, fn func(*sql.Rows) error) error {
		rows, err := q.QueryContext(ctx, query)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			if err := fn(rows); err != nil {
				return err
			}
		}
		return rows.Err()
	}
	return errors.Join(
		each("SELECT "+nodeCols+" FROM nodes n JOIN syms s ON s.sid = n.sid", func(r *sql.Rows) error {
			_, err := scanNode(r)
			return err
		}),
		each("SELECT sid, id, crc FROM syms", func(r *sql.Rows) error {
			var sid, sum int64
			var id string
			if err := r.Scan(&sid, &id, &sum); err != nil {
				return err
			}
			if sum != symSum(sid, id) {
				return fmt.Errorf("id record #%d: %w", sid, errRecord)
			}
			return nil
		}),
		each("SELECT f.path, e.counts, e.data FROM edgesets e JOIN files f ON f.fid = e.fid", func(r *sql.Rows) error {
			var path, counts string
			var data sql.RawBytes
			if err := r.Scan(&path, &counts, &data); err != nil {
				return err
			}
			if _, err := decodeCounts(counts); err != nil {
				return fmt.Errorf("edges of %s: %w", path, err)
			}
			if err := decodeEdges(data, path, func([]string, rawEdge) {}); err != nil {
				return fmt.Errorf("edges of %s: %w", path, err)
			}
			return nil
		}),
		func() error { _, err := s.files(ctx); return err }(),
	)
}
