package golang_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/relayhq/relay/index"
	"github.com/relayhq/relay/index/golang"
	"github.com/relayhq/relay/index/internal/indextest"
	"github.com/relayhq/relay/index/internal/sitter"
	"github.com/relayhq/relay/internal/testutil"
)

// listener accepts connections on 127.0.0.1 and counts them; each is
// answered with a 404 and closed. It stands for every host a repository
// names.
type listener struct {
	net.Listener
	conns atomic.Int32
}

func newListener(t *testing.T) *listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{Listener: ln}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.conns.Add(1)
			buf := make([]byte, 4096)
			_, _ = c.Read(buf)
			_, _ = c.Write([]byte("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
			c.Close()
		}
	}()
	return l
}

// untrustedRepo writes a repository whose root module requires a module on
// the listener's host, with a nested module asking for a newer go and
// toolchain, a Python file and, with broken, a nested module whose go.mod
// does not parse.
func untrustedRepo(t *testing.T, host string, broken bool) string {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFile(t, root, "go.mod", "module example.com/root\n\ngo 1.22\n\nrequire "+host+"/evil v1.0.0\n")
	testutil.WriteFile(t, root, "root.go", "package root\n\nimport \""+host+"/evil\"\n\n// Root calls the missing module.\nfunc Root() { evil.X(); Local() }\n\n// Local is declared here.\nfunc Local() {}\n")
	testutil.WriteFile(t, root, "newer/go.mod", "module example.com/newer\n\ngo 1.99\n\ntoolchain go1.99.1\n")
	testutil.WriteFile(t, root, "newer/newer.go", "package newer\n\n// Newer is in a module the installed go refuses.\nfunc Newer() {}\n")
	if broken {
		testutil.WriteFile(t, root, "broken/go.mod", "module example.com/broken\n\ngo 1.22\n\nrequire (\n\tnot a requirement\n")
		testutil.WriteFile(t, root, "broken/broken.go", "package broken\n\n// Broken is in a module whose go.mod does not parse.\nfunc Broken() {}\n")
	}
	testutil.WriteFile(t, root, "tools/gen.py", "def generate():\n    return 1\n")
	return root
}

// TestGoListNoNetwork: the go command that lists the packages runs with
// GOTOOLCHAIN=local, GOVCS=*:off and GOPROXY=off whatever the caller's
// environment says, so a go.mod naming an unknown module and a newer
// toolchain makes no request (a caller's GOPROXY pointing at the listener
// with a direct fallback, GOTOOLCHAIN=auto and GOFLAGS=-mod=mod used to
// download both). The modules the installed go refuses are listed with
// their errors and everything else is indexed: the root package, the
// Python file, and the refused modules' files from syntax. The repository
// is not written to (no go.sum appears).
func TestGoListNoNetwork(t *testing.T) {
	l := newListener(t)
	t.Setenv("GOPROXY", "http://"+l.Addr().String()+",direct")
	t.Setenv("GOTOOLCHAIN", "auto")
	t.Setenv("GOFLAGS", "-mod=mod")
	t.Setenv("GONOSUMDB", "*")
	t.Setenv("GOSUMDB", "off")
	t.Setenv("GOVCS", "*:all")
	for _, broken := range []bool{false, true} {
		t.Run(fmt.Sprintf("broken=%v", broken), func(t *testing.T) {
			checkNoNetwork(t, l, broken)
		})
	}
}

// checkNoNetwork indexes an untrustedRepo and checks that l saw no
// connection and everything but the refused modules was indexed.
func checkNoNetwork(t *testing.T, l *listener, broken bool) {
	proxy := "http://" + l.Addr().String()
	root := untrustedRepo(t, "127.0.0.1", broken)
	st := indextest.OpenStore()
	sum, err := index.Run(t.Context(), st, index.Options{Root: root})
	if n := l.conns.Load(); n != 0 {
		t.Errorf("the listener at %s saw %d connections; want none", proxy, n)
	}
	if err != nil {
		t.Fatalf("Run: %v (a module the installed go refuses must not fail the run)", err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.sum")); err == nil {
		t.Errorf("go.sum was written into the repository")
	}
	errs := indextest.SummaryText(sum)
	wantErrs := []string{
		"newer/go.mod: go list failed (its Go files are indexed from syntax alone): go: newer/go.mod requires go >= 1.99",
		"GOTOOLCHAIN=local",
		`example.com/root: root.go:3:8: import "127.0.0.1/evil": module lookup disabled by GOPROXY=off`,
	}
	wantGraph := []string{"qname=example.com/root.Local", "name=Newer", "owner newer/newer.go lang=go"}
	if sitter.Unavailable == "" { // Python is indexed where there is tree-sitter
		wantGraph = append(wantGraph, "name=generate")
	}
	if broken {
		wantErrs = append(wantErrs, "broken/go.mod: go list failed")
		wantGraph = append(wantGraph, "name=Broken", "owner broken/broken.go lang=go")
	}
	for _, want := range wantErrs {
		if !strings.Contains(errs, want) {
			t.Errorf("summary lacks %q:\n%s", want, errs)
		}
	}
	indextest.DumpHolds(t, "untrusted repository", indextest.Dump(t, st), wantGraph, nil)
}

// TestGoListProxyAllowed: Options.GoProxy is the proxy the operator
// allows; the go command asks it for the unknown module (and nothing
// else switches on: the toolchain stays local).
func TestGoListProxyAllowed(t *testing.T) {
	l := newListener(t)
	proxy := "http://" + l.Addr().String()
	t.Setenv("GOPROXY", "off")
	t.Setenv("GOSUMDB", "off")
	root := untrustedRepo(t, "127.0.0.1", false)
	sum, err := index.Run(t.Context(), indextest.OpenStore(), index.Options{Root: root, GoProxy: proxy})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if l.conns.Load() == 0 {
		t.Errorf("the allowed proxy at %s saw no request", proxy)
	}
	if errs := indextest.SummaryText(sum); !strings.Contains(errs, "GOTOOLCHAIN=local") {
		t.Errorf("the newer module was not refused with GOTOOLCHAIN=local:\n%s", errs)
	}
}

// TestCallerGoFlags: the caller's GOFLAGS keep everything but -mod and
// -modfile, which the indexer sets itself.
func TestCallerGoFlags(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"-mod=vendor", ""},
		{"-tags=integration -mod=mod --modfile=/x/go.mod -trimpath", "-tags=integration -trimpath"},
	} {
		if got := strings.Join(golang.CallerGoFlags(tc.in), " "); got != tc.want {
			t.Errorf("golang.CallerGoFlags(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
