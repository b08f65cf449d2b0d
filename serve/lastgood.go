package serve

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// The last report body relay posted on each issue is kept in the queue's
// database (table relay_report, keyed by the normalised issue key), so that
// every process on a shared PostgreSQL queue finds it, not only the one that
// posted it. A job that fails posts it again with a short note below
// instead of replacing it with the error: trackers keep every edit of a
// comment, and a failed re-run must never bury a good report under an
// error.
//
// Earlier versions kept it in a file per issue under state_dir/reports/
// (named by a hash of the key, so the files cannot be listed back into
// keys). Such a file is read when the database has no report for the key,
// copied into the database, and removed once a newer report is saved. A
// process whose state directory did not post the report finds no file:
// on a shared PostgreSQL queue, a report posted before the upgrade by
// another process is not restored after a failure (the failure note is
// posted alone), once; the next good report is kept for all.

const createReportTableSQL = `
CREATE TABLE IF NOT EXISTS relay_report (
	job_key   TEXT PRIMARY KEY,
	body      TEXT NOT NULL,
	posted_at BIGINT NOT NULL
)`

// SaveReport records body as the last report posted on the issue key (a
// normalised key: NormalizeRef).
func (q *Queue) SaveReport(ctx context.Context, key, body string) error {
	_, err := q.b.exec(ctx, `INSERT INTO relay_report (job_key, body, posted_at) VALUES ($1, $2, $3)
ON CONFLICT (job_key) DO UPDATE SET body = excluded.body, posted_at = excluded.posted_at`, key, body, time.Now().Unix())
	if err != nil {
		return fmt.Errorf("keep the last report of %s: %w", key, err)
	}
	return nil
}

// LastReport returns the last report posted on the issue key, or "".
func (q *Queue) LastReport(ctx context.Context, key string) (string, error) {
	s, err := q.b.queryString(ctx, `SELECT body FROM relay_report WHERE job_key = $1`, key)
	if errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the last report of %s: %w", key, err)
	}
	return s, nil
}

// lastReports reads and writes the last reports: the queue's table, and
// the files of earlier versions under dir.
type lastReports struct {
	q   *Queue
	dir string // state_dir/reports
}

// legacyPath is where an earlier version kept key's last report.
func (l lastReports) legacyPath(key string) string {
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(l.dir, hex.EncodeToString(sum[:16])+".md")
}

// load returns the last report posted for key, or "" when there is none:
// the database's, else an earlier version's file, which it copies into the
// database.
func (l lastReports) load(ctx context.Context, key string) (string, error) {
	body, err := l.q.LastReport(ctx, key)
	if err != nil || body != "" {
		return body, err
	}
	b, err := os.ReadFile(l.legacyPath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the last report of %s: %w", key, err)
	}
	if err := l.q.SaveReport(ctx, key, string(b)); err != nil {
		return string(b), err
	}
	return string(b), nil
}

// save records body as the last report posted for key; an earlier
// version's file for key, now stale, is removed.
func (l lastReports) save(ctx context.Context, key, body string) error {
	if err := l.q.SaveReport(ctx, key, body); err != nil {
		return err
	}
	if err := os.Remove(l.legacyPath(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove the old copy of the last report of %s: %w", key, err)
	}
	return nil
}

// below is body with note under it, or note alone when there is no body.
func below(body, note string) string {
	if body == "" {
		return note
	}
	return body + "\n\n---\n\n" + note
}
