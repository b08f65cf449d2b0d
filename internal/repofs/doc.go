// Package repofs owns how relay sees a repository's tree: its ignore rules
// (git's .gitignore semantics), the one walk of its files that both the
// code-graph indexer and the search index make, and the table that names
// the language of a file.
//
// Ignore rules (Ignores) are git's: .git/info/exclude, the root .gitignore
// and each nested .gitignore as the walk enters its directory, with
// negations, directory-only patterns, anchoring, "**" and escapes. One
// pattern is matched by go-git's gitignore package, a maintained library
// made for the job; what it leaves to its caller is done here: reading the
// lines (comments, unescaped trailing spaces, "\r"), git's rule that
// nothing inside an excluded directory can be re-included, and three
// rewrites where go-git's matcher differs from git (a trailing "/**" does
// not match the directory itself, "/**" matches everything, "[!...]" is a
// negated class). A pattern with a "**" before its last name ("a/**/b/c",
// "**/foo/bar") is matched here instead (deep.go): go-git never
// backtracks, so it missed a/b/x/b/c for "a/**/b/c". A pattern with no
// "/" is matched against each directory's names once, then against each
// file's own name (match.go), so that a file costs its rules, not its
// depth times its rules; the answers stay go-git's. The user's
// global excludes file is not read: it is not part of the repository, and
// what relay indexes must not depend on who runs it. Ignore files are read
// beneath the root only (internal/safefs).
//
// The walk (Walk) visits entries in lexical order, listing each directory
// before handing it over (its listing says whether it holds a .gitignore
// to read), and never follows a symbolic link: a link is handed to the caller as what it is, and the
// caller decides whether it is worth a note. SkipDirs are never entered
// nor handed over. The list is the union of what the indexer and the
// search index skipped before they shared this walk: version-control
// metadata (.git, .hg, .svn), relay's own store (.relay), editors' state
// (.idea, .vscode) and other people's code (vendor, node_modules,
// site-packages, dist-packages, Python virtual environments: .venv and any
// directory holding pyvenv.cfg) and byte-code caches (__pycache__). The
// indexer also skips every other hidden directory (Options.SkipHidden);
// the search index keeps them (.github holds workflows worth finding).
//
// The language table (Language) maps a file's extension or base name to a
// language name; a file whose language is unknown is not searched. The
// indexer's languages claim their source files from the same table, each
// refining it (TypeScript leaves out minified bundles), so that the search
// index and the code graph agree on which files are of a language.
package repofs
