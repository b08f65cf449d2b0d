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
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sqlite "modernc.org/sqlite" // also registers the "sqlite" database/sql driver

	"github.com/relayhq/relay/graphdb"
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
	// not created, nothing in it is ever written (SQLite mode=ro, and
	// immutable=1 when the directory itself is not writable, as on a
	// read-only file system) and Begin fails.
	ReadOnly bool
	// Logger receives debug logs (open, commit, adjacency builds); nil
	// discards them.
	Logger *slog.Logger
	// Rebuild, for a writable open, replaces a graph that cannot be used
	// (damaged, another schema version, not a relay database) with an empty
	// one instead of failing. A damaged or foreign database file is moved
	// aside as graph.db.corrupt-<time> (see SetAside), one of another relay
	// version is removed; the rest of the directory (transcripts, feedback,
	// search index) is never touched. Rebuilt reports what was done. The
	// indexer sets it: the graph is derived data it is about to rewrite.
	Rebuild bool
	// Key is this user's secret store key (see the package doc, Ownership).
	// With a key, a closing writer puts an HMAC-SHA256 under it in the
	// seal, and every open believes only a store whose seal carries that
	// MAC for the very graph.db it opens: any other (one that came with the
	// repository, was copied in, or belongs to another user) is foreign —
	// an error wrapping ErrForeign, and with Rebuild moved aside and
	// rebuilt. Nil judges no ownership (tests, tools that index a tree they
	// made themselves).
	Key []byte
	// TrustForeign believes a store whatever its MAC (a store a team shares
	// on purpose); a writable open then seals it with Key when it closes,
	// which makes it this user's.
	TrustForeign bool
}

// ErrIncompatible is wrapped by Open's error when the store's files are not
// a graph this version of relay can read (another schema version, a
// database relay did not create). Damage wraps graphdb.ErrCorrupt instead.
var ErrIncompatible = errors.New("incompatible graph store")

// errOldFormat marks an ErrIncompatible that is only another relay
// version's graph: Rebuild deletes it rather than keeping a copy.
var errOldFormat = errors.New("another relay version's graph")

// ErrForeign is wrapped by Open's error when the store was not written by
// relay with Options.Key (see Options.Key): it is not believed.
var ErrForeign = errors.New("graph store not written by this user's relay")

// ErrLink is wrapped by Open's error when the store directory, or one of
// the files relay keeps in it, is a symbolic link (or not a regular
// file): relay reads and writes only a directory of its own, never
// through a link (a committed `.relay -> ..` would make it write into the
// parent).
var ErrLink = errors.New("graph store path is a link")

// ErrReadOnly is wrapped by a writable Open's error when the directory (or
// graph.db) cannot be written, e.g. on a read-only file system, and by a
// read-only Open's when the directory cannot be written and graph.db-wal
// holds changes only a writer can apply; the error is a *ReadOnlyError.
var ErrReadOnly = errors.New("graph store is read-only")

// ErrNoSpace is wrapped by a writable Open's error when SQLite reports an
// I/O error or a full database: the file system is likely full. Readers
// keep working meanwhile.
var ErrNoSpace = errors.New("its file system may be full")

// ReadOnlyError is a store directory relay needs to write and cannot. It
// wraps ErrReadOnly (and, for Pending, the reader's own error).
type ReadOnlyError struct {
	Dir string // the store directory
	Why string // why it is not writable (the writable open's case)
	// Pending: a read-only open found graph.db-wal holding changes not
	// yet in graph.db, which only a writer can apply.
	Pending bool
	Err     error // the reader's error (Pending)
}

func (e *ReadOnlyError) Error() string {
	if e.Pending {
		return fmt.Sprintf("%v (the directory %s is read-only and %s-wal holds changes not yet in %s)", e.Err, e.Dir, dbName, dbName)
	}
	return fmt.Sprintf("the index directory %s is read-only (%s); indexing writes the graph there: %v", e.Dir, e.Why, ErrReadOnly)
}

