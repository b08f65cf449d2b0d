package rust

import (
	"path"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIsSource: Rust files are the .rs files of internal/repofs's
// language table with a name before the extension.
func TestIsSource(t *testing.T) {
	for _, tt := range []struct {
		rel  string
		want bool
	}{
		{"src/lib.rs", true},
		{"a.rs", true},
		{".rs", false},
		{"src/.rs", false},
		{"A.RS", false},
		{"Cargo.toml", false},
		{"a.rs.bk", false},
	} {
		if got := isSource(tt.rel, path.Base(tt.rel)); got != tt.want {
			t.Errorf("isSource(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}

// TestLayout: crates and modules from the paths and the manifests.
func TestLayout(t *testing.T) {
	files := []string{
		"tokio/src/lib.rs", "tokio/src/io/mod.rs", "tokio/src/io/util.rs", "tokio/src/net.rs",
		"tokio/tests/io.rs", "tokio/tests/support/mod.rs", "tokio/tests/support/leak.rs",
		"tokio/examples/echo.rs", "tokio/build.rs",
		"cli/src/main.rs", "cli/src/lib.rs", "cli/src/bin/tool.rs", "cli/src/bin/big/main.rs", "cli/src/bin/big/part.rs",
		"loose/src/x.rs", "top.rs", "dup/src/lib.rs", "dup/src/a.rs", "dup/src/a/mod.rs",
	}
	manifests := map[string]string{
		"Cargo.toml": "", "tokio/Cargo.toml": crateName([]byte("[package]\nname = \"tokio\"\n")),
		"cli/Cargo.toml": crateName([]byte("[package]\nname = \"my-cli\"\n[lib]\nname = \"cli_lib\"\n")),
		"dup/Cargo.toml": crateName([]byte("[package]\nname = \"dup\"\n")),
	}
	lay := newLayout(files, manifests)
	got := map[string]fileMod{}
	for _, f := range files {
		got[f] = lay.mods[f]
	}
	want := map[string]fileMod{
		"tokio/src/lib.rs":            {Crate: "tokio", Path: "tokio", Root: true},
		"tokio/src/io/mod.rs":         {Crate: "tokio", Path: "tokio::io"},
		"tokio/src/io/util.rs":        {Crate: "tokio", Path: "tokio::io::util"},
		"tokio/src/net.rs":            {Crate: "tokio", Path: "tokio::net"},
		"tokio/tests/io.rs":           {Crate: "tokio-tests-io", Path: "tokio-tests-io", Root: true, Test: true},
		"tokio/tests/support/mod.rs":  {Crate: "tokio-tests-support", Path: "tokio-tests-support", Root: true, Test: true},
		"tokio/tests/support/leak.rs": {Crate: "tokio-tests-support", Path: "tokio-tests-support::leak", Test: true},
		"tokio/examples/echo.rs":      {Crate: "tokio-examples-echo", Path: "tokio-examples-echo", Root: true},
		"tokio/build.rs":              {Crate: "tokio-build", Path: "tokio-build", Root: true},
		"cli/src/main.rs":             {Crate: "cli_lib-bin", Path: "cli_lib-bin", Root: true},
		"cli/src/lib.rs":              {Crate: "cli_lib", Path: "cli_lib", Root: true},
		"cli/src/bin/tool.rs":         {Crate: "tool", Path: "tool", Root: true},
		"cli/src/bin/big/main.rs":     {Crate: "big", Path: "big", Root: true},
		"cli/src/bin/big/part.rs":     {Crate: "big", Path: "big::part"},
		"loose/src/x.rs":              {Crate: "loose", Path: "loose::x"},
		"top.rs":                      {Crate: "crate", Path: "crate::top"},
		"dup/src/lib.rs":              {Crate: "dup", Path: "dup", Root: true},
		"dup/src/a.rs":                {Crate: "dup", Path: "dup::a"},
		"dup/src/a/mod.rs":            {Crate: "dup", Path: "dup::a@dup/src/a/mod.rs"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layout (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ file, name, attr, want string }{
		{"tokio/src/lib.rs", "io", "", "tokio::io"},
		{"tokio/src/io/mod.rs", "util", "", "tokio::io::util"},
		{"tokio/tests/io.rs", "support", "", "tokio-tests-support"},
		{"tokio/src/lib.rs", "net", "", "tokio::net"},
		{"tokio/src/lib.rs", "other", "io/util.rs", "tokio::io::util"},
		{"tokio/src/lib.rs", "missing", "", ""},
	} {
		if got := lay.modFile(tt.file, tt.name, tt.attr); got != tt.want {
			t.Errorf("modFile(%s, %s, %q) = %q, want %q", tt.file, tt.name, tt.attr, got, tt.want)
		}
	}
}
