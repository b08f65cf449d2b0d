package tools

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/relayhq/relay/graphdb"
	"github.com/relayhq/relay/internal/egress"
	"github.com/relayhq/relay/internal/safefs"
)

// Tool names, as a model calls them.
const (
	GrepName  = "grep"
	GlobName  = "glob"
	ReadName  = "read"
	GraphName = "graph"
)

// Defaults used when an Options field is zero.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultGrepLimit      = 50   // matching lines shown by grep
	MaxGrepLimit          = 1000 // the most a caller may ask for
	DefaultGrepContext    = 2    // context lines before and after a match
	MaxGrepContext        = 20
	DefaultGlobLimit      = 100 // files listed by glob
	MaxGlobLimit          = 2000
	DefaultMaxOutputBytes = 32 << 10 // bytes of Content per grep/glob call
	DefaultMaxLineBytes   = 300      // longer lines (minified code) are cut in grep output
	DefaultReadMaxLines   = 2000     // lines returned by one read
	DefaultReadMaxBytes   = 256 << 10
	DefaultReadLineBytes  = 2000 // longer lines are cut in read output
	DefaultGraphLimit     = 100  // results listed by graph
	MaxPatternBytes       = 2000 // longer regexes and globs are refused
	DefaultMaxProcs       = 8    // rg/fd processes running at once per Options
)

// InstallHint tells a person how to install the external programs the tools run.
const InstallHint = "install them with `apt-get install -y ripgrep fd-find` (Debian/Ubuntu) or `brew install ripgrep fd` (macOS)"

// Hints are what a tool's text says can be done about relay's own state:
// a missing or stale index, a refused secret-bearing file. The model that
// reads the text cannot run relay, and what the person behind it can do
// depends on where the tools run — on the command line or through MCP
// someone runs `relay index`; the bot indexes before every job and has
// nothing to run — so the surface supplies them (internal/advice's
// ToolHints) instead of the tools naming a command. Each is one or more
// whole sentences; "" adds nothing.
type Hints struct {
	// NoIndex follows the graph tool's answer when no index exists.
	NoIndex string
	// Stale follows the graph tool's answer for a symbol the graph does
	// not hold, which may have been added since the index was built.
	Stale string
	// SecretFiles follows read's refusal of a secret-bearing file and
	// grep's note of matches left out of such files: who may allow one,
	// and how.
	SecretFiles string
}

// hint is " "+h, or "" for no hint: a hint's place at the end of a text.
func hint(h string) string {
	if h == "" {
		return ""
	}
	return " " + h
}

// Options configures the tools. Root is required; every other zero field
// takes the default above.
type Options struct {
	// Root is the repository root; every path a tool touches stays inside it.
	Root string
	// Timeout bounds one tool call (waiting for a process slot included);
	// the rg/fd child process is killed when it expires, and read stops.
	Timeout time.Duration
	// GrepLimit and GlobLimit are the default caps on listed matches and files.
	GrepLimit, GlobLimit int
	// GrepContext is the default number of context lines around a match.
	GrepContext int
	// MaxOutputBytes caps the Content of grep and glob.
	MaxOutputBytes int
	// MaxLineBytes caps one line of grep output.
	MaxLineBytes int
	// ReadMaxLines and ReadMaxBytes cap one read.
	ReadMaxLines, ReadMaxBytes int
	// GraphLimit caps the results listed by graph.
	GraphLimit int
	// Private lists further folders, repository-relative and slash
	// separated, that read refuses as it does .git and .relay: relay's
	// store or state directory when it lies inside the repository under
	// another name (grep and glob skip it by the .gitignore relay writes
	// there).
	Private []string
	// SecretFiles decides which files are secret-bearing (internal/egress):
	// read refuses them with a message naming the file, the pattern and the
	// setting that allows it, and grep does not search them (rg excludes
	// FilePolicy.ExcludeGlobs; a path check drops the rest). glob still
	// lists them: a name is not a secret, and a model that sees .env listed
	// learns from read why it cannot open it. Nil means
	// egress.DefaultSecretFiles.
	SecretFiles *egress.FilePolicy
	// Graph answers the graph tool; nil means no index exists yet.
	Graph graphdb.Reader
	// Hints end the texts about relay's own state (no index, a stale one,
	// a refused secret-bearing file) with what can be done about it where
	// the tools run; the zero value adds nothing.
	Hints Hints
	// RgPath and FdPath override the programs found in PATH (rg; fd or fdfind).
	RgPath, FdPath string
	// Unconfined starts rg and fd without confining them to reading the
	// repository (internal/confine, Linux Landlock): for stand-in programs
	// that must reach elsewhere, as tests of process handling use. Off,
	// a file of the repository swapped for a symbolic link out of it
	// between rg's listing and its open is not read.
	Unconfined bool
	// Logger receives one debug line per call; nil discards.
	Logger *slog.Logger
	// MaxProcs bounds the rg and fd processes running at once (default
	// DefaultMaxProcs); a call beyond it waits for a slot within its timeout.
	// Ignored when Procs is set.
	MaxProcs int
	// Procs is the bound itself. Tools built by one Default call share one;
	// set it to share a bound between registries (e.g. every session of a
	// server). Nil: a new ProcLimit of MaxProcs.
	Procs *ProcLimit

	root *safefs.Root // opened by withDefaults; shared by the tools Default builds
}

