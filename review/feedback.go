package review

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/relayhq/relay/internal/lines"
	"github.com/relayhq/relay/retrieve"
)

// FeedbackFile is the feedback store's file in relay's state directory.
const FeedbackFile = "feedback.jsonl"

// Feedback is one past review comment and whether people found it useful.
type Feedback struct {
	File     string    `json:"file"`
	Line     int       `json:"line,omitempty"`
	Comment  string    `json:"comment"`
	Accepted bool      `json:"accepted"`
	Language string    `json:"language,omitempty"` // derived from File when empty
	Code     string    `json:"code,omitempty"`     // the code the comment was about, when known
	Created  time.Time `json:"created,omitzero"`
}

// Validate checks the required fields. File is repository-relative: an
// absolute path or one leaving the repository could never match a diff's
// files, so it is refused rather than kept.
func (f Feedback) Validate() error {
	slashed := filepath.ToSlash(f.File)
	switch {
	case strings.TrimSpace(f.File) == "":
		return errors.New("feedback needs a file (the path the comment was made on)")
	case path.IsAbs(slashed) || filepath.IsAbs(f.File) || filepath.VolumeName(f.File) != "":
		return fmt.Errorf("feedback file %q is absolute: give the path relative to the repository root (e.g. internal/auth/token.go)", f.File)
	case path.Clean(slashed) == ".." || strings.HasPrefix(path.Clean(slashed), "../"):
		return fmt.Errorf("feedback file %q leaves the repository: give the path relative to the repository root (e.g. internal/auth/token.go)", f.File)
	case strings.TrimSpace(f.Comment) == "":
		return errors.New("feedback needs a comment text")
	case f.Line < 0:
		return fmt.Errorf("feedback line %d: want 0 (unknown) or a positive line number", f.Line)
	}
	return nil
}

// FeedbackStore keeps review feedback as JSON lines in one file. Appends are
// serialised within a process and use O_APPEND, so concurrent relay
// processes do not interleave lines.
type FeedbackStore struct {
	path string
	now  func() time.Time
	mu   sync.Mutex
}

// OpenFeedback returns the store at dir/feedback.jsonl (dir is relay's
// state directory, <root>/.relay by default). The file is created on the
// first Add; reading never writes.
func OpenFeedback(dir string) *FeedbackStore {
	return &FeedbackStore{path: filepath.Join(dir, FeedbackFile), now: time.Now}
}

// Path returns the store's file.
func (s *FeedbackStore) Path() string { return s.path }

// Add appends items after validating all of them. A file whose last line
// was cut short (a write killed half-way, a hand edit) first gets the
// newline it lacks, so the new items never join that line and are lost
// with it.
func (s *FeedbackStore) Add(items ...Feedback) error {
	var buf bytes.Buffer
	for i, f := range items {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("feedback %d: %w", i+1, err)
		}
		if f.Language == "" {
			f.Language, _ = retrieve.LanguageOf(f.File)
		}
		if f.Created.IsZero() {
			f.Created = s.now().UTC()
		}
		line, err := json.Marshal(f)
		if err != nil {
			return err
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(s.path), err)
	}
	f, err := os.OpenFile(s.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open feedback store: %w", err)
	}
	torn, err := endsTorn(f)
	if err != nil {
		f.Close()
		return fmt.Errorf("read feedback store: %w", err)
	}
	out := buf.Bytes()
	if torn {
		out = append([]byte{'\n'}, out...)
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return fmt.Errorf("append feedback: %w", err)
	}
	return f.Close()
}

// Import reads JSON lines of Feedback from r and appends them; nothing is
// written when any line is invalid, and the error names the line.
func (s *FeedbackStore) Import(r io.Reader) (int, error) {
	items, err := decodeFeedback(r)
	if err != nil {
		return 0, err
	}
	if len(items) == 0 {
		return 0, errors.New("no feedback lines found: expected one JSON object per line with file, comment and accepted")
	}
	return len(items), s.Add(items...)
}

// endsTorn reports whether f is non-empty and does not end with a newline.
func endsTorn(f *os.File) (bool, error) {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return false, err
	}
	var last [1]byte
	if _, err := f.ReadAt(last[:], fi.Size()-1); err != nil {
		return false, err
	}
	return last[0] != '\n', nil
}