// Unwrap returns ErrReadOnly and, for Pending, the reader's error.
func (e *ReadOnlyError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrReadOnly, e.Err}
	}
	return []error{ErrReadOnly}
}

// DefaultDir is where a repository's embedded store lives: <repoRoot>/.relay.
func DefaultDir(repoRoot string) string { return filepath.Join(repoRoot, ".relay") }

// Store is the embedded graph store. It is safe for concurrent use: any
// number of goroutines (and processes) read while one writer holds a Tx.
type Store struct {
	dir      string
	readOnly bool
	log      *slog.Logger
	rebuilt  string // what Open with Rebuild did, if anything
	owner    ownership
	snap     snapTag // what adjacency snapshots of this store are tagged with
	// saveSnapshots: the directory is writable, so adjacency snapshots
	// built here are saved for the next process (readers do it too).
	saveSnapshots bool

	rdb *sql.DB // reader pool (query_only connections)
	wdb *sql.DB // the one writer connection; nil when read-only

	stmts readStmts

	txMu   sync.Mutex
	txOpen *tx // the open transaction, if any

	adjMu sync.Mutex
	adj   atomic.Pointer[adjacency] // last loaded adjacency; checked against the generation per use

	closed atomic.Bool
	// damage is set by the first failed check (see guard); every later
	// call returns it.
	damage atomic.Pointer[error]
}

var _ graphdb.Store = (*Store)(nil)
var _ graphdb.Traverser = (*Store)(nil)
var _ graphdb.MultiTraverser = (*Store)(nil)

// writable reports whether a path may be written; tests replace it to
// take the read-only paths without a read-only file system.
var writable = pathWritable

// Open opens (creating unless opts.ReadOnly) the store in dir. A read-only
// open of a missing store, or of one nothing was ever committed to, returns
// a *graphdb.NoIndexError (it wraps graphdb.ErrNotFound). A store whose
// graph.db fails its seal (see seal.go) returns a *ForeignError, one that
// fails SQLite's checks a *DamageError (graphdb.ErrCorrupt); a writable
// open of a read-only directory a *ReadOnlyError (ErrReadOnly). The
// messages state the problem; what to run is the caller's advice
// (internal/advice), since a bot and a command line user can do different
// things about it.
func Open(dir string, opts Options) (*Store, error) {
	s, err := open(dir, opts)
	if err == nil || !opts.Rebuild || opts.ReadOnly ||
		!errors.Is(err, ErrIncompatible) && !errors.Is(err, graphdb.ErrCorrupt) && !errors.Is(err, ErrForeign) {
		return s, err
	}
	why, label := dbName+" is not a relay graph database", "corrupt"
	if de := (*DamageError)(nil); errors.As(err, &de) {
		why = dbName + " was damaged (" + de.Detail + ")"
	} else if fe := (*ForeignError)(nil); errors.As(err, &fe) {
		why, label = dbName+" was not written by relay for this user on this machine ("+fe.Why+")", "foreign"
	} else if errors.Is(err, errOldFormat) {
		why = dbName + " was written by another version of relay"
	}
	var note string
	if errors.Is(err, errOldFormat) {
		if rmErr := removeGraph(dir); rmErr != nil {
			return nil, fmt.Errorf("%w (and removing it failed: %v)", err, rmErr)
		}
		note = why + "; removed it"
	} else {
		moved, mvErr := setAside(dir, label)
		if mvErr != nil {
			return nil, fmt.Errorf("%w (and moving it aside failed: %v)", err, mvErr)
		}
		note = why + "; moved it to " + moved
	}
	if opts.Logger != nil {
		opts.Logger.Warn("graph store unusable; rebuilding it", "dir", dir, "what", note)
	}
	s, err = open(dir, opts)
	if err != nil {
		return nil, err
	}
	s.rebuilt = note + " and started a new graph"
	return s, nil
}

// Rebuilt says what Open with Options.Rebuild did with an unusable graph
// ("" when the graph was usable): why it was unusable and where it went.
func (s *Store) Rebuilt() string { return s.rebuilt }

