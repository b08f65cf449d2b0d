// Package udiff owns parsing unified diffs (the output of `git diff` and
// `diff -u`): [Parse] turns one into a [FileDiff] per file with its status
// (added, deleted, modified, renamed), binary flag and [Hunk]s, with the
// changed line numbers on both sides. It imports nothing of relay's, so
// review, eval and the CLI share it.
//
// Parse reads lines of any length (a bufio.Reader, not a Scanner), accepts
// git's quoted paths, and rejects a hunk whose counts disagree with its
// lines, naming the line. A diff without any file change is [ErrEmpty].
// FuzzParseDiff checks its invariants on arbitrary input.
package udiff
