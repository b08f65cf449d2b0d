package clangcheck

import (
	"bytes"
	"testing"
)

// FuzzDecodeTU reads any input as clang's JSON AST dump: an error or a
// walk, never a panic, whatever the nesting or the locations.
func FuzzDecodeTU(f *testing.F) {
	f.Add([]byte(`{"id":"0x1","kind":"TranslationUnitDecl","loc":{},"range":{"begin":{},"end":{}},"inner":[` +
		`{"id":"0x2","kind":"FunctionDecl","loc":{"offset":4,"file":"a.c","line":1,"col":5,"tokLen":1},"range":{"begin":{"offset":0,"col":1,"tokLen":3},"end":{"offset":20,"col":21,"tokLen":1}},"name":"f","mangledName":"f","inner":[` +
		`{"id":"0x3","kind":"CompoundStmt","range":{"begin":{"offset":8},"end":{"offset":20}},"inner":[` +
		`{"id":"0x4","kind":"CallExpr","range":{"begin":{"spellingLoc":{"offset":10,"file":"a.h"},"expansionLoc":{"offset":10,"file":"a.c"}},"end":{"offset":12}},"inner":[` +
		`{"id":"0x5","kind":"ImplicitCastExpr","inner":[{"id":"0x6","kind":"DeclRefExpr","referencedDecl":{"id":"0x2","kind":"FunctionDecl","name":"f"}}]}]}]}]}]}`))
	f.Add([]byte(`{"inner":[{"kind":"LambdaExpr","inner":[{"kind":"CXXMethodDecl","id":"1","inner":[{"kind":"CompoundStmt"}]}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		u := newTU()
		_ = decodeTU(bytes.NewReader(data), func(n *jnode) error {
			u.visit(n, scope{})
			return nil
		})
		m := &merger{root: "/r", lines: map[string][]int{}, defs: map[string][]Func{}}
		r := m.collect(u, "/r")
		if _, err := m.finish([]*tuResult{r}); err != nil {
			t.Fatal(err)
		}
	})
}
