package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/relayhq/relay/graphdb"
)

// nodeCols are the columns scanNode reads, in order; s is syms, n is nodes.
const nodeCols = `s.id, n.kind, n.name, n.qname, n.loc, n.file, n.start_line, n.rest`

// readStmts are the reader pool's prepared statements.
type readStmts struct {
	node     *sql.Stmt
	meta     *sql.Stmt
	gen      *sql.Stmt
	sid      *sql.Stmt
	dynamic  sync.Map // SQL text → *sql.Stmt for FindSymbols shapes
	prepared []*sql.Stmt
}

func (r *readStmts) prepare(db *sql.DB) error {
	p := func(dst **sql.Stmt, q string) error {
		st, err := db.Prepare(q)
		if err != nil {
			return err
		}
		*dst = st
		r.prepared = append(r.prepared, st)
		return nil
	}
	return errors.Join(
		p(&r.node, "SELECT "+nodeCols+" FROM syms s JOIN nodes n ON n.sid = s.sid WHERE s.id = ?"),
		p(&r.meta, "SELECT value FROM meta WHERE key = ?"),
		p(&r.gen, "SELECT value FROM sys WHERE key = 'generation'"),
		p(&r.sid, "SELECT sid, crc FROM syms WHERE id = ?"),
	)
}

func (r *readStmts) close() {
	for _, st := range r.prepared {
		st.Close()
	}
	r.dynamic.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
}

// rowScanner is *sql.Row or *sql.Rows.
type rowScanner interface{ Scan(dest ...any) error }

func scanNode(r rowScanner) (graphdb.Node, error) { return scanNodeWith(r) }

// scanNodeWith scans nodeCols preceded by the given leading columns.
func scanNodeWith(r rowScanner, lead ...any) (graphdb.Node, error) {
	var n graphdb.Node
	var rest []byte
	dest := append(lead, &n.ID, &n.Kind, &n.Name, &n.QName, &n.Loc, &n.File, &n.StartLine, &rest)
	if err := r.Scan(dest...); err != nil {
		return graphdb.Node{}, err
	}
	if err := decodeRest(rest, &n); err != nil {
		return graphdb.Node{}, fmt.Errorf("node %s: %w", n.ID, err)
	}
	return n, nil
}

// Node returns the node with the given id, or an error wrapping
// graphdb.ErrNotFound.
func (s *Store) Node(ctx context.Context, id graphdb.NodeID) (graphdb.Node, error) {
	if err := s.checkOpen(); err != nil {
		return graphdb.Node{}, err
	}
	n, err := scanNode(s.stmts.node.QueryRowContext(ctx, string(id)))
	if errors.Is(err, sql.ErrNoRows) {
		return graphdb.Node{}, fmt.Errorf("node %q: %w", id, graphdb.ErrNotFound)
	}
	if err == nil && n.ID != id {
		err = fmt.Errorf("lookup returned %q: %w", n.ID, errRecord)
	}
	if err != nil {
		return graphdb.Node{}, s.guard(fmt.Errorf("node %q: %w", id, err))
	}
	return n, nil
}

// Neighbors returns the edges of kind at id in direction dir, sorted by
// (File, Line, From, To), hiding edges whose far end is not stored. It is
// answered by the adjacency of the latest generation.
func (s *Store) Neighbors(ctx context.Context, id graphdb.NodeID, kind graphdb.EdgeKind, dir graphdb.Direction, limit int) ([]graphdb.Edge, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	code, ok := edgeKindCode(kind)
	if !ok {
		return nil, fmt.Errorf("neighbors of %s: unknown edge kind %q", id, kind)
	}
	d := dirOut
	if dir == graphdb.Inbound {
		d = dirIn
	}
	// No read transaction: the adjacency is an immutable snapshot of one
	// generation, and sids and their ids never change once assigned.
	a, err := s.current(ctx, d)
	if err != nil {
		return nil, s.guard(fmt.Errorf("neighbors of %s: %w", id, err))
	}
	sid, ok, err := s.lookupSid(ctx, nil, id)
	if err != nil || !ok {
		return nil, s.guard(err)
	}
	var ents []ent
	var fars []uint32
	for _, e := range a.segment(d, sid, uint32(code)) {
		if !a.has(e.far) {
			continue
		}
		ents = append(ents, e)
		fars = append(fars, e.far)
		if limit > 0 && len(ents) >= limit {
			break
		}
	}
	if len(ents) == 0 {
		return nil, nil
	}
	ids, err := s.idsBySid(ctx, nil, fars)
	if err != nil {
		return nil, s.guard(fmt.Errorf("neighbors of %s: %w", id, err))
	}
	out := make([]graphdb.Edge, len(ents))
	for i, e := range ents {
		edge := graphdb.Edge{Kind: kind, File: a.files[e.fileRank()], Line: int(e.line)}
		if d == dirIn {
			edge.From, edge.To = ids[e.far], id
		} else {
			edge.From, edge.To = id, ids[e.far]
		}
		out[i] = edge
	}
	return out, nil
}

