package retrieve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"golang.org/x/sync/errgroup"

	"github.com/relayhq/relay/internal/safefs"
	"github.com/relayhq/relay/retrieve/internal/chunk"
	"github.com/relayhq/relay/retrieve/internal/diskindex"
)

// DESIGN: the merge policy. The index is a row of segments, each the
// files of a run of the walk's sorted paths (package diskindex's DESIGN
// note has the layout). An update first finds the files that changed:
// a file the manifest's stamp (size, modification time, graph hash)
// proves unchanged is not even read, any other is read and hashed, and
// it changed when its key (content and graph hash) differs from the
// commit's. Each walked path falls to the old segment whose range holds
// it (a new path before the first segment to the first). A segment none
// of whose files changed, was added or removed, and whose file still
// verifies, is kept as it is: not read, not rewritten. The others are
// rewritten, their unchanged files' chunks and postings taken over from
// the old segment (decoded and encoded again: a segment is small), the
// changed ones chunked and tokenized. A rewritten run is cut again to
// about segmentFiles files per segment: one that fell below half of it
// takes in the segment after it (or, at the end, the one before), one
// that grew beyond one and a half of it is split evenly. So a one-line
// edit rewrites one segment of about segmentFiles files, and the index
// keeps about files/segmentFiles segments, which bounds what opening it
// costs (the segments' terms are merged then).

// segmentFiles is the number of files a segment is cut to.
const segmentFiles = 512

// segPlan is one segment of the new index: the walked paths it holds,
// and the old segment it keeps unchanged (keep ≥ 0) or −1 when it is
// written.
type segPlan struct {
	paths []string
	keep  int
}

// prevIndex is the index a build starts from: the commit, and where each
// of its files is.
type prevIndex struct {
	path   string // the commit file
	commit *diskindex.Commit
	at     map[string]fileAt
}

// fileAt locates a file of the previous index: its segment and its entry.
type fileAt struct {
	seg   int
	entry int
}

func newPrevIndex(p string, c *diskindex.Commit) *prevIndex {
	prev := &prevIndex{path: p, commit: c, at: map[string]fileAt{}}
	for k, s := range c.Segments {
		for i, f := range s.Files {
			prev.at[f.Path] = fileAt{seg: k, entry: i}
		}
	}
	return prev
}

// entry returns the previous index's entry of rel.
func (prev *prevIndex) entry(rel string) (diskindex.FileEntry, bool) {
	if prev == nil {
		return diskindex.FileEntry{}, false
	}
	at, ok := prev.at[rel]
	if !ok {
		return diskindex.FileEntry{}, false
	}
	return prev.commit.Segments[at.seg].Files[at.entry], true
}

// files counts the previous index's files.
func (prev *prevIndex) files() int {
	if prev == nil {
		return 0
	}
	return len(prev.at)
}

// damagedSegments verifies the checksum of every segment of prev (a pass
// over its bytes without decoding them) and returns those that fail: a
// segment damaged in place must be rebuilt, not kept.
func damagedSegments(prev *prevIndex) []bool {
	if prev == nil {
		return nil
	}
	bad := make([]bool, len(prev.commit.Segments))
	var g errgroup.Group
	g.SetLimit(runtime.GOMAXPROCS(0))
	for k, ref := range prev.commit.Segments {
		g.Go(func() error {
			bad[k] = diskindex.VerifySegment(prev.path, ref) != nil
			return nil
		})
	}
	g.Wait()
	return bad
}

// changedFiles reports, per path, whether the file must be chunked anew:
// its key differs from prev's, it is new text, or it is gone, binary or
// too large now but was indexed. A file stamps proves unchanged (nil:
// trust no stamp) is not read. A file that cannot be read counts as
// changed, so that its segment's chunking notes why.
func changedFiles(ctx context.Context, fsys *safefs.Root, paths []string, graphHash map[string]string, prev *prevIndex, stamps *manifest) (changed []bool, read int, err error) {
	changed = make([]bool, len(paths))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(runtime.GOMAXPROCS(0))
	for i, rel := range paths {
		old, ok := prev.entry(rel)
		if ok && stamps.proves(rel, graphHash[rel]) {
			continue
		}
		read++
		g.Go(func() error {
			if err := gctx.Err(); err != nil {
				return err
			}
			data, err := fsys.ReadFile(rel, MaxFileSize)
			switch {
			case err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, safefs.ErrTooLarge):
				changed[i] = true
			case err != nil || isBinary(data):
				changed[i] = ok
			default:
				changed[i] = !ok || old.Key != chunk.HashString(string(data))+"/"+graphHash[rel]
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, 0, err
	}
	return changed, read, nil
}

// planSegments cuts paths into the new index's segments (see the DESIGN
// note): prev's segments that keep all their files unchanged (changed:
// per path; dirty: per old segment, one that must be rewritten whatever
// its files) are kept, the rest rewritten at about target files.
func planSegments(paths []string, prev *prevIndex, changed, dirty []bool, target int) []segPlan {
	if prev == nil || len(prev.commit.Segments) == 0 {
		return cut(nil, paths, target)
	}
	segs := prev.commit.Segments
	groups := make([][]string, len(segs))
	k := 0
	for i, p := range paths {
		for k+1 < len(segs) && diskindex.ComparePaths(segs[k+1].Files[0].Path, p) <= 0 {
			k++
		}
		groups[k] = append(groups[k], p)
		if changed[i] {
			dirty[k] = true
		}
	}
	var out []segPlan
	var pend []string // paths of segments to rewrite, not yet cut
	pending := false
	for k, g := range groups {
		clean := !dirty[k] && len(g) == len(segs[k].Files)
		switch {
		case clean && !pending:
			out = append(out, segPlan{paths: g, keep: k})
		case clean && len(pend) >= target/2:
			out = cut(out, pend, target)
			pend, pending = nil, false
			out = append(out, segPlan{paths: g, keep: k})
		default: // rewritten, or taken in by a small run before it
			pend, pending = append(pend, g...), true
			if len(pend) >= target/2 {
				out = cut(out, pend, target)
				pend, pending = nil, false
			}
		}
	}
	if pending {
		if n := len(out); n > 0 && len(pend) < target/2 {
			pend = append(append([]string(nil), out[n-1].paths...), pend...)
			out = out[:n-1]
		}
		out = cut(out, pend, target)
	}
	return out
}

// cut appends to out the paths as written segments of about target files
// each (none for no paths).
func cut(out []segPlan, paths []string, target int) []segPlan {
	n := len(paths)
	if n == 0 {
		return out
	}
	parts := max(1, (n+target/2)/target)
	for i := range parts {
		out = append(out, segPlan{paths: paths[i*n/parts : (i+1)*n/parts], keep: -1})
	}
	return out
}

// stampsFor returns m when its stamps may prove files unchanged against
// prev: it was written after prev's commit file (whose size and time it
// recorded), for the same embeddings model; otherwise nil.
func stampsFor(m *manifest, dir string, prev *prevIndex, model string) *manifest {
	if m == nil || prev == nil || m.EmbedModel != model {
		return nil
	}
	fi, err := os.Stat(filepath.Join(dir, IndexFile))
	if err != nil || fi.Size() != m.IndexSize || fi.ModTime().UnixNano() != m.IndexModNs {
		return nil
	}
	return m
}