// graphFiles are the files of the graph proper, relative to the store
// directory: the database and its log, the seal and the adjacency cache.
var graphFiles = []string{dbName, dbName + "-wal", dbName + "-shm", sealName, snapshotName, "adjacency.out.bin", "adjacency.in.bin"}

// removeGraph deletes the graph's files.
func removeGraph(dir string) error {
	for _, name := range graphFiles {
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// SetAside moves a damaged graph out of the way so the next writable Open
// starts a new one: graph.db and its log become graph.db.corrupt-<UTC time>
// (+ -wal, -shm) in the same directory — kept, not deleted, for a look at
// what happened — and the seal and adjacency cache are removed. It takes
// the write lock (an error wrapping graphdb.ErrLocked while another
// process writes) and returns the new name of graph.db, "" when there was
// none. The rest of the directory is not touched.
func SetAside(dir string) (string, error) { return setAside(dir, "corrupt") }

// setAside is SetAside naming the kept copy graph.db.<label>-<time>.
func setAside(dir, label string) (string, error) {
	lock, err := acquireWriteLock(filepath.Join(dir, lockName))
	if err != nil {
		return "", fmt.Errorf("set aside the graph in %s: %w", dir, err)
	}
	defer lock.release()
	if _, err := os.Stat(filepath.Join(dir, dbName)); errors.Is(err, os.ErrNotExist) {
		return "", removeGraph(dir)
	}
	aside := dbName + "." + label + "-" + time.Now().UTC().Format("20060102T150405.000Z")
	for _, sfx := range []string{"", "-wal", "-shm"} {
		err := os.Rename(filepath.Join(dir, dbName+sfx), filepath.Join(dir, aside+sfx))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("set aside %s%s: %w", dbName, sfx, err)
		}
	}
	if err := removeGraph(dir); err != nil {
		return "", fmt.Errorf("set aside the graph in %s: %w", dir, err)
	}
	return aside, syncDir(dir)
}

func open(dir string, opts Options) (*Store, error) {
	if dir == "" {
		return nil, errors.New("open graph store: empty directory name")
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{dir: dir, readOnly: opts.ReadOnly, log: log, owner: ownership{key: opts.Key, trust: opts.TrustForeign}}
	dbPath := filepath.Join(dir, dbName)
	if err := checkNoLinks(dir); err != nil {
		return nil, err
	}
	mode := modeReader
	if opts.ReadOnly {
		if st, err := os.Stat(dbPath); err != nil || st.Size() == 0 {
			return nil, &graphdb.NoIndexError{Where: dir}
		}
		mode = readOnlyMode(dir)
	} else if err := s.openWriter(dbPath); err != nil {
		return nil, err
	}
	mode, err := s.openReaders(dbPath, mode)
	if err != nil {
		return nil, err
	}
	if s.snap.ino, err = fileIno(dbPath); err != nil {
		s.closeDBs()
		return nil, fmt.Errorf("open graph store %s: %w", dir, err)
	}
	s.snap.key = opts.Key
	s.saveSnapshots = mode != modeImmutable && writable(dir)
	if err := s.verify(); err != nil {
		s.closeDBs()
		return nil, err
	}
	if err := s.stmts.prepare(s.rdb); err != nil {
		s.closeDBs()
		return nil, s.wrapOpenErr(err)
	}
	log.Debug("graph store open", "dir", dir, "read_only", opts.ReadOnly, "mode", mode)
	return s, nil
}

// openReaders opens the reader pool in mode and checks the schema through
// it; it returns the mode the pool uses. A read-only open that fails for
// want of space — SQLite cannot create or grow the -shm index in a full
// file system (SQLITE_IOERR_SHMSIZE), though nothing else needs writing —
// is retried immutable when the log is empty: the graph at rest, read with
// no -shm, no locks and no journal, so that readers keep working on a full
// disk. (No writer can start there: Begin must write the open seal.)
func (s *Store) openReaders(dbPath, mode string) (string, error) {
	for {
		rdb, err := sql.Open("sqlite", dsn(dbPath, mode))
		if err != nil {
			s.closeDBs()
			return "", fmt.Errorf("open graph store %s: %w", s.dir, err)
		}
		rdb.SetMaxOpenConns(16)
		rdb.SetMaxIdleConns(16)
		rdb.SetConnMaxLifetime(0)
		s.rdb = rdb
		err = s.checkSchema()
		if err == nil {
			return mode, nil
		}
		s.closeDBs()
		s.rdb = nil
		if mode == modeReadOnly && isNoSpace(err) && !walFrames(s.dir) {
			s.log.Info("graph store: no space for SQLite's shared-memory index; reading the graph immutable", "dir", s.dir, "err", err)
			mode = modeImmutable
			continue
		}
		if mode == modeReadOnly && !writable(s.dir) && !errors.Is(err, graphdb.ErrNotFound) {
			err = &ReadOnlyError{Dir: s.dir, Pending: true, Err: err}
		}
		return "", err
	}
}

// isNoSpace reports whether err is SQLite's I/O error or "database or disk
// is full": what a reader gets when the file system has no room for the
// -shm file.
func isNoSpace(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteIOErr, sqliteFull:
			return true
		}
	}
	return errors.Is(err, syscall.ENOSPC)
}

