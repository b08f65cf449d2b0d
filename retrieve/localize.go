package retrieve

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/relayhq/relay/retrieve/internal/bm25"
)

// SourceLanguages are the programming languages Build knows; localization
// predicts only files in these (docs and config rarely hold a fix).
var SourceLanguages = []string{"go", "python", "typescript", "javascript", "java", "kotlin", "rust", "ruby",
	"php", "csharp", "c", "cpp", "swift", "scala", "shell", "asm", "sql", "protobuf", "graphql", "terraform", "template"}

// Localize ranks the files and functions likely to need a change for a
// problem statement, with the search pipeline restricted to
// SourceLanguages: files from RankFilesFused, functions from the hits'
// location names. The lexical rankers see the statement without URLs,
// version strings and addresses (cleanIssueText); the named-file ranker
// sees all of it. Test files come after the project's other code: a fix
// is made in the code under test, and a report that quotes its test must
// not push the test above that code; generated, bundled, minified and
// vendored files come last, and no declaration file ranks above the code
// it declares (see classify.go). o tunes the search (ablations); its Limit, fast path and
// language filter are set here.
func (s *Searcher) Localize(ctx context.Context, problem string, o SearchOptions) (files, functions []string, err error) {
	files, functions, _, err = s.localize(ctx, problem, o)
	return files, functions, err
}

// localize is Localize, also returning the search's hits (LocalizeSpans
// makes line spans of them).
func (s *Searcher) localize(ctx context.Context, problem string, o SearchOptions) (files, functions []string, hits []Hit, err error) {
	o.Limit, o.NoFastPath, o.Filter, o.byClass = reportDepth, true, Filter{Languages: SourceLanguages}, true
	query := cleanIssueText(problem)
	if strings.TrimSpace(query) == "" {
		query = problem
	}
	res, err := s.Search(ctx, query, o)
	if err != nil {
		return nil, nil, nil, err
	}
	var tests, demoted []string
	for _, f := range s.RankFilesFused(problem, query, res.Hits, SourceLanguages) {
		switch c := s.fileClass(f.Path); {
		case c == ClassTest:
			tests = append(tests, f.Path)
		case c.Demoted():
			demoted = append(demoted, f.Path)
		default:
			files = append(files, f.Path)
		}
	}
	files = append(append(withDeclarations(files), tests...), demoted...)
	share := 0.0
	if _, noisy := noisyTitle(problem); noisy {
		share = fileRankShare
	}
	hits = s.withWindowMembers(res.Hits)
	return files, rankFunctions(hits, files, share, s.commonNames(), s.fileClass), hits, nil
}

// withWindowMembers puts after each text-window hit the object-literal
// members (chunks that leave their lines to the windows, see chunk.File)
// whose lines the window holds and whose own name the window matched:
// the window carries the member's text, so when it
// matches `ordinal` in a locale file, `locale.ordinal` of that file is the
// function the text is about, even though the one-line member chunk ranks
// below the hundred others of that name.
func (s *Searcher) withWindowMembers(hits []Hit) []Hit {
	out := make([]Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, h)
		if h.Kind != ChunkText || len(h.Matched) == 0 {
			continue
		}
		matched := map[string]bool{}
		for _, m := range h.Matched {
			matched[m] = true
		}
		fi, ok := s.fileOf(h.Path)
		if !ok {
			continue
		}
		f := s.ix.Files[fi]
		for d := f.First; d < f.First+f.Count; d++ {
			c := s.ix.Chunks[d]
			if (c.Kind == ChunkFunction || c.Kind == ChunkMethod) && c.StartLine >= h.StartLine && c.EndLine <= h.EndLine &&
				namesMatched(c.Name, matched) {
				out = append(out, Hit{Chunk: c, Score: h.Score, Why: []string{"a member of the object the window " + h.Name + " holds"}})
			}
		}
	}
	return out
}

// namesMatched reports whether a term of the last segment of name
// ("ordinal" of "locale.ordinal") is among matched.
func namesMatched(name string, matched map[string]bool) bool {
	for _, t := range Tokenize(name[strings.LastIndexByte(name, '.')+1:]) {
		if matched[t] {
			return true
		}
	}
	return false
}

// commonShare is the share of the files that define functions which must
// all define a function of one name for that name to be a convention
// (every locale file of dayjs has its `locale.ordinal`) rather than a
// function of its own.
const commonShare = 0.5

// minCommonFiles keeps a name of a handful of files out of commonNames: in
// a small repository two files sharing a name is no convention.
const minCommonFiles = 4