// All returns every stored item that can be read; a missing file is an
// empty store. A line that cannot be read (cut short by a killed write,
// edited by hand) is skipped and described in skipped ("line 5: …"): one
// damaged line must not take every past comment, and every review, with
// it. err is for a store that cannot be read at all.
func (s *FeedbackStore) All() (items []Feedback, skipped []string, err error) {
	f, err := os.Open(s.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open feedback store: %w", err)
	}
	defer f.Close()
	err = lines.Each(f, func(n int, line []byte) error {
		item, ok, lerr := decodeFeedbackLine(n, line)
		switch {
		case lerr != nil:
			skipped = append(skipped, lerr.Error())
		case ok:
			items = append(items, item)
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", s.path, err)
	}
	return items, skipped, nil
}

// decodeFeedback reads items to import: the first bad line fails them all.
func decodeFeedback(r io.Reader) ([]Feedback, error) {
	var out []Feedback
	err := lines.Each(r, func(n int, line []byte) error {
		item, ok, err := decodeFeedbackLine(n, line)
		if ok {
			out = append(out, item)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// decodeFeedbackLine decodes line n; ok is false for a blank line.
func decodeFeedbackLine(n int, line []byte) (f Feedback, ok bool, err error) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return f, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return f, false, fmt.Errorf("line %d: %v (want {\"file\": …, \"line\": N, \"comment\": …, \"accepted\": true|false})", n, err)
	}
	if dec.More() {
		return f, false, fmt.Errorf("line %d: more than one JSON object (want one feedback object per line)", n)
	}
	if err := f.Validate(); err != nil {
		return f, false, fmt.Errorf("line %d: %w", n, err)
	}
	return f, true, nil
}

// ScoredFeedback is a feedback item with its distance to a diff (0 = same
// words, 1 = nothing in common), after language re-ranking.
type ScoredFeedback struct {
	Feedback
	Distance float64 `json:"distance"`
}

// Language re-ranking factors applied to feedback distances.
const (
	sameLanguageFactor  = 0.85
	otherLanguageFactor = 1.15
)

// SimilarFeedback ranks items by similarity to the diff text (TF-IDF cosine
// over code-aware tokens of comment, code and path) and returns the closest
// accepted (up to nAccepted) and rejected (up to nRejected) items. The
// distance 1−cosine is multiplied by 0.85 for items in one of the diff's
// languages and 1.15 for items in another known language; an unknown
// language on either side leaves it unchanged. Items sharing no token with
// the diff are never returned.
func SimilarFeedback(items []Feedback, diffText string, langs []string, nAccepted, nRejected int) (helpful, notHelpful []ScoredFeedback) {
	if len(items) == 0 {
		return nil, nil
	}
	docs := make([]map[string]float64, len(items))
	df := map[string]float64{}
	for i, f := range items {
		// The path counts without its extension: ".go" is shared by
		// every Go file and says nothing about the change.
		docs[i] = termFreq(f.Comment + "\n" + f.Code + "\n" + strings.TrimSuffix(f.File, path.Ext(f.File)))
		for t := range docs[i] {
			df[t]++
		}
	}
	query := termFreq(diffText)
	n := float64(len(items))
	weigh := func(tf map[string]float64) (map[string]float64, float64) {
		out := map[string]float64{}
		norm := 0.0
		for t, v := range tf {
			w := (1 + math.Log(v)) * math.Log(1+n/(1+df[t]))
			out[t] = w
			norm += w * w
		}
		return out, math.Sqrt(norm)
	}
	qv, qn := weigh(query)
	langSet := map[string]bool{}
	for _, l := range langs {
		if l != "" {
			langSet[l] = true
		}
	}
	var scored []ScoredFeedback
	for i, f := range items {
		dv, dn := weigh(docs[i])
		if qn == 0 || dn == 0 {
			continue
		}
		dotp := 0.0
		for t, w := range dv {
			dotp += w * qv[t]
		}
		if dotp <= 0 {
			continue
		}
		dist := 1 - dotp/(qn*dn)
		lang := f.Language
		if lang == "" {
			lang, _ = retrieve.LanguageOf(f.File)
		}
		switch {
		case lang == "" || len(langSet) == 0:
		case langSet[lang]:
			dist *= sameLanguageFactor
		default:
			dist *= otherLanguageFactor
		}
		scored = append(scored, ScoredFeedback{Feedback: f, Distance: dist})
	}
	sort.SliceStable(scored, func(i, j int) bool { return scored[i].Distance < scored[j].Distance })
	for _, s := range scored {
		if s.Accepted && len(helpful) < nAccepted {
			helpful = append(helpful, s)
		} else if !s.Accepted && len(notHelpful) < nRejected {
			notHelpful = append(notHelpful, s)
		}
	}
	return helpful, notHelpful
}

func termFreq(text string) map[string]float64 {
	tf := map[string]float64{}
	for _, t := range retrieve.Tokenize(text) {
		tf[t]++
	}
	return tf
}
