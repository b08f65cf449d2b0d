package embedded

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/relayhq/relay/graphdb"
)

// ScanNodes implements graphdb.Scanner: one read transaction, rows
// streamed in id order (the syms id index), nothing held but the row.
func (s *Store) ScanNodes(ctx context.Context, fn func(owner string, n graphdb.Node) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	q, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("scan nodes: %w", err)
	}
	defer q.Rollback()
	rows, err := q.QueryContext(ctx, "SELECT f.path, "+nodeCols+" FROM syms s JOIN nodes n ON n.sid = s.sid JOIN files f ON f.fid = n.owner ORDER BY s.id")
	if err != nil {
		return fmt.Errorf("scan nodes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var owner string
		n, err := scanNodeWith(rows, &owner)
		if err != nil {
			return fmt.Errorf("scan nodes: %w", err)
		}
		if err := fn(owner, n); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("scan nodes: %w", err)
	}
	return nil
}

// ScanEdges implements graphdb.Scanner: one read transaction; each owner's
// edge set is decoded and its ends' ids fetched (stored nodes only) before
// the next owner is read, so memory is bounded by the largest owner.
func (s *Store) ScanEdges(ctx context.Context, fn func(owner string, e graphdb.Edge) error) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	q, err := s.rdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("scan edges: %w", err)
	}
	defer q.Rollback()
	type set struct {
		owner string
		data  []byte
	}
	// Owners are read in pages by path: the id lookups run on the same
	// transaction, which must not interleave with an open cursor.
	const batch = 64
	var pending []set
	flush := func() error {
		for _, st := range pending {
			if err := s.scanEdgeSet(ctx, q, st.owner, st.data, fn); err != nil {
				return err
			}
		}
		pending = pending[:0]
		return nil
	}
	var last string
	for {
		rows, err := q.QueryContext(ctx, "SELECT f.path, e.data FROM edgesets e JOIN files f ON f.fid = e.fid WHERE f.path > ? ORDER BY f.path LIMIT ?", last, batch)
		if err != nil {
			return fmt.Errorf("scan edges: %w", err)
		}
		for rows.Next() {
			var st set
			if err := rows.Scan(&st.owner, &st.data); err != nil {
				rows.Close()
				return fmt.Errorf("scan edges: %w", err)
			}
			pending = append(pending, st)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fmt.Errorf("scan edges: %w", err)
		}
		if len(pending) == 0 {
			return nil
		}
		last = pending[len(pending)-1].owner
		if err := flush(); err != nil {
			return err
		}
	}
}

func (s *Store) scanEdgeSet(ctx context.Context, q *sql.Tx, owner string, data []byte, fn func(string, graphdb.Edge) error) error {
	var raw []rawEdge
	var files []string
	if err := decodeEdges(data, owner, func(fs []string, e rawEdge) { files = fs; raw = append(raw, e) }); err != nil {
		return fmt.Errorf("scan edges of %s: %w", owner, err)
	}
	seen := map[uint32]bool{}
	var sids []uint32
	for _, e := range raw {
		for _, sid := range []uint32{e.src, e.dst} {
			if !seen[sid] {
				seen[sid] = true
				sids = append(sids, sid)
			}
		}
	}
	ids, err := s.storedIDs(ctx, q, sids)
	if err != nil {
		return fmt.Errorf("scan edges of %s: %w", owner, err)
	}
	es := make([]graphdb.Edge, 0, len(raw))
	for _, e := range raw {
		from, ok1 := ids[e.src]
		to, ok2 := ids[e.dst]
		if !ok1 || !ok2 {
			continue // dangling: hidden as Neighbors hides it
		}
		es = append(es, graphdb.Edge{From: from, To: to, Kind: graphdb.EdgeKinds[e.kind-1], File: files[e.file], Line: int(e.line)})
	}
	graphdb.SortEdges(es)
	for _, e := range es {
		if err := fn(owner, e); err != nil {
			return err
		}
	}
	return nil
}

// storedIDs maps the sids of stored nodes among sids to their ids; sids of
// ids no owner declares are left out.
func (s *Store) storedIDs(ctx context.Context, q *sql.Tx, sids []uint32) (map[uint32]graphdb.NodeID, error) {
	out := make(map[uint32]graphdb.NodeID, len(sids))
	err := s.bySid(ctx, q, "SELECT s.sid, s.id FROM syms s JOIN nodes n ON n.sid = s.sid WHERE s.sid IN (", sids, func(rows *sql.Rows) error {
		var sid uint32
		var id graphdb.NodeID
		err := rows.Scan(&sid, &id)
		out[sid] = id
		return err
	})
	return out, err
}
