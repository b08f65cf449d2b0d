// Package cppcheck is a test package: it measures the C++ frontend's
// call edges (index/cpp) against clang's resolution of every call
// (index/internal/clangcheck), on a fixture compiled here and, when
// RELAY_CPPCHECK_REPO names a checkout with a compile_commands.json (fmt,
// configured by CMake with -DCMAKE_EXPORT_COMPILE_COMMANDS=ON), on a
// real project. The figures are in BENCHMARKS.md.
package cppcheck