// lookupSid returns the interned id of id, if anything ever mentioned it,
// inside q when it is not nil.
// Sids are never reused, so the answer holds for every generation.
func (s *Store) lookupSid(ctx context.Context, q *sql.Tx, id graphdb.NodeID) (uint32, bool, error) {
	st := s.stmts.sid
	if q != nil {
		st = q.StmtContext(ctx, st)
	}
	var sid, sum int64
	err := st.QueryRowContext(ctx, string(id)).Scan(&sid, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, false, nil
	}
	if err == nil && (sum != symSum(sid, string(id)) || sid < 1 || sid >= 1<<32-1) {
		err = fmt.Errorf("id record: %w", errRecord)
	}
	if err != nil {
		return 0, false, fmt.Errorf("look up %s: %w", id, err)
	}
	return uint32(sid), true, nil
}

// FindSymbols returns the nodes matching q sorted by (File, StartLine,
// QName). Suffix and exact-qname matches use the reversed-qname index.
func (s *Store) FindSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	if q.Empty() {
		return nil, nil
	}
	out, err := s.findSymbols(ctx, q)
	if err != nil {
		return nil, s.guard(fmt.Errorf("find symbols: %w", err))
	}
	return out, nil
}

func (s *Store) findSymbols(ctx context.Context, q graphdb.SymbolQuery) ([]graphdb.Node, error) {
	query, args := symbolSQL(q)
	st, err := s.dynamicStmt(ctx, query)
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphdb.Node
	for rows.Next() {
		n, err := scanNode(rows)
		if err != nil {
			return nil, err
		}
		if !matchesQuery(q, n) {
			return nil, fmt.Errorf("index entry led to %s, which does not match the query: %w", n.ID, errRecord)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (s *Store) dynamicStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if v, ok := s.stmts.dynamic.Load(query); ok {
		return v.(*sql.Stmt), nil
	}
	st, err := s.rdb.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if v, loaded := s.stmts.dynamic.LoadOrStore(query, st); loaded {
		st.Close()
		return v.(*sql.Stmt), nil
	}
	return st, nil
}

// symbolSQL builds the query for q; the SQL text depends only on which
// fields are set (and how many kinds), so statements are cached by text.
func symbolSQL(q graphdb.SymbolQuery) (string, []any) {
	var where []string
	var args []any
	if q.ID != "" {
		where = append(where, "s.id = ?")
		args = append(args, string(q.ID))
	}
	if q.QName != "" {
		where = append(where, "n.rq = ?")
		args = append(args, reverse(q.QName))
	}
	if q.Suffix != "" {
		// qname == s, or qname ends with "."+s or "/"+s: with r = reverse(s),
		// rq == r or rq starts with r+"." or r+"/" — two prefix ranges.
		r := reverse(q.Suffix)
		dot := append(append([]byte{}, r...), '.')
		slash := append(append([]byte{}, r...), '/')
		where = append(where, "(n.rq = ? OR (n.rq >= ? AND n.rq < ?) OR (n.rq >= ? AND n.rq < ?))")
		args = append(args, r, dot, prefixEnd(dot), slash, prefixEnd(slash))
	}
	if q.Name != "" {
		where = append(where, "n.name = ?")
		args = append(args, q.Name)
	}
	if q.Loc != "" {
		where = append(where, "n.loc = ?")
		args = append(args, q.Loc)
	}
	if q.File != "" {
		where = append(where, "n.file = ?")
		args = append(args, q.File)
	}
	if len(q.Kinds) > 0 {
		where = append(where, "n.kind IN (?"+strings.Repeat(",?", len(q.Kinds)-1)+")")
		for _, k := range q.Kinds {
			args = append(args, string(k))
		}
	}
	lim := -1
	if q.Limit > 0 {
		lim = q.Limit
	}
	args = append(args, lim)
	return "SELECT " + nodeCols + " FROM nodes n JOIN syms s ON s.sid = n.sid WHERE " +
		strings.Join(where, " AND ") + " ORDER BY n.file, n.start_line, n.qname, s.id LIMIT ?", args
}

// prefixEnd returns the smallest byte string greater than every string
// starting with p; p ends with '.' or '/', so incrementing it cannot carry.
func prefixEnd(p []byte) []byte {
	e := append([]byte{}, p...)
	e[len(e)-1]++
	return e
}

// Files returns every owner record sorted by path.
func (s *Store) Files(ctx context.Context) ([]graphdb.FileRecord, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	out, err := s.files(ctx)
	if err != nil {
		return nil, s.guard(fmt.Errorf("list files: %w", err))
	}
	return out, nil
}

func (s *Store) files(ctx context.Context) ([]graphdb.FileRecord, error) {
	rows, err := s.rdb.QueryContext(ctx, "SELECT path, hash, language, module, size, errors, crc FROM files ORDER BY path")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []graphdb.FileRecord
	for rows.Next() {
		var f graphdb.FileRecord
		var errs sql.NullString
		var sum int64
		if err := rows.Scan(&f.Path, &f.Hash, &f.Language, &f.Module, &f.Size, &errs, &sum); err != nil {
			return nil, err
		}
		if sum != fileSum(f.Path, f.Hash, f.Language, f.Module, f.Size, errs.String) {
			return nil, fmt.Errorf("file record %s: %w", f.Path, errRecord)
		}
		if errs.String != "" {
			if err := json.Unmarshal([]byte(errs.String), &f.Errors); err != nil {
				return nil, fmt.Errorf("decode errors of %s: %v: %w", f.Path, err, errRecord)
			}
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// Stats counts files, nodes by kind and stored edges by kind (dangling edges
// included), all from one snapshot. Kinds with nothing stored are absent.
func (s *Store) Stats(ctx context.Context) (graphdb.Stats, error) {
	if err := s.checkOpen(); err != nil {
		return graphdb.Stats{}, err
	}
	st, err := s.stats(ctx)
	if err != nil {
		return graphdb.Stats{}, s.guard(fmt.Errorf("stats: %w", err))
	}
	return st, nil
}

func (s *Store) stats(ctx context.Context) (graphdb.Stats, error) {
	st := graphdb.Stats{Nodes: map[graphdb.NodeKind]int{}, Edges: map[graphdb.EdgeKind]int{}}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return st, err
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM files").Scan(&st.Files); err != nil {
		return st, err
	}
	if err := groupCount(ctx, tx, "SELECT kind, count(*) FROM nodes GROUP BY kind", func(k string, n int) {
		st.Nodes[graphdb.NodeKind(k)] = n
	}); err != nil {
		return st, err
	}
	rows, err := tx.QueryContext(ctx, "SELECT counts FROM edgesets")
	if err != nil {
		return st, err
	}
	defer rows.Close()
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			return st, err
		}
		per, err := decodeCounts(raw)
		if err != nil {
			return st, err
		}
		for k, n := range per {
			st.Edges[k] += n
		}
	}
	return st, rows.Err()
}

func groupCount(ctx context.Context, tx *sql.Tx, q string, f func(string, int)) error {
	rows, err := tx.QueryContext(ctx, q)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var n int
		if err := rows.Scan(&k, &n); err != nil {
			return err
		}
		f(k, n)
	}
	return rows.Err()
}

// Meta returns a value stored with Tx.SetMeta, or "" when unset.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	if err := s.checkOpen(); err != nil {
		return "", err
	}
	var v string
	err := s.stmts.meta.QueryRowContext(ctx, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", s.guard(fmt.Errorf("meta %q: %w", key, err))
	}
	return v, nil
}

// generation returns the commit counter; it changes with every commit.
func (s *Store) generation(ctx context.Context) (int64, error) {
	var g int64
	if err := s.stmts.gen.QueryRowContext(ctx).Scan(&g); err != nil {
		return 0, fmt.Errorf("read generation: %w", err)
	}
	return g, nil
}
