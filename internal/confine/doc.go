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
// Where Landlock is missing (another OS, a kernel before 5.13 or without
// the LSM), Start is cmd.Start and Available reports false.
package confine
