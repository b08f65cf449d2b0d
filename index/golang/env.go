package golang

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/relayhq/relay/index/internal/frontend"
)

// DESIGN: the go command never reaches the network, switches toolchain or
// writes into the repository on the repository's behalf.
//
// A go.mod is input from whoever wrote the repository: its require lines
// name modules on any host, its go and toolchain lines ask for a toolchain
// to download. Started with the caller's environment, `go list` would
// fetch them (GOTOOLCHAIN=auto, GOPROXY with a direct fallback), and with
// -mod=mod it would also write go.mod and go.sum into the checkout. So
// every go command the indexer starts gets, whatever the caller's
// environment says:
//
//   - GOTOOLCHAIN=local: the installed go runs; a module asking for a newer
//     one fails to list, and that failure is the module's error
//     (Summary.Errors) while the rest of the repository is indexed;
//   - GOVCS=*:off: no version-control fetch, even for a proxy list ending
//     in "direct";
//   - GOPROXY=off and GOSUMDB=off by default (Options.GoProxy ""): modules
//     resolve from the module cache alone, an import of a module not there
//     is that package's error; Options.GoProxy names a proxy list the
//     operator allows instead (GOSUMDB is then left as the caller set it);
//   - GOFLAGS of the caller without its -mod and -modfile flags, plus, for
//     a module listed on its own that is not vendored, -mod=mod (imports
//     resolve from the cache even when go.mod or go.sum lag behind) and
//     -modfile naming a copy of its go.mod (and go.sum) in a temporary
//     directory, so that whatever the go command would write lands in the
//     copy, never in the repository. A vendored module (vendor/modules.txt)
//     and the modules of a go.work keep the go command's default mode
//     (vendor; readonly, since workspace mode refuses -mod=mod and
//     -modfile).

// goEnv is the environment settings of the go command, added after the
// caller's environment (later entries win).
type goEnv struct {
	proxy string // Options.GoProxy: "" is "off"
	tmp   string // directory for the go.mod copies; made on first use
	// copies maps each copy (absolute) to the go.mod it copies
	// (repo-relative), for messages; written before the groups start.
	copies map[string]string
}

// base returns the settings every go command gets.
func (e *goEnv) base() []string {
	proxy := e.proxy
	out := []string{"GOTOOLCHAIN=local", "GOVCS=*:off"}
	if proxy == "" || proxy == "off" {
		out = append(out, "GOPROXY=off", "GOSUMDB=off")
	} else {
		out = append(out, "GOPROXY="+proxy)
	}
	return out
}

// forGroup returns the settings of one go list group: the base settings
// and GOFLAGS. For a module listed alone (not in a workspace, not
// vendored) it copies the module's go.mod and go.sum into e.tmp and names
// the copy with -modfile. read opens repository files beneath the root.
func (e *goEnv) forGroup(grp listGroup, read func(rel string) ([]byte, error)) ([]string, error) {
	flags := callerGoFlags(os.Getenv("GOFLAGS"))
	env := e.base()
	if grp.module && !vendored(grp.dir) {
		modfile, err := e.copyModFile(grp.goMod, read)
		if err != nil {
			return nil, err
		}
		flags = append(flags, "-mod=mod", "-modfile="+modfile)
	}
	return append(env, "GOFLAGS="+strings.Join(flags, " ")), nil
}

// callerGoFlags returns the flags of the caller's GOFLAGS except -mod and
// -modfile, which the indexer sets itself.
func callerGoFlags(goflags string) []string {
	var out []string
	for _, f := range strings.Fields(goflags) {
		name, _, _ := strings.Cut(strings.TrimLeft(f, "-"), "=")
		if name == "mod" || name == "modfile" {
			continue
		}
		out = append(out, f)
	}
	return out
}

// vendored reports whether the module in dir vendors its dependencies: the
// go command then lists from vendor/, offline, in its default mode.
func vendored(dir string) bool {
	st, err := os.Lstat(filepath.Join(dir, "vendor", "modules.txt"))
	return err == nil && st.Mode().IsRegular()
}

// copyModFile copies goMod and the go.sum beside it into a directory of
// its own under e.tmp and returns the copy of goMod.
func (e *goEnv) copyModFile(goMod string, read func(rel string) ([]byte, error)) (string, error) {
	if e.tmp == "" {
		dir, err := os.MkdirTemp("", "relay-gomod-")
		if err != nil {
			return "", fmt.Errorf("make a directory for go.mod copies: %w", err)
		}
		e.tmp = dir
	}
	dir, err := os.MkdirTemp(e.tmp, "m")
	if err != nil {
		return "", fmt.Errorf("make a directory for a go.mod copy: %w", err)
	}
	data, err := read(goMod)
	if err != nil {
		return "", fmt.Errorf("read %s: %s", goMod, frontend.Reason(err))
	}
	dst := filepath.Join(dir, "go.mod")
	if err := os.WriteFile(dst, data, 0o600); err != nil {
		return "", fmt.Errorf("copy %s: %w", goMod, err)
	}
	if e.copies == nil {
		e.copies = map[string]string{}
	}
	e.copies[dst] = goMod
	// A go.sum that is missing or unfit to read (a FIFO, a link outside)
	// is left out: the go command then reports the sums it misses.
	if sum, err := read(path.Join(path.Dir(goMod), "go.sum")); err == nil {
		if err := os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o600); err != nil {
			return "", fmt.Errorf("copy the go.sum beside %s: %w", goMod, err)
		}
	}
	return dst, nil
}

// close removes the go.mod copies.
func (e *goEnv) close() {
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
		e.tmp = ""
	}
}

// listFailure is the message of a go list group that failed as a whole
// (a go.mod the installed go rejects): the go command's own words, without
// go/packages' wrapping ("err: exit status 1: stderr: …"), naming the
// repository's go.mod where the go command named its copy.
func listFailure(err error, copies map[string]string) string {
	msg := err.Error()
	if _, after, ok := strings.Cut(msg, "stderr: "); ok {
		msg = after
	}
	for cp, rel := range copies {
		msg = strings.ReplaceAll(msg, cp, rel)
	}
	msg = strings.TrimSpace(msg)
	lines := strings.Split(msg, "\n")
	if len(lines) > 5 {
		lines = append(lines[:5], fmt.Sprintf("… (%d more lines)", len(lines)-5))
	}
	return strings.Join(lines, "; ")
}
