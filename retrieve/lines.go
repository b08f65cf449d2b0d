package retrieve

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// eachLine calls fn with every line of r and its 1-based number, the line
// without its "\n", however long it is: JSONL files (feedback, instances)
// carry code and long texts on one line, and a bufio.Scanner would stop at
// its token limit with "token too long".
func eachLine(r io.Reader, fn func(n int, line []byte) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if line[len(line)-1] == '\n' {
				line = line[:len(line)-1]
			}
			if ferr := fn(n, line); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
}