// openWriter prepares dir for writing and opens the writer connection.
func (s *Store) openWriter(dbPath string) error {
	dir := s.dir
	readOnly := func(what string) error {
		return &ReadOnlyError{Dir: dir, Why: what}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		if errors.Is(err, syscall.EROFS) || errors.Is(err, os.ErrPermission) {
			return readOnly(err.Error())
		}
		return fmt.Errorf("create graph store directory: %w", err)
	}
	if !writable(dir) {
		return readOnly("cannot create files in it")
	}
	if _, err := os.Stat(dbPath); err == nil && !writable(dbPath) {
		return readOnly(dbName + " cannot be written")
	}
	// The index must never be committed or searched by rg/fd.
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, os.ErrNotExist) {
		if err := os.WriteFile(gi, []byte("*\n"), 0o644); err != nil {
			return fmt.Errorf("create %s: %w", gi, err)
		}
	}
	// A new graph starts without the files of any other: a seal, a log or
	// adjacency snapshots left in the directory (or committed to it) are
	// not this graph's.
	isNew := func() bool {
		st, err := os.Stat(dbPath)
		return errors.Is(err, os.ErrNotExist) || err == nil && st.Size() == 0
	}
	fresh := false
	if isNew() {
		// Under the write lock, so that two processes creating the store
		// at once do not clear each other's graph.db.
		if lock, err := acquireWriteLock(filepath.Join(dir, lockName)); err == nil {
			defer lock.release()
			if fresh = isNew(); fresh {
				if err := removeGraph(dir); err != nil {
					return fmt.Errorf("clear graph store directory %s: %w", dir, err)
				}
			}
		}
	}
	wdb, err := sql.Open("sqlite", dsn(dbPath, modeWriter))
	if err != nil {
		return fmt.Errorf("open graph store %s: %w", dir, err)
	}
	wdb.SetMaxOpenConns(1)
	wdb.SetMaxIdleConns(1)
	wdb.SetConnMaxLifetime(0)
	s.wdb = wdb
	if err := s.initSchema(); err != nil {
		wdb.Close()
		s.wdb = nil
		return err
	}
	if fresh {
		// This process made graph.db: it is relay's, open until the first
		// writer closes.
		if err := writeOpenSeal(dir, s.owner.key); err != nil {
			wdb.Close()
			s.wdb = nil
			return fmt.Errorf("seal the new graph store %s: %w", dir, err)
		}
	}
	return nil
}

