package golang

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"go/token"
	"go/types"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/tools/go/gcexportdata"
)

// typeCacheVersion names the layout of a type cache entry; entries of
// another layout, or written by another Go release (the type checker is
// compiled into relay), are misses.
const typeCacheVersion = "relay-go-types-1"

// typeCache keeps the type information of the packages a run checked, as
// export data (golang.org/x/tools/go/gcexportdata), in a directory (the
// state directory's cache/go-types) so that later runs load the packages
// they do not re-extract instead of parsing and checking them again.
//
// DESIGN: one file per package variant (named by a hash of its go list ID
// and directory), overwritten when the package changes, so the directory
// holds at most one entry per package the repository's runs have seen. A
// file holds a header — the layout version and the package's key — the
// growths of its types (generic.go's screen needs them from imports), and
// the export data with positions. The key (runState.typeKey) hashes the
// package's identity, the platform, the Go release, its files (content
// hashes for files inside the repository, path, size and modification time
// outside it, where the module cache is immutable) and the keys of its
// imports, so a change anywhere below a package misses. Entries are
// written whole through a rename; one that cannot be read is a miss.
type typeCache struct {
	dir  string
	log  *slog.Logger
	mu   sync.Mutex
	used map[string]bool // entry files of the packages this run met
}

// openTypeCache returns the cache in dir ("" or a directory that cannot
// be created: none).
func openTypeCache(dir string, log *slog.Logger) *typeCache {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		log.Warn("go type cache unavailable; dependencies are checked from source", "dir", dir, "err", err)
		return nil
	}
	return &typeCache{dir: dir, log: log, used: map[string]bool{}}
}

// seen notes that the run met p: a full run's sweep keeps its entry.
func (c *typeCache) seen(p *gpkg) {
	c.mu.Lock()
	c.used[filepath.Base(c.file(p))] = true
	c.mu.Unlock()
}

// sweep removes the entries of packages the run did not meet (vanished
// packages, left-over temporary files). Only a full run, which meets every
// package of the repository, sweeps.
func (c *typeCache) sweep() {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, e := range entries {
		if !c.used[e.Name()] {
			if os.Remove(filepath.Join(c.dir, e.Name())) == nil {
				n++
			}
		}
	}
	c.log.Debug("go type cache swept", "removed", n, "kept", len(entries)-n)
}

// file is the entry file of a package variant.
func (c *typeCache) file(p *gpkg) string {
	h := sha256.New()
	h.Write([]byte(p.meta.ID))
	if len(p.meta.GoFiles) > 0 {
		h.Write([]byte("\x00" + filepath.Dir(p.meta.GoFiles[0])))
	}
	return filepath.Join(c.dir, hex.EncodeToString(h.Sum(nil)[:16])+".types")
}

// has reports whether p's entry holds its current key.
func (c *typeCache) has(p *gpkg) bool {
	f, err := os.Open(c.file(p))
	if err != nil {
		return false
	}
	defer f.Close()
	key, _, err := readHeader(bufio.NewReaderSize(f, 512))
	return err == nil && key == p.key
}

// readHeader reads an entry's header: its key and its types' growths.
func readHeader(br *bufio.Reader) (string, map[string]int64, error) {
	magic, err := br.ReadString('\n')
	if err != nil || magic != typeCacheVersion+"\n" {
		return "", nil, fmt.Errorf("not a %s entry", typeCacheVersion)
	}
	key, err := br.ReadString('\n')
	if err != nil {
		return "", nil, err
	}
	line, err := br.ReadString('\n')
	if err != nil {
		return "", nil, err
	}
	growth, err := decodeGrowth(strings.TrimSuffix(line, "\n"))
	return strings.TrimSuffix(key, "\n"), growth, err
}

// load reads p's entry into the run's shared import map: the packages
// its export data refers to are shared with every other entry loaded into
// the same map.
func (c *typeCache) load(p *gpkg, fset *token.FileSet, imports map[string]*types.Package) error {
	data, err := os.ReadFile(c.file(p))
	if err != nil {
		return err
	}
	br := bufio.NewReader(bytes.NewReader(data))
	key, growth, err := readHeader(br)
	if err != nil {
		return err
	}
	if key != p.key {
		return errors.New("the entry was replaced")
	}
	tpkg, err := gcexportdata.Read(br, fset, imports, p.meta.PkgPath)
	if err != nil {
		return err
	}
	p.tpkg, p.growth = tpkg, growth
	return nil
}

// store writes p's entry (errors are logged: the cache only saves time).
func (c *typeCache) store(p *gpkg, fset *token.FileSet) {
	var buf bytes.Buffer
	fmt.Fprintf(&buf, "%s\n%s\n%s\n", typeCacheVersion, p.key, encodeGrowth(p.growth))
	if err := exportData(&buf, fset, p.tpkg); err != nil {
		c.log.Debug("go type cache: export failed", "package", p.meta.ID, "err", err)
		return
	}
	name := c.file(p)
	tmp, err := os.CreateTemp(c.dir, ".tmp-*")
	if err == nil {
		_, err = tmp.Write(buf.Bytes())
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), name)
		}
		if err != nil {
			os.Remove(tmp.Name())
		}
	}
	if err != nil {
		c.log.Debug("go type cache: write failed", "package", p.meta.ID, "err", err)
	}
}

