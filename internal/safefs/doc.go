// Package safefs owns reading files beneath a repository root on someone
// else's behalf — a model's tool call, the indexer, the search index — so
// that nothing outside the root is read and nothing can hang the reader.
//
// What it guarantees, in one place for every caller:
//
//   - One-step opens beneath the root: a path is checked lexically (NUL
//     bytes, length, ".." or an absolute path leaving the root) and then
//     opened through an os.Root, which resolves each component relative to
//     an open directory descriptor (openat) and refuses symbolic links that
//     leave it. Nothing is checked by name and then reopened by name, so a
//     file swapped for a link to /etc/passwd in between is not read.
//   - Only regular files (and, for Open, directories): files are opened
//     non-blocking and the open descriptor is fstat-ed, so a FIFO or device,
//     even one swapped in after a check, neither hangs the reader nor is read.
//   - Size caps: ReadFile refuses a file over the caller's limit, and stops
//     reading one that grows past it.
//   - Errors that never name an absolute path outside the root: a
//     *PathError's message names the path as given (capped, see Quote) or
//     relative to the root; Reason gives a few words for a note.
//
// ReadRegular is the same open for a file the caller itself names outside
// any repository (a dependency's source file): non-blocking, regular files
// only. DisplayPath and Quote are how paths and arguments appear in those
// messages, and in the tools' output that cites them.
//
// DESIGN: os.Root refuses every symbolic link whose target is absolute, and
// every ".." that climbs above the root even when it lands back inside.
// Such a path is rewritten once to its repository-relative form by reading
// the links through the same os.Root (canon) and opened again beneath the
// root: still one open beneath the root, never an open by an absolute name.
package safefs
