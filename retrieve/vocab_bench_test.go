package retrieve

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkVocabLines tokenizes the Go files of the standard library line
// by line into block vocabularies, as chunkFiles does, without reading,
// chunking or merging: the tokenizer and the word table alone.
//
//	go test ./retrieve -run '^$' -bench VocabLines -benchtime 5x
func BenchmarkVocabLines(b *testing.B) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("go env GOROOT:", err)
	}
	var texts []string
	size := 0
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		data, err := os.ReadFile(p)
		texts = append(texts, string(data))
		size += len(data)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for range b.N {
		fc := newFileCounter()
		for i, text := range texts {
			if i%282 == 0 {
				fc.chunks.Reset()
				fc.files.Reset()
			}
			fc.tokenizeLines(text)
		}
	}
}
