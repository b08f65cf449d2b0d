//go:build cgo

package rust_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/indextest/indexrun"
	"github.com/relayhq/relay/internal/testutil"
)

// TestIncremental edits, adds and deletes Rust files and checks after
// each step that the incremental graph equals a fresh full index of the
// same tree, that dependents were re-resolved when a file's declarations
// changed and that a body-only edit re-resolves that file alone.
func TestIncremental(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	write := func(rel, data string) { testutil.WriteFile(t, root, rel, data) }
	edit := func(rel, old, new string) {
		t.Helper()
		src := indextest.ReadFile(t, root, rel)
		if !strings.Contains(src, old) {
			t.Fatalf("%s lacks %q", rel, old)
		}
		write(rel, strings.Replace(src, old, new, 1))
	}
	const geom = "shapes/src/geom/"
	steps := []struct {
		name      string
		change    func()
		extracted int // files re-resolved, -1: not checked
		want      []string
		notWant   []string
	}{
		{
			name:      "edit a body only",
			change:    func() { edit(geom+"circle.rs", "&self.bound\n", "let _ = Self::new(1.0);\n        &self.bound\n") },
			extracted: 1,
			want:      []string{"edge calls rust:shapes::geom::circle::Circle::bounds -> rust:shapes::geom::circle::Circle::new @" + geom + "circle.rs:16"},
		},
		{
			name:      "rename a method other files call",
			change:    func() { edit(geom+"mod.rs", "pub fn square(side", "pub fn square_of(side") },
			extracted: -1,
			notWant:   []string{"-> rust:shapes::geom::Rect::square @"},
		},
		{
			name:      "rename it back",
			change:    func() { edit(geom+"mod.rs", "pub fn square_of(side", "pub fn square(side") },
			extracted: -1,
			want:      []string{"edge calls rust:app-tests-smoke::runs -> rust:shapes::geom::Rect::square @app/tests/smoke.rs:3"},
		},
		{
			name: "call a module no file declares yet",
			change: func() {
				edit("app/src/report.rs", "let a = s.area();", "let a = s.area();\n    crate::extras::bonus();")
			},
			extracted: 1,
			notWant:   []string{"rust:app::extras::bonus"},
		},
		{
			name:      "add its file",
			change:    func() { write("app/src/extras.rs", "pub fn bonus() {}\n") },
			extracted: 2, // the new file, and report.rs, whose crate::extras did not resolve
			want:      []string{"edge calls rust:app::report::print -> rust:app::extras::bonus @app/src/report.rs:5"},
		},
		{
			name: "add a file",
			change: func() {
				write("shapes/src/extra.rs", "use crate::geom::Rect;\n\npub fn make() -> Rect {\n    Rect::square(1.0)\n}\n")
				edit("shapes/src/lib.rs", "mod util;", "mod util;\npub mod extra;")
			},
			extracted: -1,
			want:      []string{"edge calls rust:shapes::extra::make -> rust:shapes::geom::Rect::square @shapes/src/extra.rs:4"},
		},
		{
			name:      "delete a file other files use",
			change:    func() { os.Remove(filepath.Join(root, "shapes", "src", "util.rs")) },
			extracted: -1,
			notWant:   []string{"rust:shapes::util::clamp"},
		},
	}
	for _, s := range steps {
		s.change()
		sum := indexrun.Run(t, st, root, false)
		if sum.Unchanged {
			t.Fatalf("%s: run saw no change", s.name)
		}
		if s.extracted >= 0 && sum.Languages["Rust"].Units != s.extracted {
			t.Errorf("%s: %d files re-resolved, want %d", s.name, sum.Languages["Rust"].Units, s.extracted)
		}
		got := indextest.MatchesFullIndex(t, s.name, st, root, indexrun.Run)
		indextest.DumpHolds(t, s.name, got, s.want, s.notWant)
	}
	if sum := indexrun.Run(t, st, root, false); !sum.Unchanged {
		t.Errorf("a run after no change rewrote %d files", sum.Changed)
	}
}

// TestManifestRenamesCrate: renaming a package in its Cargo.toml renames
// its crate, and the other crates' paths through the old name no longer
// resolve, as in a full index.
func TestManifestRenamesCrate(t *testing.T) {
	root := indextest.ExtractTxtar(t, "basic")
	st := indextest.OpenStore()
	indexrun.Run(t, st, root, false)
	testutil.WriteFile(t, root, "shapes/Cargo.toml", "[package]\nname = \"figures\"\nversion = \"0.1.0\"\n")
	indexrun.Run(t, st, root, false)
	got := indextest.MatchesFullIndex(t, "rename", st, root, indexrun.Run)
	indextest.DumpHolds(t, "rename", got, []string{"node rust:figures::geom::Rect "}, []string{"rust:shapes::", "edge calls rust:app::App::run -> rust:figures"})
}