// checkNoLinks refuses a store directory that is a symbolic link (or not
// a directory), and one where a file relay keeps there is a link: nothing
// is read or written through a link (see ErrLink).
func checkNoLinks(dir string) error {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("open graph store %s: %w", dir, err)
	case fi.Mode()&os.ModeSymlink != 0:
		target, _ := os.Readlink(dir)
		return fmt.Errorf("the graph store %s is a symbolic link (to %s); relay keeps its store only in a directory of its own, never behind a link: remove the link: %w", dir, target, ErrLink)
	case !fi.IsDir():
		return fmt.Errorf("the graph store %s is not a directory; remove it or choose another store directory: %w", dir, ErrLink)
	}
	for _, name := range append(slices.Clone(graphFiles), lockName, ".gitignore") {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			return fmt.Errorf("%s in the graph store is a symbolic link; relay reads and writes only files of its own there, never through a link: remove it: %w", p, ErrLink)
		}
	}
	return nil
}

// quickCheckMax is the largest graph.db a read-only open runs quick_check
// on when the store is not sealed (~30 ms at this size).
const quickCheckMax = 16 << 20

// verify checks graph.db before anything is answered from it: against its
// seal when it has one. Without one (a writer is at work, or one died
// before sealing) a writer runs the full check — integrity_check and every
// record's checksum, ~1 s for a std-sized graph, paid only after such an
// unclean end — and a reader SQLite's quick_check where that is cheap.
func (s *Store) verify() error {
	err := verifySeal(s.dir, s.owner)
	switch {
	case err == nil:
		return nil
	case errors.As(err, new(*ForeignError)):
		return err
	case !errors.Is(err, errNoSeal):
		return s.damaged(err.Error())
	}
	if !s.readOnly {
		if msg := s.fullCheck(context.Background()); msg != "" {
			return s.damaged(msg)
		}
		return nil
	}
	if st, err := os.Stat(filepath.Join(s.dir, dbName)); err != nil || st.Size() > quickCheckMax {
		return nil
	}
	if qc := s.quickCheck(); qc != "" {
		return s.damaged("quick_check: " + qc)
	}
	return nil
}

// Connection modes of dsn.
const (
	modeWriter    = "writer"    // the one writer connection
	modeReader    = "reader"    // the reader pool of a writable store
	modeReadOnly  = "read-only" // SQLite mode=ro: never writes the database
	modeImmutable = "immutable" // mode=ro&immutable=1: no locks, no -shm, no log
)

// readOnlyMode picks how a read-only store opens graph.db. In a writable
// directory mode=ro keeps WAL's concurrency with a writer (SQLite may
// create the -shm index it reads through). In a directory that cannot be
// written (a read-only mount) SQLite cannot create -shm or take locks, so
// a database whose log is empty opens immutable; one whose log holds
// frames still needs mode=ro and an existing -shm, which SQLite then reads
// without writing.
func readOnlyMode(dir string) string {
	if writable(dir) || walFrames(dir) {
		return modeReadOnly
	}
	return modeImmutable
}

// dsn builds the modernc.org/sqlite data source name. WAL lets readers run
// beside the writer and survives kill -9 at any point; synchronous=NORMAL
// skips the per-commit fsync of the WAL (a power loss may drop the last
// commit, never corrupt the graph). Writers start IMMEDIATE transactions so
// lock conflicts surface at Begin, not halfway through a write. The name
// starts with "file:", so SQLite applies the URI parameters mode and
// immutable.
func dsn(path, mode string) string {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(OFF)")
	switch mode {
	case modeWriter:
		// WAL mode goes through the shorthand key, which the driver applies
		// after the _pragma list.
		q.Add("_journal_mode", "WAL")
		q.Add("_pragma", "cache_size(-131072)")
		// A full index writes ~100 MB of WAL; truncate it after checkpoints.
		q.Add("_pragma", "journal_size_limit(16777216)")
		q.Add("_pragma", "temp_store(MEMORY)")
		q.Add("_txlock", "immediate")
	case modeImmutable:
		q.Add("immutable", "1")
		fallthrough
	case modeReadOnly:
		q.Add("mode", "ro")
		fallthrough
	default:
		q.Add("_pragma", "query_only(1)")
		q.Add("_pragma", "cache_size(-16000)")
		// Sorts and temporary indexes in memory: a query never needs
		// space on disk (which may be full).
		q.Add("_pragma", "temp_store(MEMORY)")
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
		return fmt.Errorf("open graph store %s: %s holds tables relay did not create: %w", s.dir, dbName, ErrIncompatible)
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
		return &graphdb.NoIndexError{Where: s.dir}
	case app != applicationID:
		return fmt.Errorf("open graph store %s: %s is not a relay graph database: %w", s.dir, dbName, ErrIncompatible)
	case version != schemaVersion:
		return fmt.Errorf("open graph store %s: schema version %d is not the version %d this relay understands: %w: %w", s.dir, version, schemaVersion, ErrIncompatible, errOldFormat)
	}
	if s.readOnly {
		// A store nothing was ever committed to (an index run that failed
		// before its first commit) holds no graph either.
		var commits int64
		if err := s.rdb.QueryRowContext(ctx, "SELECT coalesce(max(value), 0) FROM sys WHERE key IN ('commits', 'generation')").Scan(&commits); err != nil {
			return s.wrapOpenErr(err)
		}
		if commits == 0 {
			return &graphdb.NoIndexError{Where: s.dir}
		}
	}
	return nil
}

