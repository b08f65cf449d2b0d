// Package confine runs the external programs relay starts on a model's
// behalf (rg, fd) with their file system access confined, by Linux
// Landlock, to the repository (read only), what the program needs to
// start (its executable, the system's programs and shared libraries, the
// loader's cache) and the ignore files rg and fd honour above the
// repository (each granted as a single file).
//
// relay opens every file it reads itself beneath the repository root in
// one step (internal/safefs), but rg opens the files it lists by name: a
// file swapped for a symbolic link to /etc/passwd between the listing and
// the open was read. Confined, that open fails. Landlock confines a
// thread and what it starts, so Start forks the program from a thread of
// its own, restricted first and ended after the fork (see Start).
//
// An ignore file above the repository is granted only when it is a
// regular file reached without following a link (the final name is
// checked with Lstat, then opened with openat2 RESOLVE_NO_SYMLINKS and
// checked again with fstat on the descriptor the rule is made from): a
// ../.gitignore that is a link to a file elsewhere would otherwise hand
// that file to rg. The user's global git and fd ignore files are the
// user's own configuration and are granted wherever they point.
//
// The thread that forks the program stays alive, waiting on a pidfd of
// the child, until the child exits: Linux sends a child its
// SysProcAttr.Pdeathsig when the thread that forked it ends, so a thread
// that ended at once would kill the child at once, and one that waits
// turns the signal into "die when relay dies".
//
// Where Landlock is missing (another OS, a kernel before 5.13 or without
// the LSM), Start is cmd.Start and Available reports false.
package confine
