package embedded

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/relayhq/relay/graphdb"
)

// ent is one adjacency entry: the far end of an edge, its kind and site.
// meta packs kind<<24 | file rank, so files ≤ 16M distinct names.
type ent struct {
	far  uint32
	meta uint32
	line uint32
}

func (e ent) kind() uint32     { return e.meta >> 24 }
func (e ent) fileRank() uint32 { return e.meta & (1<<24 - 1) }

// adjacency is an in-memory traversal index of one generation of the
// store: for each direction, a CSR array of entries per node sid, each
// node's entries sorted by (kind, file, line, far id). File names and ids
// are replaced by their ranks in sorted order, so merging kinds reproduces
// the (File, Line, From, To) order of graphdb.TraverseNeighbors exactly.
// Everything but dirs is immutable; a direction loaded from its snapshot
// file on first use is published once through its atomic pointer.
type adjacency struct {
	gen    int64
	nsid   uint32   // every sid is < nsid
	exists []uint64 // bitset over sids: the node is stored
	rank   []uint32 // 1 + rank of a stored node's id among all stored ids; 0 when not stored
	files  []string // edge files in sorted order; ent.fileRank indexes it
	dirs   [2]atomic.Pointer[csr]
	// nodes caches the nodes Traverse returned, by sid. A generation's
	// nodes never change, and a new commit brings a new adjacency, so the
	// cache needs no invalidation; it is bounded by the graph's size.
	// Blast radii over many targets revisit the same callers: without it
	// their SQL fetches dominated.
	nodes sync.Map // uint32 → graphdb.Node
}

// csr is one direction: node sid's entries are ents[off[sid]:off[sid+1]].
type csr struct {
	off  []uint32
	ents []ent
}

const (
	dirOut = 0 // graphdb.Outbound
	dirIn  = 1 // graphdb.Inbound
)

func (a *adjacency) has(sid uint32) bool {
	return sid < a.nsid && a.exists[sid>>6]&(1<<(sid&63)) != 0
}

// segment returns the entries of sid in direction d with the given kind.
func (a *adjacency) segment(d int, sid uint32, kind uint32) []ent {
	c := a.dirs[d].Load()
	if sid >= a.nsid || c == nil {
		return nil
	}
	seg := c.ents[c.off[sid]:c.off[sid+1]]
	lo, _ := slices.BinarySearchFunc(seg, kind, func(e ent, k uint32) int { return cmp.Compare(e.kind(), k) })
	hi, _ := slices.BinarySearchFunc(seg, kind+1, func(e ent, k uint32) int { return cmp.Compare(e.kind(), k) })
	return seg[lo:hi]
}

// buildAdjacency reads every stored node id and edge set inside the
// caller's read transaction, so the result matches generation gen exactly.
func buildAdjacency(ctx context.Context, q *sql.Tx, gen int64) (*adjacency, error) {
	a := &adjacency{gen: gen}
	var maxSid int64
	if err := q.QueryRowContext(ctx, "SELECT coalesce(max(sid), 0) FROM syms").Scan(&maxSid); err != nil {
		return nil, fmt.Errorf("build adjacency: %w", err)
	}
	if maxSid >= 1<<32-1 {
		return nil, fmt.Errorf("build adjacency: %d ids exceed the index's 32-bit range; delete the store and re-index", maxSid)
	}
	a.nsid = uint32(maxSid) + 1
	a.exists = make([]uint64, (a.nsid+63)/64)
	a.rank = make([]uint32, a.nsid)

	if err := a.rankNodes(ctx, q); err != nil {
		return nil, fmt.Errorf("build adjacency: %w", err)
	}
	edges, fileNames, err := a.readEdges(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("build adjacency: %w", err)
	}
	if len(fileNames) >= 1<<24 {
		return nil, fmt.Errorf("build adjacency: %d distinct edge files exceed the index's range", len(fileNames))
	}
	fileRank := a.rankFiles(fileNames)
	for d := range 2 {
		a.dirs[d].Store(a.buildCSR(d, edges, fileRank))
	}
	return a, nil
}

// flatEdge is one decoded edge: sids, kind code, index into the file names
// readEdges returns, line.
type flatEdge struct{ src, dst, kind, file, line uint32 }

