package advice

import "strings"

// MCPGraphUnavailable is the advice the graph tool of `relay mcp` adds to
// an index it cannot open for another reason than its absence (damaged,
// unreadable, locked): the table's MCP advice when it has some, else what
// to run. An error that already says to run `relay index` gets "Then
// retry." only.
func MCPGraphUnavailable(err error) string {
	switch {
	case strings.Contains(err.Error(), "relay index"):
		return "Then retry."
	case For(err, MCP) != "":
		return Sentence(For(err, MCP))
	}
	return "Rebuild it with `relay index` in the repository root (or make the index readable, or wait for the process holding its lock), then retry."
}
