// Package archdoc keeps ARCHITECTURE.md and AGENTS.md true to the code. It
// holds no code: its test lists the module's packages and their imports
// (golang.org/x/tools/go/packages, the library `go list` is read through)
// and reads the two documents as Markdown (goldmark, the parser relay already
// uses), then fails when
//
//   - a package is missing from ARCHITECTURE.md's package map (the table
//     under "## Packages") or from the table in AGENTS.md;
//   - either table names a path that is no package (AGENTS.md may also name
//     a directory that exists, such as examples or scripts);
//   - an import between the module's packages breaks the import rules (the
//     `imports` block under "## Import rules" in ARCHITECTURE.md), or a
//     rule names no package.
//
// Every failure names the package and the file and section to edit.
//
//	go test ./internal/archdoc
package archdoc
