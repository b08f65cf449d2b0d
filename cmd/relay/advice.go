package main

import (
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/relayhq/relay/internal/advice"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/tools"
)

// printError writes a command's error to w as relay: <message>, followed
// by relay's advice for the command line (internal/advice: which command or
// flag to use), which the libraries leave out of their messages: after a
// semicolon, or as a sentence of its own after a message that is made of
// sentences. Both pass the egress filter: the last line of defence for
// secrets in URLs, whoever built the error.
func printError(w io.Writer, err error) {
	msg := egress.Default().String(err.Error())
	if a := cliAdvice(err, msg); a != "" {
		a = egress.Default().String(a)
		if strings.HasSuffix(msg, ".") {
			msg += " " + advice.Sentence(a)
		} else {
			msg += "; " + a
		}
	}
	fmt.Fprintf(w, "relay: %s\n", msg)
}

// quotedCommand is the first command an advice quotes (`relay index …`).
var quotedCommand = regexp.MustCompile("`relay [^`]*`")

// cliAdvice is the command line's advice for err, or "" when there is none
// or msg already says what to run: a message that names the command the
// advice would (in either quoting) does not get it twice.
func cliAdvice(err error, msg string) string {
	a := advice.For(err, advice.CLI)
	if a == "" {
		return ""
	}
	said := strings.ReplaceAll(msg, "'", "`")
	if strings.Contains(said, a) {
		return ""
	}
	if cmd := quotedCommand.FindString(a); cmd != "" && strings.Contains(said, cmd) {
		return ""
	}
	return a
}

// toolHints are the hints the tools end their texts with for whoever reads
// g's output: the command line's user, or the bot's (modelGlobals).
func (g *globals) toolHints() tools.Hints { return advice.ToolHints(g.surface) }
