package workspace

import (
	"fmt"
	"os"
	"path/filepath"
)

// HistoryFile returns the file of relay ask's REPL history in the state
// directory, private to its owner (0600), or "" (no history) when that
// directory cannot be written, which it says.
func (w *Workspace) HistoryFile() (string, error) {
	dir, err := w.StateDir()
	if err != nil {
		return "", err
	}
	if !Writable(dir) {
		msg := fmt.Sprintf("relay: %s cannot be written, so the REPL keeps no history", dir)
		if a := w.o.Advice.writable(); a != "" {
			msg += " (" + a + ")"
		}
		w.notify(msg)
		return "", nil
	}
	if dir, err = w.PrepareStateDir(); err != nil {
		return "", err
	}
	// The questions are as private as the transcripts (0600): the line
	// editor would create the file 0644 (0666 less the umask) and keep
	// whatever mode an existing one has.
	p := filepath.Join(dir, "history")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("open the REPL history: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := f.Chmod(0o600); err != nil {
			return "", fmt.Errorf("make the REPL history private: %w", err)
		}
	}
	return p, nil
}