// exportData writes pkg's export data; a package the exporter cannot
// describe (a panic on a malformed type) is an error.
func exportData(w io.Writer, fset *token.FileSet, pkg *types.Package) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("export data: %v", v)
		}
	}()
	return gcexportdata.Write(w, fset, pkg)
}

// encodeGrowth writes the growths of a package's types as name=n pairs.
func encodeGrowth(g map[string]int64) string {
	names := make([]string, 0, len(g))
	for n := range g {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(n + "=" + strconv.FormatInt(g[n], 10))
	}
	return b.String()
}

func decodeGrowth(s string) (map[string]int64, error) {
	if s == "" {
		return nil, nil
	}
	out := map[string]int64{}
	for _, f := range strings.Fields(s) {
		name, v, ok := strings.Cut(f, "=")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("bad growth %q", f)
		}
		out[name] = n
	}
	return out, nil
}

// typeKey returns the cache key of p, or "" when p cannot be cached (a
// file inside the repository the scan did not hash, an unreadable file,
// an import that cannot be cached or was cut from a cycle). The keys of
// p's imports must be known.
func (r *runState) typeKey(p *gpkg) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00", typeCacheVersion, runtime.Version(), p.meta.ID, p.meta.PkgPath, runtime.GOARCH)
	for _, f := range p.meta.GoFiles {
		if rel, inside := r.rel(f); inside {
			df := r.j.Files[rel]
			if df == nil || df.Hash == "" || df.Err != nil {
				return ""
			}
			fmt.Fprintf(h, "%s\x00%s\x00", rel, df.Hash)
			continue
		}
		st, err := os.Stat(f)
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "%s\x00%d\x00%d\x00", f, st.Size(), st.ModTime().UnixNano())
	}
	if !r.importKeys(h, p) {
		return ""
	}
	return hex.EncodeToString(h.Sum(nil))
}

// importKeys adds the keys of p's imports to h, sorted by import path;
// false when one has none.
func (r *runState) importKeys(h io.Writer, p *gpkg) bool {
	paths := make([]string, 0, len(p.imports))
	for path := range p.imports {
		paths = append(paths, path)
	}
	sort.Strings(paths)
	waited := map[*gpkg]bool{}
	for _, q := range p.waits {
		waited[q] = true
	}
	for _, path := range paths {
		q := p.imports[path]
		if path == "unsafe" {
			continue
		}
		if !waited[q] || q.key == "" {
			return false // an import cycle was cut here, or q is not cacheable
		}
		fmt.Fprintf(h, "%s=%s\x00", path, q.key)
	}
	return true
}

// loadCached keys every package of the run (all: imports before their
// importers) and loads from the type cache the dependencies the checked
// packages import, when the cache holds them and everything below them.
//
// DESIGN: a package is checked from source when it is extracted (a root),
// when the cache lacks it, or when anything it imports is checked from
// source; every other package is loaded from its entry. The export data
// of the entries share one import map, so the packages they refer to are
// one instance per path, and no package checked from source appears
// below a loaded one (its key would have changed, or the rule above made
// the loaded one a source package too): a checked package never meets two
// instances of one type. Entries are deep — each holds every declaration
// of other packages its own declarations reach — so only the direct
// imports of the checked packages are read, serially, before any check
// starts (the import map is not safe for concurrent use). An entry that
// cannot be read turns the whole run back to checking from source.
func (r *runState) loadCached(all []*gpkg) {
	for _, p := range all {
		if p.meta.PkgPath == "unsafe" && !p.root {
			p.fromCache = true // importers get types.Unsafe; nothing to load
			continue
		}
		p.key = r.typeKey(p)
		r.types.seen(p)
		p.cached = p.key != "" && r.types.has(p)
		p.fromCache = p.cached && !p.root
		for path, q := range p.imports {
			if path != "unsafe" && !q.fromCache {
				p.fromCache = false
			}
		}
	}
	var need []*gpkg
	seen := map[*gpkg]bool{}
	for _, p := range all {
		if p.fromCache {
			continue
		}
		for path, q := range p.imports {
			if path != "unsafe" && q.fromCache && !seen[q] {
				seen[q] = true
				need = append(need, q)
			}
		}
	}
	sort.Slice(need, func(i, j int) bool { return need[i].meta.ID < need[j].meta.ID })
	imports := map[string]*types.Package{}
	for _, q := range need {
		if err := r.types.load(q, r.fset, imports); err != nil {
			r.log.Warn("go type cache entry unreadable; this run checks every dependency from source", "package", q.meta.ID, "err", err)
			os.Remove(r.types.file(q))
			for _, p := range all {
				p.fromCache, p.tpkg, p.growth = false, nil, nil
			}
			return
		}
	}
	r.cacheLoads += len(need)
}
