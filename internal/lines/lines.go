// Package lines owns reading text by lines: [Each] for line-oriented
// streams (JSONL) of any line length, [Split] for whole file contents.
package lines

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Each calls fn with every line of r and its 1-based number, the line
// without its "\n", however long it is: JSONL files (feedback, instances)
// carry code and long texts on one line, and a bufio.Scanner would stop at
// its token limit with "token too long".
func Each(r io.Reader, fn func(n int, line []byte) error) error {
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

// Split splits file content into lines without their terminators ("\n" or
// "\r\n"); a final newline does not start an empty line.
func Split(data string) []string {
	data = strings.TrimSuffix(data, "\n")
	if data == "" {
		return nil
	}
	ls := strings.Split(data, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// One collapses s to one line (runs of white space become one space) and
// cuts it after max bytes, marking the cut with "…".
func One(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = s[:max] + "…"
	}
	return s
}
