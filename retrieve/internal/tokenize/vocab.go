package tokenize

// Vocab numbers the terms of the texts it tokenizes: the ids of a term are
// dense, from 0, in the order the terms were first met. It also remembers
// the terms of each distinct word it met: identifiers repeat, and a word
// seen before costs one lookup instead of being lower-cased, split,
// stemmed and looked up term by term. A Vocab is not safe for concurrent
// use; the search index's build gives each goroutine its own.
type Vocab struct {
	tk      tokenizer
	ids     map[string]int32
	terms   []string // by id; copies, so that a term does not pin a file's text
	words   wordTable
	wordIDs []int32 // the term ids of the words, wordSlot locates them
	out     []int32 // where add appends
	add     func([]byte)
	word    func(string, uint32)
}

// NewVocab returns an empty vocabulary.
func NewVocab() *Vocab {
	v := &Vocab{ids: map[string]int32{}}
	v.words.grow()
	v.add = func(t []byte) {
		id, ok := v.ids[string(t)]
		if !ok {
			s := string(t)
			id = int32(len(v.terms))
			v.ids[s] = id
			v.terms = append(v.terms, s)
		}
		v.out = append(v.out, id)
	}
	v.word = func(w string, h uint32) {
		if len(w) > maxWordLen {
			return // no terms; and such runs are data, rarely repeated
		}
		if s := v.words.find(w, h); s.len != 0 {
			v.out = append(v.out, v.wordIDs[s.off:s.off+int32(s.n)]...)
			return
		}
		start := len(v.out)
		v.tk.wordTerms(w, v.add)
		v.words.insert(w, h, len(v.wordIDs), len(v.out)-start)
		v.wordIDs = append(v.wordIDs, v.out[start:]...)
	}
	return v
}

// AppendIDs appends the ids of Text(text) to dst.
func (v *Vocab) AppendIDs(dst []int32, text string) []int32 {
	v.out = dst
	scanWords(text, v.word)
	dst, v.out = v.out, nil
	return dst
}

// AppendPathIDs appends the ids of Path(p) to dst.
func (v *Vocab) AppendPathIDs(dst []int32, p string) []int32 {
	v.out = dst
	v.tk.pathTerms(p, v.add)
	dst, v.out = v.out, nil
	return dst
}

// Terms returns the terms by id. The slice grows as v meets new terms; the
// caller must not change it.
func (v *Vocab) Terms() []string { return v.terms }
