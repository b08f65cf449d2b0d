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
//
// Nodes and ids go through multi-row INSERT statements (one statement per
// up to 64 rows) to amortise the per-statement cost of database/sql and the
// SQLite VM; an owner's edges are one blob row (see edgeset.go).
type tx struct {
	s    *Store
	conn *sql.Conn
	lock *writeLock
	st   txStmts
	syms map[graphdb.NodeID]int64 // interned ids seen in this transaction
	next int64                    // the next sid to assign; 0 until read from syms
	args []any                    // reused argument buffer
	done bool
	err  error // set when a failed write left the transaction unusable
	// graph is set by ReplaceFile and DeleteFile: only then does Commit
	// bump the generation (a SetMeta-only commit keeps the adjacency).
	graph bool
}

type txStmts struct {
	fileID, fileIns, fileUpd, fileDel *sql.Stmt
	nodesDel, edgesetDel, edgesetIns  *sql.Stmt
	nodeOwner                         *sql.Stmt
	metaSet                           *sql.Stmt
	multi                             map[string]*sql.Stmt // batch statements by shape
	all                               []*sql.Stmt
}

func (t *txStmts) prepare(ctx context.Context, c *sql.Conn) error {
	t.multi = map[string]*sql.Stmt{}
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
		p(&t.fileIns, "INSERT INTO files(path, hash, language, module, size, errors, crc) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING fid"),
		p(&t.fileUpd, "UPDATE files SET hash = ?, language = ?, module = ?, size = ?, errors = ?, crc = ? WHERE fid = ?"),
		p(&t.fileDel, "DELETE FROM files WHERE fid = ?"),
		p(&t.nodesDel, "DELETE FROM nodes WHERE owner = ?"),
		p(&t.edgesetDel, "DELETE FROM edgesets WHERE fid = ?"),
		p(&t.edgesetIns, "INSERT INTO edgesets(fid, counts, data) VALUES (?, ?, ?)"),
		p(&t.nodeOwner, "SELECT f.path FROM nodes n JOIN files f ON f.fid = n.owner WHERE n.sid = ?"),
		p(&t.metaSet, "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"),
	)
}

// multiStmt returns (preparing once) the statement head + rows×tuple.
func (t *tx) multiStmt(ctx context.Context, head, tuple, tail string, rows int) (*sql.Stmt, error) {
	key := fmt.Sprintf("%s|%d", head, rows)
	if st, ok := t.st.multi[key]; ok {
		return st, nil
	}
	q := make([]byte, 0, len(head)+rows*(len(tuple)+1)+len(tail))
	q = append(q, head...)
	for i := range rows {
		if i > 0 {
			q = append(q, ',')
		}
		q = append(q, tuple...)
	}
	q = append(q, tail...)
	st, err := t.conn.PrepareContext(ctx, string(q))
	if err != nil {
		return nil, err
	}
	t.st.multi[key] = st
	t.st.all = append(t.st.all, st)
	return st, nil
}

