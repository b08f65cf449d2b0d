// Package cinclude owns what the C and C++ frontends and their checks
// share about a C-family build: reading a JSON compilation database
// (compile_commands.json) and finding the include directories a
// repository's sources are compiled with.
package cinclude
