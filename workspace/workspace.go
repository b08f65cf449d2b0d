package workspace

import (
	"errors"
	"log/slog"
	"sync"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/retrieve"
	"github.com/relayhq/relay/tools"
)

// Options say which repository a Workspace is and where relay keeps its
// files for it.
type Options struct {
	// Root is the repository: an absolute path to an existing directory.
	Root string
	// Store is where the graph lives: "" for <Root>/.relay, a directory for
	// the embedded store, or arangodb://host:port/db.
	Store string
	// State is where everything else relay writes goes (the search index,
	// review feedback, transcripts, REPL history); "" for the embedded
	// store's directory (see StateDir).
	State string
	// TrustStore believes an embedded store relay did not write for this
	// user (see storekey.go).
	TrustStore bool
	// KeyFile is the store key's file; "" for DefaultKeyPath().
	KeyFile string
	// ArangoPassword is the ArangoDB password when the Store URL has none.
	ArangoPassword string
	// SecretFiles is the secret-bearing file policy (nil: the filter's).
	SecretFiles *egress.FilePolicy
	// Filter is the egress filter that learns the checkout's secret-file
	// values (nil: egress.Default(), the process-wide one).
	Filter *egress.Filter
	// Log receives debug and info records; nil discards them.
	Log *slog.Logger
	// Advice names the caller's settings in errors and notices.
	Advice Advice
	// Hints end the tools' model-facing texts for whoever reads them
	// (tools.Options.Hints; internal/advice.ToolHints).
	Hints tools.Hints
	// Notify receives what a person running relay should see (an index
	// rebuilt from scratch, a directory that cannot be written), one
	// message at a time without a trailing newline; nil logs them.
	Notify func(msg string)
}

// Workspace is a repository and relay's files for it. Its methods are safe
// for concurrent use; Close releases what OfflineReport opened.
type Workspace struct {
	o Options

	valuesOnce sync.Once
	values     []string // the secret-file values of Root, read once
	valuesErr  error

	offMu  sync.Mutex
	offSt  graphdb.Store
	offS   *retrieve.Searcher
	offErr error
}

// New returns the workspace of o.Root. It reads nothing yet: a bad Store
// or State is reported by the first method that needs it.
func New(o Options) *Workspace {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	if o.Filter == nil {
		o.Filter = egress.Default()
	}
	if o.SecretFiles == nil {
		o.SecretFiles = o.Filter.Files()
	}
	return &Workspace{o: o}
}

// Root is the repository's directory.
func (w *Workspace) Root() string { return w.o.Root }

// Log is the workspace's logger.
func (w *Workspace) Log() *slog.Logger { return w.o.Log }

// Hints are the hints the workspace's tools end their texts with.
func (w *Workspace) Hints() tools.Hints { return w.o.Hints }

// SecretFiles is the secret-bearing file policy.
func (w *Workspace) SecretFiles() *egress.FilePolicy { return w.o.SecretFiles }

// notify hands msg to Options.Notify, or logs it.
func (w *Workspace) notify(msg string) {
	if w.o.Notify != nil {
		w.o.Notify(msg)
		return
	}
	w.o.Log.Info(msg)
}

// Close releases the store and searcher OfflineReport keeps open.
func (w *Workspace) Close() error {
	w.offMu.Lock()
	defer w.offMu.Unlock()
	if w.offSt == nil {
		return nil
	}
	err := w.offSt.Close()
	w.offSt = nil
	return err
}

// ConfigError is a store or state location that cannot be used as given
// (an unknown scheme, the repository itself, a source folder): what was
// configured is wrong, not the repository.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

func configErr(err error) error { return &ConfigError{err} }

// IsConfig reports whether err is (or wraps) a *ConfigError.
func IsConfig(err error) bool {
	var c *ConfigError
	return errors.As(err, &c)
}