// chunk returns how many of n rows the next batch statement takes: a power
// of two up to max, so a handful of statement shapes cover every size.
func chunk(n, max int) int {
	c := max
	for c > n {
		c >>= 1
	}
	return c
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
	if err := s.unseal(); err != nil {
		lock.release()
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
	if t.err != nil {
		return fmt.Errorf("transaction failed earlier and can only be rolled back: %w", t.err)
	}
	return nil
}

// fail records err as the reason the transaction can no longer commit. A
// write that fails halfway (an id owned by another file, a cancelled
// context, a full disk) leaves the owner half-replaced, so the only way out
// is Rollback.
func (t *tx) fail(err error) error {
	t.err = err
	return err
}

// ReplaceFile atomically swaps everything owned by f.Path for nodes and
// edges. Invalid input is rejected before anything is written; any later
// failure makes the transaction unusable except for Rollback.
func (t *tx) ReplaceFile(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	if err := t.usable(); err != nil {
		return err
	}
	if err := graphdb.ValidateReplace(f, nodes, edges); err != nil {
		return err
	}
	t.graph = true
	if err := t.replace(ctx, f, nodes, edges); err != nil {
		return t.fail(err)
	}
	return nil
}

func (t *tx) replace(ctx context.Context, f graphdb.FileRecord, nodes []graphdb.Node, edges []graphdb.Edge) error {
	var errs any
	var errText string
	if len(f.Errors) > 0 {
		b, err := json.Marshal(f.Errors)
		if err != nil {
			return fmt.Errorf("replace file %s: encode errors: %w", f.Path, err)
		}
		errText = string(b)
		errs = errText
	}
	sum := fileSum(f.Path, f.Hash, f.Language, f.Module, f.Size, errText)
	var fid int64
	err := t.st.fileID.QueryRowContext(ctx, f.Path).Scan(&fid)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := t.st.fileIns.QueryRowContext(ctx, f.Path, f.Hash, f.Language, f.Module, f.Size, errs, sum).Scan(&fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
	case err != nil:
		return fmt.Errorf("replace file %s: %w", f.Path, err)
	default:
		if err := t.deleteOwned(ctx, fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
		if _, err := t.st.fileUpd.ExecContext(ctx, f.Hash, f.Language, f.Module, f.Size, errs, sum, fid); err != nil {
			return fmt.Errorf("replace file %s: %w", f.Path, err)
		}
	}
	if err := t.internAll(ctx, nodes, edges); err != nil {
		return fmt.Errorf("replace file %s: %w", f.Path, err)
	}
	if err := t.insertNodes(ctx, f.Path, fid, nodes); err != nil {
		return err
	}
	if err := t.insertEdges(ctx, f.Path, fid, edges); err != nil {
		return fmt.Errorf("replace file %s: %w", f.Path, err)
	}
	return nil
}

const nodeTuple = "(?,?,?,?,?,?,?,?,?,?)"

func (t *tx) insertNodes(ctx context.Context, path string, fid int64, nodes []graphdb.Node) error {
	for len(nodes) > 0 {
		n := chunk(len(nodes), 64)
		st, err := t.multiStmt(ctx, `INSERT OR FAIL INTO nodes(sid, owner, kind, name, qname, rq, loc, file, start_line, rest) VALUES `, nodeTuple, "", n)
		if err != nil {
			return fmt.Errorf("replace file %s: %w", path, err)
		}
		args := t.args[:0]
		for _, nd := range nodes[:n] {
			args = append(args, t.syms[nd.ID], fid, string(nd.Kind), nd.Name, nd.QName, reverse(nd.QName),
				nd.Loc, nd.File, nd.StartLine, encodeRest(nd))
		}
		t.args = args
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return t.nodeConflict(ctx, path, nodes[:n], err)
		}
		nodes = nodes[n:]
	}
	return nil
}

// nodeConflict explains a failed node insert: almost always an id that
// another owner already declared.
func (t *tx) nodeConflict(ctx context.Context, path string, batch []graphdb.Node, insErr error) error {
	for _, n := range batch {
		var owner string
		if err := t.st.nodeOwner.QueryRowContext(ctx, t.syms[n.ID]).Scan(&owner); err == nil {
			return fmt.Errorf("replace file %s: node id %q is already owned by %s; node ids must be unique across files", path, n.ID, owner)
		}
	}
	return fmt.Errorf("replace file %s: insert nodes: %w", path, insErr)
}

func (t *tx) insertEdges(ctx context.Context, path string, fid int64, edges []graphdb.Edge) error {
	if len(edges) == 0 {
		return nil
	}
	data, counts := encodeEdges(path, edges, func(id graphdb.NodeID) int64 { return t.syms[id] })
	if _, err := t.st.edgesetIns.ExecContext(ctx, fid, counts, data); err != nil {
		return fmt.Errorf("insert edges: %w", err)
	}
	return nil
}

// internAll makes sure every id the nodes and edges mention has a sid in
// t.syms: first a batched lookup, then a batched insert of the new ones.
func (t *tx) internAll(ctx context.Context, nodes []graphdb.Node, edges []graphdb.Edge) error {
	var missing []graphdb.NodeID
	want := func(id graphdb.NodeID) {
		if _, ok := t.syms[id]; !ok {
			t.syms[id] = 0 // placeholder; filled below
			missing = append(missing, id)
		}
	}
	for _, n := range nodes {
		want(n.ID)
	}
	for _, e := range edges {
		want(e.From)
		want(e.To)
	}
	if len(missing) == 0 {
		return nil
	}
	err := t.internMissing(ctx, missing)
	if err != nil {
		for _, id := range missing {
			if t.syms[id] == 0 {
				delete(t.syms, id)
			}
		}
	}
	return err
}

func (t *tx) internMissing(ctx context.Context, missing []graphdb.NodeID) error {
	scan := func(rows *sql.Rows) error {
		defer rows.Close()
		for rows.Next() {
			var sid int64
			var id string
			if err := rows.Scan(&sid, &id); err != nil {
				return err
			}
			t.syms[graphdb.NodeID(id)] = sid
		}
		return rows.Err()
	}
	// Look up the ids stored by earlier runs.
	for rest := missing; len(rest) > 0; {
		n := min(len(rest), 128)
		width := 1
		for width < n {
			width <<= 1
		}
		st, err := t.multiStmt(ctx, "SELECT sid, id FROM syms WHERE id IN (", "?", ")", width)
		if err != nil {
			return err
		}
		args := t.args[:0]
		for _, id := range rest[:n] {
			args = append(args, string(id))
		}
		for len(args) < width { // pad with a repeat: one statement per batch
			args = append(args, string(rest[n-1]))
		}
		t.args = args
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return fmt.Errorf("look up ids: %w", err)
		}
		if err := scan(rows); err != nil {
			return fmt.Errorf("look up ids: %w", err)
		}
		rest = rest[n:]
	}
	// Insert the new ones with the next sids: syms rows are never deleted,
	// so max(sid)+1 never reuses one, and knowing the sid before the insert
	// lets the row carry its checksum.
	var fresh []graphdb.NodeID
	for _, id := range missing {
		if t.syms[id] == 0 {
			fresh = append(fresh, id)
		}
	}
	if len(fresh) > 0 && t.next == 0 {
		if err := t.conn.QueryRowContext(ctx, "SELECT coalesce(max(sid), 0) + 1 FROM syms").Scan(&t.next); err != nil {
			return fmt.Errorf("intern ids: %w", err)
		}
	}
	for len(fresh) > 0 {
		n := chunk(len(fresh), 128)
		st, err := t.multiStmt(ctx, "INSERT OR FAIL INTO syms(sid, id, crc) VALUES ", "(?,?,?)", "", n)
		if err != nil {
			return err
		}
		args := t.args[:0]
		for i, id := range fresh[:n] {
			sid := t.next + int64(i)
			args = append(args, sid, string(id), symSum(sid, string(id)))
		}
		t.args = args
		if _, err := st.ExecContext(ctx, args...); err != nil {
			return fmt.Errorf("intern ids: %w", err)
		}
		for i, id := range fresh[:n] {
			t.syms[id] = t.next + int64(i)
		}
		t.next += int64(n)
		fresh = fresh[n:]
	}
	return nil
}