// readEdges decodes every edge set, interning the files edges are declared
// in (fileNames, in order of first use).
func (a *adjacency) readEdges(ctx context.Context, q *sql.Tx) (edges []flatEdge, fileNames []string, err error) {
	fileIdx := map[string]uint32{}
	intern := func(name string) uint32 {
		if i, ok := fileIdx[name]; ok {
			return i
		}
		i := uint32(len(fileNames))
		fileIdx[name] = i
		fileNames = append(fileNames, name)
		return i
	}
	rows, err := q.QueryContext(ctx, "SELECT f.path, e.data FROM edgesets e JOIN files f ON f.fid = e.fid")
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var local []uint32 // the current set's file table → global index
	bad := false
	for rows.Next() {
		var path string
		var data sql.RawBytes
		if err := rows.Scan(&path, &data); err != nil {
			return nil, nil, err
		}
		local = local[:0]
		err := decodeEdges(data, path, func(files []string, e rawEdge) {
			if len(local) == 0 { // first edge of the set: map its file table
				for _, f := range files {
					local = append(local, intern(f))
				}
			}
			if e.src >= a.nsid || e.dst >= a.nsid {
				bad = true // sids come from syms: only damage gets here
				return
			}
			edges = append(edges, flatEdge{src: e.src, dst: e.dst, kind: e.kind, file: local[e.file], line: uint32(e.line)})
		})
		if err == nil && bad {
			err = fmt.Errorf("edge set: id out of range: %w", errRecord)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("edges of %s: %w", path, err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	return edges, fileNames, nil
}

// rankFiles sorts the file names into a.files and returns each name's
// rank there, by its index in fileNames.
func (a *adjacency) rankFiles(fileNames []string) []uint32 {
	order := make([]uint32, len(fileNames))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(x, y uint32) int { return cmp.Compare(fileNames[x], fileNames[y]) })
	fileRank := make([]uint32, len(fileNames))
	a.files = make([]string, len(fileNames))
	for r, i := range order {
		fileRank[i] = uint32(r)
		a.files[r] = fileNames[i]
	}
	return fileRank
}

// buildCSR lays the edges out for direction d (dirOut: by source, dirIn:
// by destination), each sid's segment sorted by a.compare.
func (a *adjacency) buildCSR(d int, edges []flatEdge, fileRank []uint32) *csr {
	off := make([]uint32, a.nsid+1)
	for _, e := range edges {
		near := e.src
		if d == dirIn {
			near = e.dst
		}
		off[near+1]++
	}
	for i := uint32(1); i <= a.nsid; i++ {
		off[i] += off[i-1]
	}
	pos := slices.Clone(off[:a.nsid])
	ents := make([]ent, len(edges))
	for _, e := range edges {
		near, far := e.src, e.dst
		if d == dirIn {
			near, far = e.dst, e.src
		}
		ents[pos[near]] = ent{far: far, meta: e.kind<<24 | fileRank[e.file], line: e.line}
		pos[near]++
	}
	for sid := uint32(0); sid < a.nsid; sid++ {
		seg := ents[off[sid]:off[sid+1]]
		if len(seg) > 1 {
			slices.SortFunc(seg, a.compare)
		}
	}
	return &csr{off: off, ents: ents}
}

// rankNodes reads the stored nodes in id order (the syms(id) index) and
// fills exists and rank. The ids must come strictly increasing, no sid
// twice, and as many as the nodes table holds, so a damaged index entry
// can neither reorder, duplicate nor hide a node. (Checking each id's
// checksum here as well cost a third more build time; the ids a query
// returns are checked where they are read.)
func (a *adjacency) rankNodes(ctx context.Context, q *sql.Tx) error {
	var want int
	if err := q.QueryRowContext(ctx, "SELECT count(*) FROM nodes").Scan(&want); err != nil {
		return err
	}
	rows, err := q.QueryContext(ctx, "SELECT s.sid, s.id FROM syms s JOIN nodes n ON n.sid = s.sid ORDER BY s.id")
	if err != nil {
		return err
	}
	defer rows.Close()
	r := uint32(0)
	var prev []byte
	for rows.Next() {
		var sid int64
		var id sql.RawBytes
		if err := rows.Scan(&sid, &id); err != nil {
			return err
		}
		if sid < 1 || sid >= int64(a.nsid) || a.rank[sid] != 0 || (r > 0 && bytes.Compare(id, prev) <= 0) {
			return fmt.Errorf("id index at #%d: %w", sid, errRecord)
		}
		prev = append(prev[:0], id...)
		r++
		a.rank[sid] = r
		a.exists[sid>>6] |= 1 << (sid & 63)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if int(r) != want {
		return fmt.Errorf("%d nodes have ids, the nodes table holds %d: %w", r, want, errRecord)
	}
	return nil
}

// compare orders entries of one node: kind, then (file, line, far id).
func (a *adjacency) compare(x, y ent) int {
	if c := cmp.Compare(x.kind(), y.kind()); c != 0 {
		return c
	}
	return a.compareSite(x, y)
}

// compareSite is the (File, Line, far id) order of graphdb.SortEdges.
func (a *adjacency) compareSite(x, y ent) int {
	if c := cmp.Compare(x.fileRank(), y.fileRank()); c != 0 {
		return c
	}
	if c := cmp.Compare(x.line, y.line); c != 0 {
		return c
	}
	return cmp.Compare(a.rank[x.far], a.rank[y.far])
}

// rawHop is a hop before its node is fetched.
type rawHop struct {
	sid, via uint32
	depth    int
	e        ent
}

// walk is graphdb.TraverseMultiNeighbors on the adjacency: breadth-first
// from all of starts (distinct sids; depth 0, in order), each frontier
// node's edges of all kinds merged in (File, Line, From, To) order (ties
// keep the order of kinds), dangling far ends skipped.
func (a *adjacency) walk(starts []uint32, kinds []uint32, d, depth, limit int) []rawHop {
	seen := make(map[uint32]struct{}, len(starts))
	for _, s := range starts {
		seen[s] = struct{}{}
	}
	frontier := starts
	var out []rawHop
	var merged []ent
	for level := 1; level <= depth && len(frontier) > 0; level++ {
		var next []uint32
		for _, near := range frontier {
			var es []ent
			if len(kinds) == 1 {
				es = a.segment(d, near, kinds[0])
			} else {
				merged = merged[:0]
				for _, k := range kinds {
					merged = append(merged, a.segment(d, near, k)...)
				}
				slices.SortStableFunc(merged, a.compareSite)
				es = merged
			}
			for _, e := range es {
				if !a.has(e.far) {
					continue
				}
				if _, ok := seen[e.far]; ok {
					continue
				}
				seen[e.far] = struct{}{}
				out = append(out, rawHop{sid: e.far, via: near, depth: level, e: e})
				if limit > 0 && len(out) >= limit {
					return out
				}
				next = append(next, e.far)
			}
		}
		frontier = next
	}
	return out
}

// complete reports whether the directions in need are present.
func (a *adjacency) complete(need []int) bool {
	for _, d := range need {
		if a.dirs[d].Load() == nil {
			return false
		}
	}
	return true
}

// adjacencyFor returns the adjacency of generation gen with the directions
// in need: from memory, from the snapshot files, or built from the tables
// inside q (and then saved).
func (s *Store) adjacencyFor(ctx context.Context, q *sql.Tx, gen int64, need []int) (*adjacency, error) {
	if a := s.adj.Load(); a != nil && a.gen == gen && a.complete(need) {
		return a, nil
	}
	s.adjMu.Lock()
	defer s.adjMu.Unlock()
	a := s.adj.Load()
	if a != nil && a.gen == gen && a.complete(need) {
		return a, nil
	}
	start := time.Now()
	common, dirs := s.snapshotPaths()
	if a == nil || a.gen != gen {
		var err error
		if a, err = loadCommon(common, gen, s.snap); err != nil {
			s.log.Debug("adjacency snapshot unusable; rebuilding", "dir", s.dir, "err", err)
		}
	}
	for _, d := range need {
		if a == nil || a.dirs[d].Load() != nil {
			continue
		}
		c, err := loadDir(dirs[d], d, gen, a.nsid, s.snap)
		if c == nil {
			if err != nil {
				s.log.Debug("adjacency snapshot unusable; rebuilding", "dir", s.dir, "err", err)
			}
			a = nil
			break
		}
		a.dirs[d].Store(c)
	}
	if a != nil {
		s.log.Debug("adjacency loaded", "dir", s.dir, "generation", gen, "directions", need, "dur", time.Since(start))
	} else {
		var err error
		a, err = buildAdjacency(ctx, q, gen)
		if err != nil {
			return nil, err
		}
		s.log.Debug("adjacency built", "dir", s.dir, "generation", gen, "edges", len(a.dirs[dirOut].Load().ents), "dur", time.Since(start))
		if !s.saveSnapshots {
			s.log.Debug("adjacency snapshot not saved: the directory is read-only", "dir", s.dir)
		} else if err := saveSnapshot(common, dirs, a, s.snap); err != nil {
			s.log.Debug("adjacency snapshot not saved", "dir", s.dir, "err", err)
		}
	}
	if old := s.adj.Load(); old == nil || old.gen <= gen {
		s.adj.Store(a)
	}
	return a, nil
}

// snapshot opens a read transaction and returns it with the adjacency of
// the generation it sees, holding the directions in need. The caller rolls
// q back when done.
func (s *Store) snapshot(ctx context.Context, need ...int) (*sql.Tx, *adjacency, error) {
	q, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, err
	}
	var gen int64
	if err := q.StmtContext(ctx, s.stmts.gen).QueryRowContext(ctx).Scan(&gen); err != nil {
		q.Rollback()
		return nil, nil, s.wrapOpenErr(err)
	}
	a, err := s.adjacencyFor(ctx, q, gen, need)
	if err != nil {
		q.Rollback()
		return nil, nil, err
	}
	return q, a, nil
}

// current returns the adjacency of the latest generation with the
// directions in need, opening a read transaction only to load or build it.
func (s *Store) current(ctx context.Context, need ...int) (*adjacency, error) {
	gen, err := s.generation(ctx)
	if err != nil {
		return nil, err
	}
	if a := s.adj.Load(); a != nil && a.gen == gen && a.complete(need) {
		return a, nil
	}
	q, a, err := s.snapshot(ctx, need...)
	if err != nil {
		return nil, err
	}
	q.Rollback()
	return a, nil
}

// Traverse walks breadth-first from start on the in-memory adjacency
// (graphdb.Traverser); results equal graphdb.TraverseNeighbors'. It is
// TraverseMulti with one start.
func (s *Store) Traverse(ctx context.Context, start graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	return s.traverse(ctx, []graphdb.NodeID{start}, kinds, dir, depth, limit)
}

// TraverseMulti walks breadth-first from all of starts at once on the
// in-memory adjacency (graphdb.MultiTraverser); results equal
// graphdb.TraverseMultiNeighbors'.
func (s *Store) TraverseMulti(ctx context.Context, starts []graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	return s.traverse(ctx, starts, kinds, dir, depth, limit)
}

// traverse is Traverse and TraverseMulti. The walk and the node fetch share
// one read transaction, so a concurrent commit is never half-seen.
func (s *Store) traverse(ctx context.Context, starts []graphdb.NodeID, kinds []graphdb.EdgeKind, dir graphdb.Direction, depth, limit int) ([]graphdb.Hop, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	from := traverseLabel(starts)
	codes := make([]uint32, len(kinds))
	for i, k := range kinds {
		c, ok := edgeKindCode(k)
		if !ok {
			return nil, fmt.Errorf("traverse from %s: unknown edge kind %q", from, k)
		}
		codes[i] = uint32(c)
	}
	if depth < 1 || len(kinds) == 0 || len(starts) == 0 {
		return nil, nil
	}
	d := dirOut
	if dir == graphdb.Inbound {
		d = dirIn
	}
	q, a, err := s.snapshot(ctx, d)
	if err != nil {
		return nil, s.guard(fmt.Errorf("traverse from %s: %w", from, err))
	}
	defer q.Rollback()
	hops, err := s.walkAndFetch(ctx, q, a, starts, codes, d, depth, limit)
	if err != nil {
		return nil, s.guard(fmt.Errorf("traverse from %s: %w", from, err))
	}
	return hops, nil
}

// walkAndFetch is traverse's walk on a and its node fetch inside q.
func (s *Store) walkAndFetch(ctx context.Context, q *sql.Tx, a *adjacency, starts []graphdb.NodeID, codes []uint32, d, depth, limit int) ([]graphdb.Hop, error) {
	// The starts' sids, distinct and in order; an id nothing mentions has
	// no sid and no edges.
	startID := make(map[uint32]graphdb.NodeID, len(starts))
	startSids := make([]uint32, 0, len(starts))
	for _, id := range starts {
		sid, ok, err := s.lookupSid(ctx, q, id)
		if err != nil {
			return nil, err
		}
		if _, dup := startID[sid]; !ok || dup {
			continue
		}
		startID[sid] = id
		startSids = append(startSids, sid)
	}
	raw := a.walk(startSids, codes, d, depth, limit)
	if len(raw) == 0 {
		return nil, nil
	}
	nodes := make(map[uint32]graphdb.Node, len(raw))
	var missing []uint32
	for _, h := range raw {
		if n, ok := a.nodes.Load(h.sid); ok {
			nodes[h.sid] = n.(graphdb.Node)
		} else {
			missing = append(missing, h.sid)
		}
	}
	if len(missing) > 0 {
		fetched, err := s.nodesBySid(ctx, q, missing)
		if err != nil {
			return nil, err
		}
		for sid, n := range fetched {
			nodes[sid] = n
			a.nodes.Store(sid, n)
		}
	}
	idOf := func(sid uint32) graphdb.NodeID { // via: a start or an earlier hop
		if id, ok := startID[sid]; ok {
			return id
		}
		return nodes[sid].ID
	}
	hops := make([]graphdb.Hop, len(raw))
	for i, h := range raw {
		n, ok := nodes[h.sid]
		if !ok {
			return nil, fmt.Errorf("node #%d of generation %d is missing: %w", h.sid, a.gen, errRecord)
		}
		e := graphdb.Edge{Kind: graphdb.EdgeKinds[h.e.kind()-1], File: a.files[h.e.fileRank()], Line: int(h.e.line)}
		via := idOf(h.via)
		if d == dirIn {
			e.From, e.To = n.ID, via
		} else {
			e.From, e.To = via, n.ID
		}
		hops[i] = graphdb.Hop{Node: n, Depth: h.depth, Via: via, Edge: e}
	}
	return hops, nil
}

// traverseLabel names the starts of a traversal in errors.
func traverseLabel(starts []graphdb.NodeID) string {
	switch len(starts) {
	case 0:
		return "no start"
	case 1:
		return string(starts[0])
	}
	return fmt.Sprintf("%s and %d more", starts[0], len(starts)-1)
}

// nodesBySid fetches nodes by sid in batches inside q.
func (s *Store) nodesBySid(ctx context.Context, q *sql.Tx, sids []uint32) (map[uint32]graphdb.Node, error) {
	out := make(map[uint32]graphdb.Node, len(sids))
	err := s.bySid(ctx, q, "SELECT n.sid, "+nodeCols+" FROM nodes n JOIN syms s ON s.sid = n.sid WHERE n.sid IN (", sids, func(rows *sql.Rows) error {
		var sid uint32
		n, err := scanNodeWith(rows, &sid)
		out[sid] = n
		return err
	})
	return out, err
}

// idsBySid fetches the ids of sids in batches inside q.
func (s *Store) idsBySid(ctx context.Context, q *sql.Tx, sids []uint32) (map[uint32]graphdb.NodeID, error) {
	out := make(map[uint32]graphdb.NodeID, len(sids))
	err := s.bySid(ctx, q, "SELECT sid, id, crc FROM syms WHERE sid IN (", sids, func(rows *sql.Rows) error {
		var sid, sum int64
		var id graphdb.NodeID
		if err := rows.Scan(&sid, &id, &sum); err != nil {
			return err
		}
		if sum != symSum(sid, string(id)) {
			return fmt.Errorf("id record #%d: %w", sid, errRecord)
		}
		out[uint32(sid)] = id
		return nil
	})
	if err == nil {
		for _, sid := range sids {
			if _, ok := out[sid]; !ok {
				return nil, fmt.Errorf("id #%d is missing: %w", sid, errRecord)
			}
		}
	}
	return out, err
}

// bySid runs head + "?,?…)" over sids in batches of up to 256 (inside q
// when it is not nil), calling scan for each row. The IN list is padded to a power of two by repeating
// the last sid, so a handful of statement shapes serve every size.
func (s *Store) bySid(ctx context.Context, q *sql.Tx, head string, sids []uint32, scan func(*sql.Rows) error) error {
	args := make([]any, 0, 256)
	for len(sids) > 0 {
		n := min(len(sids), 256)
		width := 1
		for width < n {
			width <<= 1
		}
		st, err := s.dynamicStmt(ctx, head+"?"+repeatComma(width-1)+")")
		if err != nil {
			return err
		}
		args = args[:0]
		for _, sid := range sids[:n] {
			args = append(args, sid)
		}
		for len(args) < width {
			args = append(args, sids[n-1])
		}
		if q != nil {
			st = q.StmtContext(ctx, st)
		}
		rows, err := st.QueryContext(ctx, args...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		sids = sids[n:]
	}
	return nil
}

func repeatComma(n int) string {
	b := make([]byte, 0, 2*n)
	for range n {
		b = append(b, ",?"...)
	}
	return string(b)
}

// Warm makes sure the adjacency matches the latest commit, building it and
// saving its snapshot file when stale, so the next process's first edge
// query only has to read the file. The indexer calls it after committing.
func (s *Store) Warm(ctx context.Context) error {
	if err := s.checkOpen(); err != nil {
		return err
	}
	q, _, err := s.snapshot(ctx, dirOut, dirIn)
	if err != nil {
		return s.guard(fmt.Errorf("warm: %w", err))
	}
	return q.Rollback()
}