// withDefaults validates o and fills zero fields. root is returned absolute
// with symlinks resolved, so containment checks compare like with like.
func (o Options) withDefaults() (Options, error) {
	if o.Root == "" {
		return o, errors.New("tools: Options.Root is empty; pass the repository root")
	}
	abs, err := filepath.Abs(o.Root)
	if err != nil {
		return o, fmt.Errorf("tools: resolve root %q: %w", o.Root, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return o, fmt.Errorf("tools: repository root %s: %w", abs, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return o, fmt.Errorf("tools: repository root %s: %w", abs, err)
	}
	if !fi.IsDir() {
		return o, fmt.Errorf("tools: repository root %s is not a directory", abs)
	}
	o.Root = real
	var private []string
	for _, p := range o.Private {
		p = path.Clean(filepath.ToSlash(p))
		if p != "." && p != ".." && !strings.HasPrefix(p, "../") && !path.IsAbs(p) {
			private = append(private, p)
		}
	}
	o.Private = private
	o.SecretFiles = egress.PolicyOrDefault(o.SecretFiles)
	if o.root == nil || o.root.Dir() != real {
		if o.root, err = safefs.OpenRoot(real); err != nil {
			return o, fmt.Errorf("tools: %w", err)
		}
	}
	if o.Procs == nil {
		o.Procs = NewProcLimit(o.MaxProcs)
	}
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	def(&o.GrepLimit, DefaultGrepLimit)
	def(&o.GlobLimit, DefaultGlobLimit)
	if o.GrepContext < 0 {
		o.GrepContext = 0
	} else if o.GrepContext == 0 {
		o.GrepContext = DefaultGrepContext
	}
	def(&o.MaxOutputBytes, DefaultMaxOutputBytes)
	def(&o.MaxLineBytes, DefaultMaxLineBytes)
	def(&o.ReadMaxLines, DefaultReadMaxLines)
	def(&o.ReadMaxBytes, DefaultReadMaxBytes)
	def(&o.GraphLimit, DefaultGraphLimit)
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o, nil
}

// findProgram returns override when set (checking it exists), else the first
// of names found in PATH.
func findProgram(override string, what string, names ...string) (string, error) {
	if override != "" {
		p, err := exec.LookPath(override)
		if err != nil {
			return "", fmt.Errorf("tools: %s program %q: %w; %s", what, override, err, InstallHint)
		}
		return p, nil
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("tools: %s not found in PATH (looked for %v); %s", what, names, InstallHint)
}

// Default builds the registry of the four tools: grep, glob, read and graph.
// It fails when rg or fd is missing, naming the command that installs them.
// The tools share one Root and one ProcLimit (opts.Procs, or a new one of
// opts.MaxProcs), so however many calls run at once, at most that many rg
// and fd processes do.
func Default(opts Options) (*Registry, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	g, err := NewGrep(opts)
	if err != nil {
		return nil, err
	}
	gl, err := NewGlob(opts)
	if err != nil {
		return nil, err
	}
	r, err := NewRead(opts)
	if err != nil {
		return nil, err
	}
	gr, err := NewGraph(opts)
	if err != nil {
		return nil, err
	}
	return NewRegistry(g, gl, r, gr), nil
}