func (t *tx) deleteOwned(ctx context.Context, fid int64) error {
	if _, err := t.st.nodesDel.ExecContext(ctx, fid); err != nil {
		return err
	}
	_, err := t.st.edgesetDel.ExecContext(ctx, fid)
	return err
}

// DeleteFile removes an owner and everything it owns; a missing owner is
// not an error.
func (t *tx) DeleteFile(ctx context.Context, path string) error {
	if err := t.usable(); err != nil {
		return err
	}
	var fid int64
	err := t.st.fileID.QueryRowContext(ctx, path).Scan(&fid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err == nil {
		t.graph = true
		err = t.deleteOwned(ctx, fid)
	}
	if err == nil {
		_, err = t.st.fileDel.ExecContext(ctx, fid)
	}
	if err != nil {
		return t.fail(fmt.Errorf("delete file %s: %w", path, err))
	}
	return nil
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
		return t.fail(fmt.Errorf("set meta %q: %w", key, err))
	}
	return nil
}

// Commit makes every write visible at once and, when the graph changed,
// bumps the generation that tells readers their adjacency is stale. A
// transaction whose earlier write failed is rolled back instead.
func (t *tx) Commit() error {
	if t.done {
		return errors.New("commit: transaction already committed or rolled back")
	}
	if err := t.usable(); err != nil {
		return errors.Join(fmt.Errorf("commit: %w", err), t.Rollback())
	}
	ctx := context.Background()
	_, err := t.conn.ExecContext(ctx, "INSERT INTO sys(key, value) VALUES ('commits', 1) ON CONFLICT(key) DO UPDATE SET value = value + 1")
	if err == nil && t.graph {
		_, err = t.conn.ExecContext(ctx, "UPDATE sys SET value = value + 1 WHERE key = 'generation'")
	}
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
	var err error
	if !t.s.closed.Load() || t.s.txOpen == t {
		if _, rerr := t.conn.ExecContext(context.Background(), "ROLLBACK"); rerr != nil {
			err = fmt.Errorf("rollback: %w", rerr)
		}
	}
	return errors.Join(err, t.finish())
}
