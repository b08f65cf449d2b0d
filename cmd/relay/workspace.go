package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/relayhq/relay/workspace"
)

// defaultKeyPath is where the store key lives when RELAY_STORE_KEY is not
// set; tests point it at a file of their own.
var defaultKeyPath = workspace.DefaultKeyPath

// workspaces are the workspaces of one invocation, one per root.
type workspaces struct {
	mu sync.Mutex
	m  map[string]*workspace.Workspace
}

// ws returns the workspace of root under the global flags (--store,
// --state, --trust-store, the secret-file policy), made once per root.
func (g *globals) ws(root string) *workspace.Workspace {
	g.wss.mu.Lock()
	defer g.wss.mu.Unlock()
	if w := g.wss.m[root]; w != nil {
		return w
	}
	if g.wss.m == nil {
		g.wss.m = map[string]*workspace.Workspace{}
	}
	o := g.wsOptions(root)
	o.Store, o.State, o.TrustStore = g.store, g.state, g.trustStore
	o.ArangoPassword = g.getenv("RELAY_ARANGO_PASSWORD")
	w := workspace.New(o)
	g.wss.m[root] = w
	return w
}

// wsOptions are the options every workspace of the process shares: the
// store key, the secret-file policy, the log and stderr for notices.
func (g *globals) wsOptions(root string) workspace.Options {
	return workspace.Options{Root: root, KeyFile: g.keyFile(), SecretFiles: g.secrets, Log: g.log, Advice: cliNames, Hints: g.toolHints(),
		Notify: func(msg string) { fmt.Fprintln(g.stderr, msg) }}
}

// keyFile is the store key's file: RELAY_STORE_KEY, or the default path.
func (g *globals) keyFile() string {
	if p := g.getenv("RELAY_STORE_KEY"); p != "" {
		return p
	}
	p, err := defaultKeyPath()
	if err != nil {
		return "" // the workspace finds the same error and reports it
	}
	return p
}

// closeOffline releases what the workspaces of this invocation opened.
func (g *globals) closeOffline() {
	g.wss.mu.Lock()
	defer g.wss.mu.Unlock()
	for _, w := range g.wss.m {
		w.Close()
	}
}

// cliErr gives a workspace error its exit status: a store or state
// location that cannot be used is a usage error (2), an interrupted run
// exits 130, as a shell command stopped by Ctrl-C.
func cliErr(err error) error {
	var ie *workspace.InterruptedError
	switch {
	case err == nil:
		return nil
	case workspace.IsConfig(err):
		return usageErr(err)
	case errors.As(err, &ie):
		return &exitError{code: 130, err: err}
	}
	return err
}

func (g *globals) storeDir(root string) (string, error) {
	dir, err := g.ws(root).StoreDir()
	return dir, cliErr(err)
}

func (g *globals) stateDir(root string) (string, error) {
	dir, err := g.ws(root).StateDir()
	return dir, cliErr(err)
}

// cliNames are the flags, variables and commands that change what the
// workspace's errors and notices are about.
var cliNames = workspace.Advice{
	Store: "--store", State: "--state", Index: "relay index", NoTranscript: "--no-transcript",
	Trust:   "set RELAY_TRUST_STORE=1 or pass --trust-store",
	KeyFile: "set RELAY_STORE_KEY to a file relay may create",
}
