// Package tools owns what a model can do to a repository: the Tool interface,
// the Registry, and the grep (ripgrep), glob (fd), read, graph and search
// tools, with their sandboxing (every path stays inside the repository
// root), per-call timeouts and output caps. Descriptions live in embedded
// .md files (grep.md, glob.md, read.md, graph.md, search.md), each with a
// worked example. The search tool (NewSearch) runs over a Searcher, an
// interface that retrieve's *Searcher satisfies: retrieve imports tools
// (for the query and answer types), so tools holds the interface, not the
// type.
//
// Error contract: a Result with IsError is something the model did wrong or
// should know (bad arguments, no such file, bad regex) and goes back to it; a
// Go error from Call means the infrastructure failed (or the caller's
// context was cancelled) and ends the run. "No matches" is not an error.
//
// Use:
//
//	reg, err := tools.Default(tools.Options{Root: root, Graph: store}) // fails if rg/fd are missing
//	grep, _ := reg.Get(tools.GrepName)
//	res, err := grep.Call(ctx, json.RawMessage(`{"pattern": "func main", "include": "*.go"}`))
//	fmt.Println(res.Content) // what the model sees; res.Meta is a *GrepMeta
//
// Each tool is also a concrete type (Grep, Glob, Read, Graph) with a typed
// Run(ctx, XParams). The graph logic shared with `relay graph` is
// AnswerGraph, whose GraphAnswer prints as prose (Text) or JSON (GraphJSON).
//
// # Sandbox
//
// Paths and patterns are relative to Options.Root. NUL bytes, ".." segments
// that leave the root, absolute paths elsewhere and symlinks resolving
// outside the root (dangling ones included) are refused with an error
// Result. Every file read on a model's behalf — read's files and directory
// listings, the stats of grep and glob, the search tool's snippets, the
// answer's citation checks — is opened beneath the root in one step through
// internal/safefs (os.Root), never checked by name and reopened, so
// swapping a file for a symlink mid-call leaks nothing; only regular files
// and directories are opened (non-blocking, checked on the open
// descriptor), so a FIFO or device cannot hang a call. Messages name repository-relative paths only, and
// quote a model's argument at most 200 bytes long. rg and fd do not follow
// symlinks, and on Linux they start confined by Landlock to reading the
// root (internal/confine; Options.Unconfined turns it off): rg opens the
// files it listed by name, and a file swapped for a symlink out of the
// root in between fails to open instead of being read; the .git and .relay directories are never searched, and read
// refuses paths into them and into Options.Private (by name at any depth,
// and through a link: .git/config may hold credentials, .relay past
// transcripts); .gitignore
// is honoured (also outside a git work tree). File names that would be
// ambiguous on a line (newlines, invalid UTF-8…) are printed Go-quoted, and
// read accepts them in that form.
//
// # Processes and limits
//
// rg and fd run in their own process group under Options.Timeout (default
// 30 s); when it expires, or the caller's context ends, the whole group is
// killed and the call returns within a couple of seconds with what it had
// (saying it is incomplete). At most Options.MaxProcs (default 8) of them
// run at once per ProcLimit — one shared by the tools of a Default registry
// — and further calls wait for a slot. rg stops at --max-count matching
// lines per file and --max-columns bytes per line, since it holds a file's
// output in memory until the file is done, and is killed once 64 MB of its
// output has been read. Output is capped by count (grep 50 lines, glob 100
// files, graph 100 results), by bytes (32 KB; read 256 KB / 2000 lines) and
// by line length, and every cap says so in the text ("truncated: N more …",
// "at least") and in the call's Meta.
//
// On Linux an rg or fd child dies with relay (SysProcAttr.Pdeathsig, and
// internal/confine keeps the thread that forked it alive as long as it
// runs), so `kill -9` of relay leaves no search running. What rg and fd
// print on stderr reaches the model only through cleanStderr: paths
// beneath the root are made repository-relative, and a line naming a path
// outside it (an ignore file above the root, whose lines rg quotes when it
// cannot parse them) is withheld, with one line saying how many were.
//
// DESIGN: grep keeps the first N matches by (path, line) although rg walks
// files in parallel and emits them in any order — see grepCollector — so the
// answer is deterministic (replayable transcripts) without paying for
// rg --sort, which is single-threaded.
package tools
