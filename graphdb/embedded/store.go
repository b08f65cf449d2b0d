package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/relayhq/relay/graphdb"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

// File names inside the store directory.
const (
	dbName       = "graph.db"
	lockName     = "write.lock"
	snapshotName = "adjacency.bin"
)

// Options configure Open.
type Options struct {
	// ReadOnly opens an existing store for queries only: the directory is
	// not created and Begin fails.
	ReadOnly bool
	// Logger receives debug logs (open, commit, adjacency builds); nil
	// discards them.
	Logger *slog.Logger
	// Rebuild, for a writable open, replaces a graph that cannot be used
	// (another schema version, corrupt, not a relay database) with an empty
	// one instead of failing; only the graph's own files are removed, never
	// the rest of the directory (transcripts, feedback, search index). The
	// indexer sets it: the graph is derived data it is about to rewrite.
	Rebuild bool
}

// ErrIncompatible is wrapped by Open's error when the store's files are not
// a graph this version of relay can read.
var ErrIncompatible = errors.New("incompatible graph store")

// DefaultDir is where a repository's embedded store lives: <repoRoot>/.relay.
func DefaultDir(repoRoot string) string { return filepath.Join(repoRoot, ".relay") }

// Store is the embedded graph store. It is safe for concurrent use: any
// number of goroutines (and processes) read while one writer holds a Tx.
type Store struct {
	dir      string
	readOnly bool
	log      *slog.Logger

	rdb *sql.DB // reader pool (query_only connections)
	wdb *sql.DB // the one writer connection; nil when read-only

	stmts readStmts

	txMu   sync.Mutex
	txOpen *tx // the open transaction, if any

	adjMu sync.Mutex
	adj   atomic.Pointer[adjacency] // last loaded adjacency; checked against the generation per use

	closed atomic.Bool
}

var _ graphdb.Store = (*Store)(nil)
var _ graphdb.Traverser = (*Store)(nil)
var _ graphdb.MultiTraverser = (*Store)(nil)

// Open opens (creating unless opts.ReadOnly) the store in dir. A read-only
// open of a missing store, or of one nothing was ever committed to, returns
// an error wrapping graphdb.ErrNotFound that says to run `relay index`.
func Open(dir string, opts Options) (*Store, error) {
	s, err := open(dir, opts)
	if err != nil && opts.Rebuild && !opts.ReadOnly && errors.Is(err, ErrIncompatible) {
		if opts.Logger != nil {
			opts.Logger.Warn("graph store unusable; rebuilding it", "dir", dir, "err", err)
		}
		for _, name := range []string{dbName, dbName + "-wal", dbName + "-shm", snapshotName, "adjacency.out.bin", "adjacency.in.bin"} {
			if rmErr := os.Remove(filepath.Join(dir, name)); rmErr != nil && !errors.Is(rmErr, os.ErrNotExist) {
				return nil, fmt.Errorf("%w (and removing it failed: %v)", err, rmErr)
			}
		}
		return open(dir, opts)
	}
	return s, err
}

func open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open graph store: empty directory name")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: dir, readOnly: opts.ReadOnly, log: log}
	dbPath := filepath.Join(dir, dbName)
	if opts.ReadOnly {
		if st, err := os.Stat(dbPath); err != nil || st.Size() == 0 {
			return nil, fmt.Errorf("no index at %s; run `relay index` first: %w", dir, graphdb.ErrNotFound)
		}
	} else {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create graph store directory: %w", err)
		}
		// The index must never be committed or searched by rg/fd.
		gi := filepath.Join(dir, ".gitignore")
		if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
			if err := os.WriteFile(gi, []byte("*\n"), 0o644); err != nil {
				return nil, fmt.Errorf("create %s: %w", gi, err)
			}
		}
		wdb, err := sql.Open("sqlite", dsn(dbPath, false))
		if err != nil {
			return nil, fmt.Errorf("open graph store %s: %w", dir, err)
		}
		wdb.SetMaxOpenConns(1)
		wdb.SetMaxIdleConns(1)
		wdb.SetConnMaxLifetime(0)
		s.wdb = wdb
		if err := s.initSchema(); err != nil {
			wdb.Close()
			return nil, err
		}
	}
	rdb, err := sql.Open("sqlite", dsn(dbPath, true))
	if err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open graph store %s: %w", dir, err)
	}
	rdb.SetMaxOpenConns(16)
	rdb.SetMaxIdleConns(16)
	rdb.SetConnMaxLifetime(0)
	s.rdb = rdb
	if err := s.checkSchema(); err != nil {
		s.closeDBs()
		return nil, err
	}
	if err := s.stmts.prepare(rdb); err != nil {
		s.closeDBs()
		return nil, s.wrapOpenErr(err)
	}
	log.Debug("graph store open", "dir", dir, "read_only", opts.ReadOnly)
	return s, nil
}

