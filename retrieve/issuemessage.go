package retrieve

import (
	"regexp"
	"sort"
	"strings"
)

// DESIGN: quoted messages. A report often quotes what the program printed
// ("Unsupported settings with this type 'x'", "Cannot read property of
// undefined"), and the message is a string literal in the code that
// printed it. messageFiles slides a window of five words over each run of
// words in the text, narrows the files that could hold it with the
// whole-file index (every non-stop word must occur in the file), and reads
// those few files to check that the window occurs literally (case and
// spacing aside). Test files are left out (they quote messages to assert
// them); a window found in more than maxNamedFiles files is common prose,
// not a message, and counts for nothing. Each run names its files once.

// messageRunRe matches a run of five or more words separated by single
// spaces: a message, or a sentence of one.
var messageRunRe = regexp.MustCompile(`[A-Za-z][A-Za-z']*(?: [A-Za-z][A-Za-z']*){4,}`)

// messageWords is the length of the word windows messageFiles looks for.
const messageWords = 5

// Bounds on the work messageFiles does for one text.
const (
	maxMessageRuns      = 40  // runs checked
	maxMessageWindows   = 400 // windows of messageWords words checked
	maxMessageCands     = 50  // files a run may narrow to before it is skipped as too common
	maxMessageFileReads = 200
)

// messageFiles returns, for each run of words of text that occurs
// literally in at most maxNamedFiles files accepted by keep, those files.
func (s *Searcher) messageFiles(text string, keep func(int32) bool, found func([]int32)) {
	fl := s.ix.FileLex
	if fl == nil || len(fl.DocLen) == 0 {
		return
	}
	contents := map[int32]string{}
	reads := 0
	runs := messageRunRe.FindAllString(text, -1)
	if len(runs) > maxMessageRuns {
		runs = runs[:maxMessageRuns]
	}
	windows := 0
	for _, run := range runs {
		words := strings.Fields(run)
		hit := map[int32]bool{}
		for i := 0; i+messageWords <= len(words) && windows < maxMessageWindows; i++ {
			windows++
			win := strings.Join(words[i:i+messageWords], " ")
			cands := s.messageCandidates(win, keep)
			if len(cands) == 0 || len(cands) > maxMessageCands {
				continue
			}
			want := normalizeSpace(win)
			var hits []int32
			for _, d := range cands {
				c, ok := contents[d]
				if !ok {
					if reads >= maxMessageFileReads {
						continue
					}
					reads++
					c = normalizeSpace(strings.Join(s.fileLines(s.ix.Files[d].Path), " "))
					contents[d] = c
				}
				if strings.Contains(c, want) {
					hits = append(hits, d)
				}
			}
			if len(hits) > 0 && len(hits) <= maxNamedFiles {
				for _, d := range hits {
					hit[d] = true
				}
			}
		}
		if len(hit) > 0 {
			docs := make([]int32, 0, len(hit))
			for d := range hit {
				docs = append(docs, d)
			}
			sort.Slice(docs, func(i, j int) bool { return docs[i] < docs[j] })
			found(docs)
		}
	}
}

// messageCandidates returns the files (accepted by keep) holding every
// index term of run's words, or nil when a word is in no file.
func (s *Searcher) messageCandidates(run string, keep func(int32) bool) []int32 {
	fl := s.ix.FileLex
	var ids []int32
	for _, t := range Tokenize(run) {
		id, ok := fl.TermID(t)
		if !ok {
			return nil
		}
		ids = append(ids, id)
	}
	if len(ids) < 3 {
		return nil // too few content words to be a message
	}
	sort.Slice(ids, func(i, j int) bool { return fl.DF[ids[i]] < fl.DF[ids[j]] })
	in := map[int32]int{}
	for _, p := range fl.Postings(ids[0]) {
		if (keep == nil || keep(p.Doc)) && !IsTestPath(s.ix.Files[p.Doc].Path) {
			in[p.Doc] = 1
		}
	}
	for k, id := range ids[1:] {
		for _, p := range fl.Postings(id) {
			if in[p.Doc] == k+1 {
				in[p.Doc] = k + 2
			}
		}
	}
	var out []int32
	for d, n := range in {
		if n == len(ids) {
			out = append(out, d)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// normalizeSpace lower-cases s and folds every run of white space into one
// space.
func normalizeSpace(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}
