package embedded

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/relayhq/relay/graphdb"
)

func loadV1(t testing.TB, path string) *synthGraph {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	g := &synthGraph{}
	byFid := map[int64]int{}
	rows, _ := db.Query("SELECT fid, path, hash, language, module, size, errors FROM files ORDER BY fid")
	for rows.Next() {
		var fid int64
		var f graphdb.FileRecord
		var errs sql.NullString
		rows.Scan(&fid, &f.Path, &f.Hash, &f.Language, &f.Module, &f.Size, &errs)
		if errs.Valid && errs.String != "" {
			json.Unmarshal([]byte(errs.String), &f.Errors)
		}
		byFid[fid] = len(g.owners)
		g.owners = append(g.owners, synthOwner{file: f})
	}
	rows.Close()
	rows, err = db.Query("SELECT n.owner, " + nodeCols + " FROM nodes n JOIN syms s ON s.sid = n.sid")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var owner int64
		n, err := scanNodeWith(rows, &owner)
		if err != nil {
			t.Fatal(err)
		}
		o := &g.owners[byFid[owner]]
		o.nodes = append(o.nodes, n)
		if n.Kind == graphdb.KindFunction || n.Kind == graphdb.KindMember {
			g.funcs = append(g.funcs, n.ID)
		}
		g.nodes++
	}
	rows.Close()
	rows, err = db.Query("SELECT e.rowid >> 32, a.id, b.id, e.kind, coalesce(e.file, (SELECT path FROM files WHERE fid = e.rowid >> 32)), e.line FROM edges e JOIN syms a ON a.sid = e.src JOIN syms b ON b.sid = e.dst")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var owner int64
		var e graphdb.Edge
		var kind int
		rows.Scan(&owner, &e.From, &e.To, &kind, &e.File, &e.Line)
		e.Kind = graphdb.EdgeKinds[kind-1]
		o := &g.owners[byFid[owner]]
		o.edges = append(o.edges, e)
		g.edges++
	}
	rows.Close()
	return g
}

func TestRealStd(t *testing.T) {
	path := os.Getenv("RELAY_V1_DB")
	if path == "" {
		t.Skip()
	}
	g := loadV1(t, path)
	t.Logf("files=%d nodes=%d edges=%d", len(g.owners), g.nodes, g.edges)
	dir := t.TempDir()
	if d := os.Getenv("RELAY_KEEP_DIR"); d != "" {
		dir = d
	}
	start, cpu := time.Now(), cpuTime()
	s := writeGraph(t, dir, g)
	t.Logf("write wall=%s cpu=%s", time.Since(start), cpuTime()-cpu)
	start, cpu = time.Now(), cpuTime()
	if err := s.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Logf("warm wall=%s cpu=%s", time.Since(start), cpuTime()-cpu)
	s.Close()
	bench.dir, bench.g = dir, g
	bench.once.Do(func() {})
	res := testing.Benchmark(func(b *testing.B) { benchCallers(b, 1, sampleTargets(g, 1000)) })
	t.Logf("callers depth1: %s %v", res, res.Extra)
	res = testing.Benchmark(func(b *testing.B) { benchCallers(b, 3, sampleTargets(g, 1000)) })
	t.Logf("callers depth3: %s %v", res, res.Extra)
	res = testing.Benchmark(BenchmarkOpenQuery)
	t.Logf("open+query: %s %v", res, res.Extra)
	bench.dir = ""
}