// dsn builds the modernc.org/sqlite data source name. WAL lets readers run
// beside the writer and survives kill -9 at any point; synchronous=NORMAL
// skips the per-commit fsync of the WAL (a power loss may drop the last
// commit, never corrupt the graph). Writers start IMMEDIATE transactions so
// lock conflicts surface at Begin, not halfway through a write.
func dsn(path string, reader bool) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(OFF)")
	if reader {
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", "cache_size(-16000)")
	} else {
		// WAL mode goes through the shorthand key, which the driver applies
		// after the _pragma list.
		q.Add("_journal_mode", "WAL")
		q.Add("_pragma", "cache_size(-131072)")
		// A full index writes ~100 MB of WAL; truncate it after checkpoints.
		q.Add("_pragma", "journal_size_limit(16777216)")
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_txlock", "immediate")
	}
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// initSchema creates the tables on first open and stamps the file.
func (s *Store) initSchema() error {
	ctx := context.Background()
	var version int
	if err := s.wdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.wrapOpenErr(err)
	}
	if version != 0 {
		return nil // checkSchema judges it
	}
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return s.wrapOpenErr(err)
	}
	defer tx.Rollback()
	// Re-check under the write lock: another process may have won the race.
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.wrapOpenErr(err)
	}
	if version != 0 {
		return nil
	}
	var tables int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&tables); err != nil {
		return s.wrapOpenErr(err)
	}
	if tables != 0 {
		return fmt.Errorf("open graph store %s: %s holds tables relay did not create; run `relay index` to rebuild it: %w", s.dir, dbName, ErrIncompatible)
	}
	stmts := schema + fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d;", applicationID, schemaVersion)
	if _, err := tx.ExecContext(ctx, stmts); err != nil {
		return fmt.Errorf("create graph store schema: %w", err)
	}
	return tx.Commit()
}

// checkSchema refuses files that are not relay graphs or were written by an
// incompatible version.
func (s *Store) checkSchema() error {
	ctx := context.Background()
	var version, app int
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return s.wrapOpenErr(err)
	}
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA application_id").Scan(&app); err != nil {
		return s.wrapOpenErr(err)
	}
	switch {
	case version == 0 && app == 0:
		return fmt.Errorf("no index at %s; run `relay index` first: %w", s.dir, graphdb.ErrNotFound)
	case app != applicationID:
		return fmt.Errorf("open graph store %s: %s is not a relay graph database; run `relay index` to rebuild it: %w", s.dir, dbName, ErrIncompatible)
	case version != schemaVersion:
		return fmt.Errorf("open graph store %s: schema version %d is not the version %d this relay understands; run `relay index` to rebuild it: %w", s.dir, version, schemaVersion, ErrIncompatible)
	}
	if s.readOnly {
		// A store nothing was ever committed to (an index run that failed
		// before its first commit) holds no graph either.
		var commits int64
		if err := s.rdb.QueryRowContext(ctx, "SELECT coalesce(max(value), 0) FROM sys WHERE key IN ('commits', 'generation')").Scan(&commits); err != nil {
			return s.wrapOpenErr(err)
		}
		if commits == 0 {
			return fmt.Errorf("no index at %s; run `relay index` first: %w", s.dir, graphdb.ErrNotFound)
		}
	}
	return nil
}

// wrapOpenErr turns SQLite's "file is not a database" and friends into
// advice.
func (s *Store) wrapOpenErr(err error) error {
	msg := err.Error()
	if strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB") {
		return fmt.Errorf("open graph store %s: %s is corrupt (%v); run `relay index` to rebuild it: %w", s.dir, dbName, err, ErrIncompatible)
	}
	return fmt.Errorf("open graph store %s: %w", s.dir, err)
}

// Dir returns the store directory.
func (s *Store) Dir() string { return s.dir }

// Close rolls back an open transaction and releases the database files.
// Calls after Close return an error wrapping graphdb.ErrClosed.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.txMu.Lock()
	t := s.txOpen
	s.txMu.Unlock()
	if t != nil {
		_ = t.Rollback()
	}
	return s.closeDBs()
}

func (s *Store) closeDBs() error {
	s.stmts.close()
	var errs []error
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.wdb != nil {
		errs = append(errs, s.wdb.Close())
	}
	return errors.Join(errs...)
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return fmt.Errorf("graph store %s: %w", s.dir, graphdb.ErrClosed)
	}
	return nil
}

// edgeKindCode maps an edge kind to its stored small integer (1-based index
// in graphdb.EdgeKinds, which only ever grows at the end).
func edgeKindCode(k graphdb.EdgeKind) (int, bool) {
	for i, x := range graphdb.EdgeKinds {
		if x == k {
			return i + 1, true
		}
	}
	return 0, false
}

// reverse returns s with its bytes reversed (see nodes.rq).
func reverse(s string) []byte {
	b := make([]byte, len(s))
	for i := 0; i < len(s); i++ {
		b[len(s)-1-i] = s[i]
	}
	return b
}
