// Package mdfence owns one piece of markdown: a fenced code block whose
// fence is longer than any run of backticks inside the code, so that
// nothing in the code can close it early. It imports nothing of relay's:
// internal/publish (a report shown as typed) and tracker/adf (an ADF code
// block as markdown) both fence with it.
package mdfence

import "strings"

// Fence returns code as a fenced block with info string lang ("" for
// none): a fence of at least three backticks, one more than the longest
// run in code, then lang, a newline, code, a newline and the fence.
func Fence(code, lang string) string {
	run, longest := 0, 0
	for _, c := range code {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	return f + lang + "\n" + code + "\n" + f
}
