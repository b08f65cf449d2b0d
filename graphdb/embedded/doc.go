// Package embedded is relay's default graph store: a directory (by default
// <repo>/.relay) holding a SQLite database written through the pure-Go
// modernc.org/sqlite driver. No server; one writer and any number of
// concurrent readers, in this process and others; crash-safe.
//
// Open a store with Open(DefaultDir(repoRoot), Options{}); the indexer
// writes with Begin → ReplaceFile/DeleteFile → Commit; everything else
// reads through the graphdb.Reader methods and graphdb.Traverse.
package embedded
