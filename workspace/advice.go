package workspace

import "fmt"

// Advice says how the user changes what a message of the workspace is
// about — the CLI's flags and commands, or nothing where the reader cannot
// act (the bot's log) — so that the package's errors and notices name no
// setting of one caller. Empty fields leave that advice out.
type Advice struct {
	Store   string // the setting of the store's location, e.g. "--store"
	State   string // the setting of the state directory, e.g. "--state"
	Trust   string // how to trust a store shared on purpose
	KeyFile string // how to name the store key's file
	Index   string // the command that indexes the repository, e.g. "relay index"
	// NoTranscript is the setting that keeps no transcript.
	NoTranscript string
}

// store names the store's setting in a message.
func (a Advice) store() string { return or(a.Store, "store") }

// state names the state directory's setting in a message.
func (a Advice) state() string { return or(a.State, "state directory") }

// writable is the advice on a state directory that cannot be written.
func (a Advice) writable() string {
	if a.State == "" {
		return ""
	}
	return fmt.Sprintf("pass %s DIR for a writable place", a.State)
}

// indexer is the advice that the index is kept up to date by indexing.
func (a Advice) indexer() string {
	if a.Index == "" {
		return ""
	}
	return fmt.Sprintf(" (%s keeps it up to date)", a.Index)
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
