//go:build cgo

package index

import (
	"os"
	"testing"
)

func TestZZDump(t *testing.T) {
	src, _ := os.ReadFile(os.Getenv("DUMP"))
	ps := &tsParsers{}
	tr := ps.get(os.Getenv("DUMP")).Parse(src, nil)
	t.Log(tr.RootNode().ToSexp())
}