// wrapOpenErr turns SQLite's "file is not a database" and friends into
// the damage error (graphdb.ErrCorrupt) that says what to do.
func (s *Store) wrapOpenErr(err error) error {
	if isCorruption(err) {
		return s.damaged(fmt.Sprintf("%s: %v", dbName, err))
	}
	if !s.readOnly && isNoSpace(err) {
		return fmt.Errorf("open graph store %s: %w: %w", s.dir, err, ErrNoSpace)
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
	// The reader pool closes first so the seal's checkpoint can truncate
	// the log; closeDBs closing it again is a no-op.
	s.stmts.close()
	s.stmts.dynamic.Clear()
	s.stmts.prepared = nil
	var errs []error
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	s.seal()
	return errors.Join(append(errs, s.closeDBs())...)
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

// seal writes graph.seal for a writable store that has none (see seal.go):
// under the write lock, after checkpointing the log into graph.db and
// truncating it. It gives up quietly (the store stays unsealed, which is
// safe) when another writer holds the lock, a reader in another process
// keeps the checkpoint from finishing, or the store found damage.
func (s *Store) seal() {
	if s.wdb == nil || s.damage.Load() != nil {
		return
	}
	if sealedBy(s.dir, s.owner.key) {
		return // nothing was written since the last seal
	}
	lock, err := acquireWriteLock(filepath.Join(s.dir, lockName))
	if err != nil {
		s.log.Debug("graph store not sealed", "dir", s.dir, "err", err)
		return
	}
	defer lock.release()
	if sealedBy(s.dir, s.owner.key) {
		return
	}
	var busy, frames, done int
	err = s.wdb.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &done)
	if err == nil && (busy != 0 || walFrames(s.dir)) {
		err = errors.New("the log could not be checkpointed: another process is reading")
	}
	var st os.FileInfo
	if err == nil {
		st, err = os.Stat(filepath.Join(s.dir, dbName))
	}
	if err == nil {
		err = writeSeal(s.dir, st.Size(), s.owner.key)
	}
	if err != nil {
		s.log.Debug("graph store not sealed", "dir", s.dir, "err", err)
	}
}

// unseal replaces the seal with an open one before the first change of a
// transaction (the caller holds the write lock), durably, so no reader
// checks the changing file against checksums, and readers still see whose
// store it is.
func (s *Store) unseal() error {
	if raw, err := readSeal(s.dir); err == nil {
		if info, err := parseSeal(raw); err == nil && info.open && info.macOK(s.owner.key) {
			return nil
		}
	}
	if err := writeOpenSeal(s.dir, s.owner.key); err != nil {
		return fmt.Errorf("open %s: %w", sealName, err)
	}
	return syncDir(s.dir)
}

func (s *Store) checkOpen() error {
	if s.closed.Load() {
		return fmt.Errorf("graph store %s: %w", s.dir, graphdb.ErrClosed)
	}
	if d := s.damage.Load(); d != nil {
		return *d
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
