package clangcheck

import (
	"encoding/json"
	"fmt"
	"io"
)

// jnode is one node of clang's JSON AST dump, with the fields the check
// reads.
type jnode struct {
	ID                   string   `json:"id"`
	Kind                 string   `json:"kind"`
	Loc                  *jloc    `json:"loc"`
	Range                *jrange  `json:"range"`
	Name                 string   `json:"name"`
	MangledName          string   `json:"mangledName"`
	IsImplicit           bool     `json:"isImplicit"`
	StorageClass         string   `json:"storageClass"`
	PreviousDecl         string   `json:"previousDecl"`
	ReferencedDecl       *jref    `json:"referencedDecl"`
	ReferencedMemberDecl string   `json:"referencedMemberDecl"`
	Type                 *jtype   `json:"type"`
	CtorType             *jtype   `json:"ctorType"`
	Inner                []*jnode `json:"inner"`
}

type jref struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type jtype struct {
	QualType string `json:"qualType"`
}

// jbare is a location without macro detail. Offset is absent for an
// invalid location (builtins); File is absent when it is the file of the
// location written before it (see tracker).
type jbare struct {
	Offset *int   `json:"offset"`
	File   string `json:"file"`
}

type jloc struct {
	jbare
	Spelling  *jbare `json:"spellingLoc"`
	Expansion *jbare `json:"expansionLoc"`
}

type jrange struct {
	Begin jloc `json:"begin"`
	End   jloc `json:"end"`
}

// pos is a resolved location: the file as clang names it (relative to
// the command's directory or absolute) and the byte offset in it.
type pos struct {
	file   string
	offset int
}

func (p pos) valid() bool { return p.file != "" }

// tracker undoes the delta encoding of locations in clang's JSON dump.
//
// DESIGN: clang writes a location's "file" (and "line") only when it
// differs from the location it wrote last, in the order of the text:
// a declaration's loc, then its range's begin and end (each as spelling
// then expansion location when a macro is involved), then its inner
// nodes. visit walks the decoded tree in that same order, so the last
// file seen is the file of a location that names none. Lines are not
// taken from the dump (they honour #line directives, as in bison output)
// but computed from the offsets, which clang always writes.
type tracker struct{ file string }

func (t *tracker) bare(b *jbare) pos {
	if b == nil || b.Offset == nil {
		return pos{}
	}
	if b.File != "" {
		t.file = b.File
	}
	return pos{file: t.file, offset: *b.Offset}
}

// loc resolves l to its expansion location: where the text stands in
// the file (the macro's use for text a macro wrote).
func (t *tracker) loc(l *jloc) pos {
	if l == nil {
		return pos{}
	}
	if l.Spelling != nil || l.Expansion != nil {
		t.bare(l.Spelling)
		return t.bare(l.Expansion)
	}
	return t.bare(&l.jbare)
}

// node consumes n's own locations in the dump's order and returns its
// loc and the begin of its range.
func (t *tracker) node(n *jnode) (loc, begin pos) {
	loc = t.loc(n.Loc)
	if n.Range != nil {
		begin = t.loc(&n.Range.Begin)
		t.loc(&n.Range.End)
	}
	return loc, begin
}

// decodeTU streams a translation unit's dump: the TranslationUnitDecl's
// top-level declarations are decoded and handed to fn one at a time, so
// that memory holds one of them (a namespace std is still whole).
func decodeTU(r io.Reader, fn func(*jnode) error) error {
	dec := json.NewDecoder(r)
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("read AST dump: %w", err)
		}
		if key, _ := tok.(string); key != "inner" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return fmt.Errorf("read AST dump: %w", err)
			}
			continue
		}
		if err := expectDelim(dec, '['); err != nil {
			return err
		}
		for dec.More() {
			var n jnode
			if err := dec.Decode(&n); err != nil {
				return fmt.Errorf("read AST dump: %w", err)
			}
			if err := fn(&n); err != nil {
				return err
			}
		}
		if err := expectDelim(dec, ']'); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return fmt.Errorf("read AST dump: %w", err)
	}
	if tok != d {
		return fmt.Errorf("read AST dump: want %v, got %v", d, tok)
	}
	return nil
}
