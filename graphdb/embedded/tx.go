package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/relayhq/relay/graphdb"
)

// tx is the one write transaction of a Store: a dedicated connection inside
// BEGIN IMMEDIATE, holding the cross-process write lock.
type tx struct {
	s    *Store
	conn *sql.Conn
	lock *writeLock
	st   txStmts
	syms map[graphdb.NodeID]int64 // interned ids seen in this transaction
	done bool
	err  error // set when the transaction can no longer commit
}

type txStmts struct {
	fileID, fileIns, fileUpd, fileDel *sql.Stmt
	nodesDel, edgesDel               *sql.Stmt
	symSel, symIns                   *sql.Stmt
	nodeIns, nodeOwner               *sql.Stmt
	edgeIns                          *sql.Stmt
	metaSet                          *sql.Stmt
	all                              []*sql.Stmt
}

func (t *txStmts) prepare(ctx context.Context, c *sql.Conn) error {
	p := func(dst **sql.Stmt, q string) error {
		st, err := c.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("prepare %q: %w", q, err)
		}
		*dst = st
		t.all = append(t.all, st)
		return nil
	}
	return errors.Join(
		p(&t.fileID, "SELECT fid FROM files WHERE path = ?"),
		p(&t.fileIns, "INSERT INTO files(path, hash, language, module, size, errors) VALUES (?, ?, ?, ?, ?, ?) RETURNING fid"),
		p(&t.fileUpd, "UPDATE files SET hash = ?, language = ?, module = ?, size = ?, errors = ? WHERE fid = ?"),
		p(&t.fileDel, "DELETE FROM files WHERE fid = ?"),
		p(&t.nodesDel, "DELETE FROM nodes WHERE owner = ?"),
		p(&t.edgesDel, "DELETE FROM edges WHERE owner = ?"),
		p(&t.symSel, "SELECT sid FROM syms WHERE id = ?"),
		p(&t.symIns, "INSERT INTO syms(id) VALUES (?) RETURNING sid"),
		p(&t.nodeIns, `INSERT INTO nodes(sid, owner, kind, sub_kind, name, qname, rq, loc, language, file,
			start_line, end_line, signature, doc, flags, attrs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
		p(&t.nodeOwner, "SELECT f.path FROM nodes n JOIN files f ON f.fid = n.owner WHERE n.sid = ?"),
		p(&t.edgeIns, "INSERT INTO edges(src, dst, kind, file, line, owner) VALUES (?, ?, ?, ?, ?, ?)"),
		p(&t.metaSet, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
	)
}

func (t *txStmts) close() {
	for _, st := range t.all {
		st.Close()
	}
}

// Begin starts the store's write transaction. It fails with an error
// wrapping graphdb.ErrLocked when another process (or another Tx of this
// Store) is writing.
func (s *Store) Begin(ctx context.Context) (graphdb.Tx, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if s.readOnly {
		return nil, fmt.Errorf("begin: graph store %s is open read-only", s.dir)
	}
	s.txMu.Lock()
	defer s.txMu.Unlock()
	if s.txOpen != nil {
		return nil, fmt.Errorf("begin: a transaction is already open on %s: %w", s.dir, graphdb.ErrLocked)
	}
	lock, err := acquireWriteLock(filepath.Join(s.dir, lockName))
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	t := &tx{s: s, lock: lock, syms: map[graphdb.NodeID]int64{}}
	if err := t.start(ctx); err != nil {
		t.finish()
		return nil, fmt.Errorf("begin: %w", err)
	}
	s.txOpen = t
	return t, nil
}

func (t *tx) start(ctx context.Context) error {
	c, err := t.s.wdb.Conn(ctx)
	if err != nil {
		return err
	}
	t.conn = c
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	return t.st.prepare(ctx, c)
}

// finish releases the statements, the connection and the lock.
func (t *tx) finish() error {
	t.done = true
	t.st.close()
	var errs []error
	if t.conn != nil {
		errs = append(errs, t.conn.Close())
	}
	errs = append(errs, t.lock.release())
	t.s.txMu.Lock()
	if t.s.txOpen == t {
		t.s.txOpen = nil
	}
	t.s.txMu.Unlock()
	return errors.Join(errs...)
}

func (t *tx) usable() error {
	if t.done {
		return errors.New("transaction already committed or rolled back")
	}
	if t.s.closed.Load() {
		return fmt.Errorf("graph store %s: %w", t.s.dir, graphdb.ErrClosed)
	}
	return nil
}

// ReplaceFile atomically swaps everything owned by f.Path for nodes and
// edges. On error the transaction is as it was before the call.
func (t *tx) ReplaceFile(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	if err := t.usable(); err != nil {
		return err
	}
	if err := validate(f, nodes, edges); err != nil {
		return err
	}
	return t.savepoint(ctx, func(added *[]graphdb.NodeID) error {
		return t.replace(ctx, f, nodes, edges, added)
	})
}

// savepoint runs fn so that a failure undoes its writes and its interned ids.
func (t *tx) savepoint(ctx context.Context, fn func(added *[]graphdb.NodeID) error) error {
	if _, err := t.conn.ExecContext(ctx, "SAVEPOINT rf"); err != nil {
		return fmt.Errorf("savepoint: %w", err)
	}
	var added []graphdb.NodeID
	if err := fn(&added); err != nil {
		for _, id := range added {
			delete(t.syms, id)
		}
		if _, rerr := t.conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO rf; RELEASE rf"); rerr != nil {
			t.err = rerr
			return errors.Join(err, fmt.Errorf("undo partial write (roll the transaction back): %w", rerr))
		}
		return err
	}
	if _, err := t.conn.ExecContext(ctx, "RELEASE rf"); err != nil {
		return fmt.Errorf("release savepoint: %w", err)
	}
	return nil
}

func validate(f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	if f.Path == "" {
		return errors.New("replace file: empty path in FileRecord")
	}
	for i, n := range nodes {
		if n.ID == "" {
			return fmt.Errorf("replace file %s: node %d (%q) has an empty id", f.Path, i, n.QName)
		}
		if !validNodeKind(n.Kind) {
			return fmt.Errorf("replace file %s: node %s has unknown kind %q (want one of %v)", f.Path, n.ID, n.Kind, graphdb.NodeKinds)
		}
	}
	for i, e := range edges {
		if e.From == "" || e.To == "" {
			return fmt.Errorf("replace file %s: edge %d (%s %q → %q) has an empty end", f.Path, i, e.Kind, e.From, e.To)
		}
		if _, ok := edgeKindCode(e.Kind); !ok {
			return fmt.Errorf("replace file %s: edge %s → %s has unknown kind %q (want one of %v)", f.Path, e.From, e.To, e.Kind, graphdb.EdgeKinds)
		}
	}
	return nil
}

func (t *tx) replace(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge, added *[]graphdb.NodeID) error {
	var errs any
	if len(f.Errors) > 0 {
		b, err := json.Marshal(f.Errors)
		if err != nil {
			return fmt.Errorf("replace file %s: encode errors: %w", f.Path, err)
		}
		errs = string(b)
	}
	var fid int64
	err := t.st.fileID.QueryRowContext(ctx, f.Path).Scan(&fid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := t.st.fileIns.QueryRowContext(ctx, f.Path, f.Hash, f.Language, f.Module, f.Size, errs).Scan(&fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
	case err != nil:
		return fmt.Errorf("replace file %s: %w", f.Path, err)
	default:
		if err := t.deleteOwned(ctx, fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
		if _, err := t.st.fileUpd.ExecContext(ctx, f.Hash, f.Language, f.Module, f.Size, errs, fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
	}
	for _, n := range nodes {
		sid, err := t.intern(ctx, n.ID, added)
		if err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
		var attrs any
		if len(n.Attrs) > 0 {
			b, err := json.Marshal(n.Attrs)
			if err != nil {
				return fmt.Errorf("replace file %s: encode attrs of %s: %w", f.Path, n.ID, err)
			}
			attrs = string(b)
		}
		if _, err := t.st.nodeIns.ExecContext(ctx, sid, fid, string(n.Kind), n.SubKind, n.Name, n.QName, reverse(n.QName),
			n.Loc, n.Language, n.File, n.StartLine, n.EndLine, n.Signature, n.Doc, nodeFlags(n), attrs); err != nil {
			return t.nodeConflict(ctx, f.Path, n.ID, sid, err)
		}
	}
	for _, e := range edges {
		src, err := t.intern(ctx, e.From, added)
		if err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
		dst, err := t.intern(ctx, e.To, added)
		if err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
		code, _ := edgeKindCode(e.Kind)
		if _, err := t.st.edgeIns.ExecContext(ctx, src, dst, code, e.File, e.Line, fid); err != nil {
			return fmt.Errorf("replace file %s: edge %s → %s: %w", f.Path, e.From, e.To, err)
		}
	}
	return nil
}

// nodeConflict explains a failed node insert: almost always an id that
// another owner (or this file, twice) already declared.
func (t *tx) nodeConflict(ctx context.Context, path string, id graphdb.NodeID, sid int64, insErr error) error {
	var owner string
	if err := t.st.nodeOwner.QueryRowContext(ctx, sid).Scan(&owner); err != nil {
		return fmt.Errorf("replace file %s: node %s: %w", path, id, insErr)
	}
	if owner == path {
		return fmt.Errorf("replace file %s: node id %q appears twice in this file; node ids must be unique", path, id)
	}
	return fmt.Errorf("replace file %s: node id %q is already owned by %s; node ids must be unique across files", path, id, owner)
}

func nodeFlags(n graphdb.Node) int {
	f := 0
	if n.Exported {
		f |= flagExported
	}
	if n.Test {
		f |= flagTest
	}
	if n.Generated {
		f |= flagGenerated
	}
	if n.Testdata {
		f |= flagTestdata
	}
	return f
}

// intern returns the integer id of a node id, creating it when new.
func (t *tx) intern(ctx context.Context, id graphdb.NodeID, added *[]graphdb.NodeID) (int64, error) {
	if sid, ok := t.syms[id]; ok {
		return sid, nil
	}
	var sid int64
	err := t.st.symSel.QueryRowContext(ctx, string(id)).Scan(&sid)
	if errors.Is(err, sql.ErrNoRows) {
		err = t.st.symIns.QueryRowContext(ctx, string(id)).Scan(&sid)
		*added = append(*added, id)
	}
	if err != nil {
		return 0, fmt.Errorf("intern %s: %w", id, err)
	}
	t.syms[id] = sid
	return sid, nil
}

func (t *tx) deleteOwned(ctx context.Context, fid int64) error {
	if _, err := t.st.nodesDel.ExecContext(ctx, fid); err != nil {
		return err
	}
	_, err := t.st.edgesDel.ExecContext(ctx, fid)
	return err
}

// DeleteFile removes an owner and everything it owns; a missing owner is
// not an error.
func (t *tx) DeleteFile(ctx context.Context, path string) error {
	if err := t.usable(); err != nil {
		return err
	}
	return t.savepoint(ctx, func(*[]graphdb.NodeID) error {
		var fid int64
		err := t.st.fileID.QueryRowContext(ctx, path).Scan(&fid)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err == nil {
			err = t.deleteOwned(ctx, fid)
		}
		if err == nil {
			_, err = t.st.fileDel.ExecContext(ctx, fid)
		}
		if err != nil {
			return fmt.Errorf("delete file %s: %w", path, err)
		}
		return nil
	})
}

// SetMeta stores a small string value.
func (t *tx) SetMeta(ctx context.Context, key, value string) error {
	if err := t.usable(); err != nil {
		return err
	}
	if key == "" {
		return errors.New("set meta: empty key")
	}
	if _, err := t.st.metaSet.ExecContext(ctx, key, value); err != nil {
		return fmt.Errorf("set meta %q: %w", key, err)
	}
	return nil
}

// Commit makes every write visible at once and bumps the generation that
// tells readers their adjacency is stale.
func (t *tx) Commit() error {
	if err := t.usable(); err != nil {
		return err
	}
	if t.err != nil {
		err := fmt.Errorf("commit: transaction is unusable after an earlier failure: %w", t.err)
		return errors.Join(err, t.Rollback())
	}
	ctx := context.Background()
	_, err := t.conn.ExecContext(ctx, "UPDATE sys SET value = value + 1 WHERE key = 'generation'")
	if err == nil {
		_, err = t.conn.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		_, _ = t.conn.ExecContext(ctx, "ROLLBACK")
		return errors.Join(fmt.Errorf("commit: %w", err), t.finish())
	}
	t.s.log.Debug("graph commit", "dir", t.s.dir, "ids", len(t.syms))
	return t.finish()
}

// Rollback discards every write of the transaction.
func (t *tx) Rollback() error {
	if t.done {
		return nil
	}
	_, err := t.conn.ExecContext(context.Background(), "ROLLBACK")
	if err != nil {
		err = fmt.Errorf("rollback: %w", err)
	}
	return errors.Join(err, t.finish())
}