// commonNames returns the function and method names (a location name
// without its path: "locale.ordinal", "Type.Method") that more than
// commonShare of the files defining functions define, built on first use.
func (s *Searcher) commonNames() map[string]bool {
	s.commonOnce.Do(func() {
		byName := map[string]int{}
		seen := map[string]bool{} // "path\x00name"
		files := map[string]bool{}
		for _, c := range s.ix.Chunks {
			if c.Kind != ChunkFunction && c.Kind != ChunkMethod {
				continue
			}
			name, ok := strings.CutPrefix(c.Loc, c.Path+":")
			if !ok || seen[c.Path+"\x00"+name] {
				continue
			}
			seen[c.Path+"\x00"+name] = true
			files[c.Path] = true
			byName[name]++
		}
		s.common = map[string]bool{}
		for name, n := range byName {
			if n >= minCommonFiles && float64(n) > commonShare*float64(len(files)) {
				s.common[name] = true
			}
		}
	})
	return s.common
}

// rankFunctions orders the function and method hits by fusing (RRF) their
// own order with the rank of their file in files, weighted by share: a
// function that matches well in a file that matches well (or that the text
// names) comes first. Localize fuses only for a noisy report (noisyTitle):
// there the chunk ranking is least reliable and the file ranking has the
// signals made for such text (named files, the title); a short, precise
// statement keeps the chunk order (share 0).
//
// Of a common name (see commonNames) only the first function takes a
// place; the others of that name come after every other function, in their
// order: near-identical members of sibling files (a hundred locales'
// `locale.ordinal`) match a report equally well, and each taking a place
// would push the function the report is about out of the top.
//
// Functions of test files come after those, and functions of generated
// or vendored files last (class gives a file's class), as in the file
// list.
func rankFunctions(hits []Hit, files []string, share float64, common map[string]bool, class func(string) FileClass) []string {
	fileRank := map[string]int{}
	for i, f := range files {
		fileRank[f] = i + 1
	}
	type fn struct {
		loc   string
		score float64
	}
	var fns []fn
	var later, tests, demoted []string
	seen, named := map[string]bool{}, map[string]bool{}
	for _, h := range hits {
		if h.Loc == "" || seen[h.Loc] || (h.Kind != ChunkFunction && h.Kind != ChunkMethod) {
			continue
		}
		seen[h.Loc] = true
		if c := class(h.Path); c == ClassTest {
			tests = append(tests, h.Loc)
			continue
		} else if c.Demoted() {
			demoted = append(demoted, h.Loc)
			continue
		}
		if name, _ := strings.CutPrefix(h.Loc, h.Path+":"); common[name] {
			if named[name] {
				later = append(later, h.Loc)
				continue
			}
			named[name] = true
		}
		score := 1 / float64(RRFK+len(fns)+1)
		if r, ok := fileRank[h.Path]; ok {
			score += share / float64(RRFK+r)
		}
		fns = append(fns, fn{h.Loc, score})
	}
	sort.SliceStable(fns, func(i, j int) bool { return fns[i].score > fns[j].score })
	out := make([]string, 0, len(fns)+len(later))
	for _, f := range fns {
		out = append(out, f.loc)
	}
	return append(append(append(out, later...), tests...), demoted...)
}

// FileBaseline is plain BM25 over whole files (no chunks, no field
// weights, no graph): the baseline the localization eval (package eval) compares against.
type FileBaseline struct {
	paths []string
	lex   *bm25.Index
}

// NewFileBaseline indexes every file of SourceLanguages that Build would
// consider under root (the same candidate set as Localize).
func NewFileBaseline(root string) (*FileBaseline, error) {
	paths, err := walkFiles(root, "")
	if err != nil {
		return nil, err
	}
	fb := &FileBaseline{}
	lb := bm25.NewBuilder()
	for _, p := range paths {
		if lang, _ := LanguageOf(p); !slices.Contains(SourceLanguages, lang) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || isBinary(data) {
			continue
		}
		fb.paths = append(fb.paths, p)
		lb.Add("", "", string(data))
	}
	fb.lex = lb.Finish()
	return fb, nil
}

// Rank returns the 50 files that best match the problem statement by BM25.
func (fb *FileBaseline) Rank(problem string) []string {
	var files []string
	for _, h := range fb.lex.Search(fb.lex.Expand(Tokenize(problem)), nil, 50) {
		files = append(files, fb.paths[h.Doc])
	}
	return files
}

// fileRankShare weighs the file's rank against the function's own in
// rankFunctions.
const fileRankShare = 0.5
